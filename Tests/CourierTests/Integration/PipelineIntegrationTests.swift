import Courier
import Foundation
import Testing

/// Adds `X-Sent-By: pipeline` to every request it sees.
private struct MarkingPlugin: APIPlugin {
    func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        var request = request
        request.headers["X-Sent-By"] = "pipeline"
        return try await next(request)
    }
}

/// A request one already has (a changed copy, the next page's URL) sent through the configuration's
/// plugins, status validation and decoding.
@Suite("Integration: sending an APIRequest", .httpbin)
struct PipelineIntegrationTests {
    @Test("A built request sent to another URL runs the plugins and decodes the typed result")
    func sendChangedRequest() async throws {
        // GIVEN a request built for /get and a configuration with a plugin
        let configuration = try HTTPBin.configuration().with { $0.plugins = [MarkingPlugin()] }
        var request = try await HTTPBinAPI.$get.makeRequest(with: (a: "x", b: 1), using: configuration)

        // WHEN it is pointed at the next page and sent
        request.url = try #require(URL(string: try HTTPBin.baseText() + "/anything?page=2"))
        let echo: HTTPBinEcho = try await request.send(using: configuration)

        // THEN the plugin ran and the body was decoded
        #expect(echo.args?["page"] == .one("2"))
        #expect(echo.header("X-Sent-By") == "pipeline")
        #expect(echo.url?.hasSuffix("/anything?page=2") == true)
    }

    @Test("A sent request's status is validated against the endpoint's and the configuration's codes")
    func sendValidatesStatus() async throws {
        let configuration = try HTTPBin.configuration()
        var request = try await HTTPBinAPI.$status.makeRequest(with: 200, using: configuration)
        request.url = try #require(URL(string: try HTTPBin.baseText() + "/status/404"))

        let error = try await #require(throws: APIError.self) {
            try await request.send(using: configuration)
        }

        #expect(error.reason == .unacceptableStatus(.notFound))
        #expect(error.endpoint.description == "GET /status/{code}")
        let raw = try await request.send(using: configuration.with { $0.acceptableStatusCodes = .any }) as Data
        #expect(raw.isEmpty)
    }
}
