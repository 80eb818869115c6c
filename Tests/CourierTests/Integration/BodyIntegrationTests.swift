import Courier
import Foundation
import Testing

/// JSON and form bodies reach httpbin as sent, with the Content-Type Courier chose.
@Suite("Integration: request bodies", .httpbin)
struct BodyIntegrationTests {
    enum BodyMethod: String, CaseIterable, Sendable {
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
        case delete = "DELETE"

        /// Calls the matching httpbin endpoint (`/post`, `/put`, ...) with a JSON body.
        func send(
            _ payload: HTTPBinPayload,
            using configuration: APIConfiguration
        ) async throws -> HTTPBinJSONEcho<HTTPBinPayload> {
            switch self {
            case .post: try await HTTPBinAPI.$post.request(with: payload, using: configuration)
            case .put: try await HTTPBinAPI.$put.request(with: payload, using: configuration)
            case .patch: try await HTTPBinAPI.$patch.request(with: payload, using: configuration)
            case .delete: try await HTTPBinAPI.$delete.request(with: payload, using: configuration)
            }
        }
    }

    @Test("A model is sent as a JSON body and echoed back in httpbin's json field", arguments: BodyMethod.allCases)
    func jsonBodyEcho(_ method: BodyMethod) async throws {
        let configuration = try HTTPBin.configuration()

        let echo = try await method.send(.sample, using: configuration)

        #expect(echo.json == .sample)
        #expect(echo.header("Content-Type") == "application/json")
        // The configuration's encoder wrote it: sorted keys, slashes unescaped, nil left out.
        #expect(echo.data.hasPrefix(#"{"count":3,"name":"Zoë & \"co\" / 東京 🚀","nested":"#))
        #expect(!echo.data.contains("note"))
        // httpbin routes /post, /put, ... by method, so reaching it proves the method.
        #expect(try echo.url == HTTPBin.baseText() + "/" + method.rawValue.lowercased())
    }

    @Test("A form body is echoed in httpbin's form field")
    func formBodyEcho() async throws {
        let configuration = try HTTPBin.configuration()
        let pairs = [
            QueryPair("name", "Jane Q. Public"),
            QueryPair("city", "Zürich"),
            QueryPair("symbols", "a+b&c=d#e%f/g?h"),
            QueryPair("tag", "one"),
            QueryPair("tag", "two"),
        ]

        let echo: HTTPBinEcho = try await HTTPBinAPI.$form.request(with: pairs, using: configuration)

        #expect(
            echo.form == [
                "name": .one("Jane Q. Public"),
                "city": .one("Zürich"),
                "symbols": .one("a+b&c=d#e%f/g?h"),
                "tag": .many(["one", "two"]),
            ]
        )
        #expect(echo.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(echo.args == [:])
    }
}
