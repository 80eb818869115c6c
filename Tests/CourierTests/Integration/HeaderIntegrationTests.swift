import Courier
import Foundation
import Testing

/// Request headers from every source reach httpbin, in the documented precedence; response headers are
/// readable from the raw response.
@Suite("Integration: headers", .httpbin)
struct HeaderIntegrationTests {
    @Test("Configuration, endpoint and builder headers all arrive; later sources win on the same name")
    func requestHeadersEcho() async throws {
        // GIVEN configuration defaults, one of them shadowed by the endpoint's static headers
        let configuration = try HTTPBin.configuration(headers: [
            "X-Default": "from-configuration",
            "X-Static": "from-configuration",
            "Accept": "application/json",
        ])

        // WHEN the endpoint, whose header builder also sets a header, is called
        let echo: HTTPBinEcho = try await HTTPBinAPI.$headers.request(with: "request-42", using: configuration)

        // THEN httpbin saw each header once, with the value of the most specific source
        #expect(echo.header("X-Default") == "from-configuration")
        #expect(echo.header("X-Static") == "from-endpoint")
        #expect(echo.header("X-Shadowed") == "from-builder")
        #expect(echo.header("X-Trace-Id") == "request-42")
        #expect(echo.header("Accept") == "application/json")
    }

    @Test("A header with several values arrives as one comma-joined field")
    func repeatedHeaderValues() async throws {
        var headers: HTTPHeaders = [:]
        headers.add("X-Multi", "a")
        headers.add("X-Multi", "b")
        let configuration = try HTTPBin.configuration(headers: headers)

        let echo: HTTPBinEcho = try await HTTPBinAPI.$headers.request(with: "id", using: configuration)

        #expect(echo.header("X-Multi") == "a,b")
    }

    @Test("Response headers are readable from the raw response, by any case of their name")
    func responseHeaders() async throws {
        let configuration = try HTTPBin.configuration()

        let raw: APIResponse = try await HTTPBinAPI.$responseHeaders.request(
            with: [QueryPair("X-Test", "1"), QueryPair("X-Other", "a b")],
            using: configuration
        )

        #expect(raw.statusCode == 200)
        #expect(raw.headers["X-Test"] == "1")
        #expect(raw.headers["x-test"] == "1")
        #expect(raw.headers["X-Other"] == "a b")
        #expect(raw.headers[.contentType] == "application/json")
    }
}
