import Courier
import Foundation
import Testing

/// Status codes from a real server: unacceptable ones become classified errors that carry the response;
/// empty bodies give `nil` for Optional results.
@Suite("Integration: status codes", .httpbin)
struct StatusIntegrationTests {
    struct StatusCase: Sendable, CustomTestStringConvertible {
        var code: Int
        var category: APIError.StatusCategory

        var testDescription: String { "\(code) → \(category)" }
    }

    static let errorCases: [StatusCase] = [
        StatusCase(code: 400, category: .badRequest),
        StatusCase(code: 401, category: .unauthorized),
        StatusCase(code: 403, category: .forbidden),
        StatusCase(code: 404, category: .notFound),
        StatusCase(code: 418, category: .clientError),
        StatusCase(code: 500, category: .serverError),
        StatusCase(code: 503, category: .serverError),
    ]

    @Test("An unacceptable status is a classified error carrying the response", arguments: errorCases)
    func unacceptableStatus(_ status: StatusCase) async throws {
        let configuration = try HTTPBin.configuration()

        let error = try await #require(throws: APIError.self) {
            try await HTTPBinAPI.$status.request(with: status.code, using: configuration)
        }

        #expect(error.reason == .unacceptableStatus(status.category))
        #expect(error.statusCode == status.code)
        let response = try #require(error.response)
        #expect(response.statusCode == status.code)
        #expect(response.request.url.path == "/status/\(status.code)")
        #expect(error.response?.body.data != nil)
        #expect(error.request?.method == .get)
        #expect(error.underlyingError == nil)
        #expect(error.description == "GET /status/{code}: unacceptable status \(status.code) (\(status.category))")
    }

    @Test("Every call form reports the same status error")
    func everyCallFormValidates() async throws {
        let configuration = try HTTPBin.configuration()

        let decoded = try await #require(throws: APIError.self) {
            try await HTTPBinAPI.$status.request(with: 404, using: configuration) as HTTPBinEcho
        }
        let optional = try await #require(throws: APIError.self) {
            try await HTTPBinAPI.$status.request(with: 404, using: configuration) as HTTPBinEcho?
        }
        let data = try await #require(throws: APIError.self) {
            try await HTTPBinAPI.$status.request(with: 404, using: configuration) as Data
        }

        for error in [decoded, optional, data] {
            #expect(error.reason == .unacceptableStatus(.notFound))
        }
    }

    @Test("418's body is on the error")
    func errorBody() async throws {
        let configuration = try HTTPBin.configuration()

        let error = try await #require(throws: APIError.self) {
            try await HTTPBinAPI.$status.request(with: 418, using: configuration)
        }

        let body = try #require(error.response?.body.data)
        #expect(String(decoding: body, as: UTF8.self).contains("teapot"))
        #expect(error.bodyExcerpt?.contains("teapot") == true)
    }

    @Test("401's response headers are on the error")
    func errorHeaders() async throws {
        let configuration = try HTTPBin.configuration()

        let error = try await #require(throws: APIError.self) {
            try await HTTPBinAPI.$status.request(with: 401, using: configuration)
        }

        #expect(error.response?.headers["WWW-Authenticate"] == #"Basic realm="Fake Realm""#)
    }

    @Test("A 2xx the endpoint does not accept is .unexpected, and its body decodes into a model")
    func unexpectedSuccessStatus() async throws {
        let configuration = try HTTPBin.configuration()

        let error = try await #require(throws: APIError.self) {
            try await HTTPBinAPI.$getExpecting201.request(using: configuration)
        }

        #expect(error.reason == .unacceptableStatus(.unexpected))
        #expect(error.statusCode == 200)
        let echo = try #require(error.decodeBody(as: HTTPBinEcho.self))
        #expect(try echo.url == HTTPBin.baseText() + "/get")
    }

    @Test(
        "An empty 204 or 205 body gives nil for an Optional, and succeeds with the result discarded",
        arguments: [204, 205])
    func emptyBodyStatus(_ code: Int) async throws {
        let configuration = try HTTPBin.configuration()

        let echo: HTTPBinEcho? = try await HTTPBinAPI.$status.request(with: code, using: configuration)
        let text: String? = try await HTTPBinAPI.$status.request(with: code, using: configuration)
        try await HTTPBinAPI.$status.request(with: code, using: configuration)
        let raw: APIResponse = try await HTTPBinAPI.$status.request(with: code, using: configuration)

        #expect(echo == nil)
        #expect(text == nil)
        #expect(raw.statusCode == code)
        #expect(raw.body.isEmpty)
    }

    @Test("HEAD gives nil for an Optional and the headers of the GET it mirrors")
    func head() async throws {
        let configuration = try HTTPBin.configuration()

        let echo: HTTPBinEcho? = try await HTTPBinAPI.$head.request(using: configuration)
        try await HTTPBinAPI.$head.request(using: configuration)
        let raw: APIResponse = try await HTTPBinAPI.$head.request(using: configuration)

        #expect(echo == nil)
        #expect(raw.statusCode == 200)
        #expect(raw.body.isEmpty)
        #expect(raw.headers[.contentType] == "application/json")
        #expect(Int(raw.headers["Content-Length"] ?? "") ?? 0 > 0)
    }

    @Test("A status error's description names the endpoint template and never a header value")
    func descriptionHidesSecrets() async throws {
        // GIVEN a token in the configuration's headers and a header the endpoint builds from the parameter
        let token = "Bearer s3cr3t-t0ken-value"
        let configuration = try HTTPBin.configuration(headers: ["Authorization": token, "X-Api-Key": "k3y-value"])

        // WHEN the call fails with a status error
        let error = try await #require(throws: APIError.self) {
            try await HTTPBinAPI.$status.request(with: 403, using: configuration)
        }

        // THEN the token was sent, but no text form of the error shows it
        #expect(error.request?.headers["Authorization"] == token)
        for text in [error.description, "\(error)", error.localizedDescription, error.errorDescription ?? ""] {
            #expect(text.contains("GET /status/{code}"))
            #expect(!text.contains("s3cr3t"))
            #expect(!text.contains("k3y-value"))
        }
    }
}
