import Courier
import Foundation
import Testing

/// Typed responses with their headers, per-call headers and key-path decoding against a real httpbin.
@Suite("Integration: call forms", .httpbin)
struct CallFormIntegrationTests {
    @MainActor enum Book {
        /// Answers with `ETag: <etag>`; `304` for a matching `If-None-Match`, `412` for a failing `If-Match`.
        @GET("/etag/{etag}")
        static var etag: APIParameterBuilder<String>? = .init { ["etag": $0] }

        @GET("/anything")
        static var anything: APIParameterBuilder<String>? = .init { ["page": $0] }
    }

    @Test("A typed response carries the value, the status and the headers (ETag)")
    func typedResponseWithHeaders() async throws {
        let configuration = try HTTPBin.configuration()

        let response: DecodedResponse<HTTPBinEcho> = try await Book.$etag.request(with: "v1", using: configuration)

        #expect(response.statusCode == 200)
        #expect(response.headers["ETag"] == "v1")
        #expect(response.value.url?.hasSuffix("/etag/v1") == true)
    }

    @Test("Per-call headers reach the server: If-None-Match gives 304, a failing If-Match gives 412")
    func perCallHeaders() async throws {
        let configuration = try HTTPBin.configuration()
        let first: DecodedResponse<HTTPBinEcho> = try await Book.$etag.request(with: "v2", using: configuration)
        let etag = try #require(first.headers["ETag"])

        // GIVEN the resource's ETag, WHEN it is sent back as a precondition at the call site
        let notModified = try await #require(throws: APIError.self) {
            try await Book.$etag.with(headers: ["If-None-Match": etag]).request(with: "v2", using: configuration)
        }
        let failed = try await #require(throws: APIError.self) {
            try await Book.$etag.with(headers: ["If-Match": "other"]).request(with: "v2", using: configuration)
        }
        let matched: DecodedResponse<HTTPBinEcho> = try await Book.$etag.with(headers: ["If-Match": etag])
            .request(with: "v2", using: configuration)

        // THEN the server saw it, and the endpoint itself is unchanged
        #expect(notModified.statusCode == 304)
        #expect(failed.statusCode == 412)
        #expect(matched.value.header("If-Match") == etag)
        let plain = try await Book.$etag.makeRequest(with: "v2", using: configuration)
        #expect(plain.headers["If-Match"] == nil)
    }

    @Test("A value inside the echo decodes at a key path")
    func keyPath() async throws {
        let configuration = try HTTPBin.configuration()

        let page: String = try await Book.$anything.request(with: "7", using: configuration, decoder: .at("args.page"))

        #expect(page == "7")
    }
}
