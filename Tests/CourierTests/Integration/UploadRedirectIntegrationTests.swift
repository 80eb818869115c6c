import Courier
import Foundation
import Testing

/// A `307` after an upload with the real `URLSessionExecutor`: a one-shot stream is never read twice (the redirect
/// is the response); a file body is read again from its start for the next hop on Apple platforms, and on Linux,
/// where FoundationNetworking cannot send a streamed body twice, the redirect is the response too.
@Suite("Integration: uploads redirected with 307", .httpbin)
struct UploadRedirectIntegrationTests {
    /// httpbin's `/redirect-to` answers with the given status and `Location: /anything`.
    static let streamed = POST<AsyncStream<Data>>(
        "/redirect-to", acceptableStatusCodes: .any
    ) {
        .stream($0, count: 11, contentType: "text/plain", parameters: ["url": "/anything", "status_code": 307])
    }

    static let file = POST<URL>("/redirect-to", acceptableStatusCodes: .any) {
        .file($0, contentType: "text/plain", parameters: ["url": "/anything", "status_code": 307])
    }

    @Test("A one-shot stream is not sent twice: the 307 is the response")
    func oneShotStreamStopsAtTheRedirect() async throws {
        let configuration = try HTTPBin.configuration()
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("hello ".utf8))
            continuation.yield(Data("world".utf8))
            continuation.finish()
        }

        let response: APIResponse = try await Self.streamed.request(with: chunks, using: configuration)

        #expect(response.statusCode == 307)
        #expect(response.headers["Location"] == "/anything")
    }

    @Test("A file body is read again for the next hop of a 307 (Apple); on Linux the 307 is the response")
    func fileBodyAndTheRedirect() async throws {
        let configuration = try HTTPBin.configuration()
        let text = String(repeating: "a file that goes twice ✓\n", count: 2_000)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("body.txt")
        try Data(text.utf8).write(to: url)

        let response: APIResponse = try await Self.file.request(with: url, using: configuration)

        #if canImport(FoundationNetworking)
            // FoundationNetworking cannot send a streamed body again: stopping is prompt, where following hung.
            #expect(response.statusCode == 307)
            #expect(response.headers["Location"] == "/anything")
        #else
            #expect(response.statusCode == 200)
            let echo = try JSONDecoder().decode(HTTPBinEcho.self, from: response.data)
            #expect(echo.method == "POST")
            #expect(echo.data == text)
        #endif
    }
}
