import Courier
import Foundation
import Testing

/// The call forms against real bodies: text, bytes, redirects, and a body that is not what was asked for.
@Suite("Integration: response forms", .httpbin)
struct ResponseIntegrationTests {
    @Test("/encoding/utf8 decodes as String")
    func utf8Text() async throws {
        let configuration = try HTTPBin.configuration()

        let text: String = try await HTTPBinAPI.$utf8.request(using: configuration)

        #expect(text.contains("Unicode Demo"))
        #expect(text.contains("∮ E⋅da = Q"))
        #expect(text.contains("Markus Kuhn [ˈmaʳkʊs kuːn]"))
    }

    @Test("/bytes/{n} returns n bytes as Data", arguments: [0, 1, 1024, 100 * 1024])
    func bytes(_ count: Int) async throws {
        let configuration = try HTTPBin.configuration()

        let data: Data = try await HTTPBinAPI.$bytes.request(with: count, using: configuration)

        #expect(data.count == count)
    }

    @Test("Redirects are followed; the raw response names the final URL")
    func redirects() async throws {
        let configuration = try HTTPBin.configuration()

        let raw: APIResponse = try await HTTPBinAPI.$redirect.request(with: 2, using: configuration)
        let echo: HTTPBinEcho = try await HTTPBinAPI.$redirect.request(with: 2, using: configuration)

        #expect(raw.statusCode == 200)
        #expect(raw.url?.path == "/get")
        #expect(raw.request.url.path == "/redirect/2")
        #expect(echo.url?.hasSuffix("/get") == true)
    }

    @Test("HTML requested as a Decodable fails with .decodingFailed, the DecodingError and a body excerpt")
    func htmlAsDecodable() async throws {
        let configuration = try HTTPBin.configuration()

        let error = try await #require(throws: APIError.self) {
            try await HTTPBinAPI.$html.request(using: configuration) as HTTPBinEcho
        }

        #expect(error.reason == .decodingFailed)
        #expect(error.underlyingError is DecodingError)
        let excerpt = try #require(error.bodyExcerpt)
        #expect(excerpt.hasPrefix("<!DOCTYPE html>"))
        #expect(excerpt.count <= 201)
        #expect(error.statusCode == 200)
        #expect(error.description.hasPrefix("GET /html: the response body could not be decoded"))
        // The same body is fine as text.
        let html: String = try await HTTPBinAPI.$html.request(using: configuration)
        #expect(html.contains("Herman Melville"))
    }
}
