import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `307`/`308` after a request with a body, with the real `URLSessionExecutor`: the next hop repeats the method
/// and the body, whether the body is in memory, a file or a multipart form (on Linux Courier sends that hop
/// itself: FoundationNetworking drops the body); a one-shot stream is never read twice (the redirect is the
/// response). Credentials are still removed before a hop to another origin, and every hop counts.
@Suite("Integration: uploads redirected with 307 and 308", .httpbin, .faultServer)
struct UploadRedirectIntegrationTests {
    /// httpbin's `/redirect-to` answers with the given status and `Location: /anything`.
    static let streamed = POST<AsyncStream<Data>>(
        "/redirect-to", acceptableStatusCodes: .any
    ) {
        .body(.stream($0, count: 11), contentType: "text/plain", parameters: ["url": "/anything", "status_code": 307])
    }

    static let file = PUT<(url: URL, status: Int)>("/redirect-to", acceptableStatusCodes: .any) {
        .body(.file($0.url), contentType: "text/plain", parameters: ["url": "/anything", "status_code": $0.status])
    }

    static let data = POST<(text: String, status: Int)>("/redirect-to", acceptableStatusCodes: .any) {
        .body(
            .data(Data($0.text.utf8)), contentType: "text/plain",
            parameters: ["url": "/anything", "status_code": $0.status])
    }

    /// The query is in the path: a multipart endpoint sends its other parameters as form fields.
    static let form = POST<URL>(
        "/redirect-to?url=/post&status_code=307", encoding: .multipart, acceptableStatusCodes: .any
    ) {
        ["title": "Zoë", "text": .file($0, contentType: "text/plain")]
    }

    /// What the fault server's `/headers` answers.
    struct FaultEcho: Decodable {
        var headers: [String: String]
        var method: String
        var origin: String
        var body: String

        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    /// A file of `text` in a folder of its own, removed by `cleanUp`.
    static func temporaryFile(_ text: String) throws -> (url: URL, cleanUp: () -> Void) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("body.txt")
        try Data(text.utf8).write(to: url)
        return (url, { try? FileManager.default.removeItem(at: folder) })
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

    @Test("An in-memory body is sent again after a 307 or a 308, with its method", arguments: [307, 308])
    func dataBodyFollows(_ status: Int) async throws {
        let configuration = try HTTPBin.configuration()

        let response: APIResponse = try await Self.data.request(
            with: (text: "a body that goes twice ✓", status: status), using: configuration)

        #expect(response.statusCode == 200)
        let echo = try JSONDecoder().decode(HTTPBinEcho.self, from: response.data)
        #expect(echo.method == "POST")
        #expect(echo.data == "a body that goes twice ✓")
        #expect(echo.header("Content-Type") == "text/plain")
    }

    @Test("On a session with its own delegate too, an in-memory body and a file body follow a 307")
    func ownSessionFollows() async throws {
        // GIVEN an executor over a session that keeps its own delegate (its tasks report with completion handlers)
        let session = URLSession(configuration: .default)
        defer { session.finishTasksAndInvalidate() }
        let configuration = try HTTPBin.configuration(executor: URLSessionExecutor(session: session))
        let text = String(repeating: "a file that goes twice ✓\n", count: 500)
        let (url, cleanUp) = try Self.temporaryFile(text)
        defer { cleanUp() }

        // WHEN both are redirected with a 307
        let data: APIResponse = try await Self.data.request(
            with: (text: "in memory", status: 307), using: configuration)
        let file: APIResponse = try await Self.file.request(with: (url: url, status: 307), using: configuration)

        // THEN each arrives at the next hop whole
        #expect(try JSONDecoder().decode(HTTPBinEcho.self, from: data.data).data == "in memory")
        #expect(try JSONDecoder().decode(HTTPBinEcho.self, from: file.data).data == text)
    }

    @Test("A file body is read again from its start for the next hop of a 307 or a 308", arguments: [307, 308])
    func fileBodyFollows(_ status: Int) async throws {
        let configuration = try HTTPBin.configuration()
        let text = String(repeating: "a file that goes twice ✓\n", count: 2_000)
        let (url, cleanUp) = try Self.temporaryFile(text)
        defer { cleanUp() }

        let response: APIResponse = try await Self.file.request(with: (url: url, status: status), using: configuration)

        #expect(response.statusCode == 200)
        let echo = try JSONDecoder().decode(HTTPBinEcho.self, from: response.data)
        #expect(echo.method == "PUT")
        #expect(echo.data == text)
        #expect(echo.header("Content-Length") == String(Data(text.utf8).count))
    }

    @Test("A multipart form with a file part is sent again after a 307")
    func multipartFollows() async throws {
        let configuration = try HTTPBin.configuration()
        let text = String(repeating: "a form part ✓\n", count: 500)
        let (url, cleanUp) = try Self.temporaryFile(text)
        defer { cleanUp() }

        let response: APIResponse = try await Self.form.request(with: url, using: configuration)

        #expect(response.statusCode == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: response.data) as? [String: Any])
        let files = try #require(object["files"] as? [String: String], "no files in \(object)")
        let form = try #require(object["form"] as? [String: String], "no form in \(object)")
        #expect(files["text"] == text)
        #expect(form["title"] == "Zoë")
    }

    @Test("A 307 with a body to another origin: the body arrives, the credentials do not")
    func crossOriginBodyWithoutCredentials() async throws {
        // GIVEN a POST with a body and an Authorization header, redirected with a 307 to another port
        let configuration = try FaultServer.configuration()
        let target = "\(try FaultServer.Origin.otherPort.baseText())/headers"
        let endpoint = POST<String>(
            "/redirect", headers: ["Authorization": "Bearer secret-token", "X-Trace": "1"]
        ) { .body(.data(Data($0.utf8)), contentType: "text/plain", parameters: ["to": target, "status": 307]) }

        // WHEN it is followed
        let echo: FaultEcho = try await endpoint.request(with: "the body ✓", using: configuration)

        // THEN the other origin saw the method and the body, and no credential
        #expect(echo.origin == (try FaultServer.Origin.otherPort.baseText()))
        #expect(echo.method == "POST")
        #expect(echo.body == "the body ✓")
        #expect(echo.header("Authorization") == nil)
        #expect(echo.header("X-Trace") == "1")
    }

    @Test("Hops of a 307 with a body count toward maxRedirects, and the policy sees each one")
    func hopsCount() async throws {
        // GIVEN two 307s in a row (the second on the same origin) and a policy that allows one hop
        let hops = LockedBox<[RedirectHop]>([])
        let configuration = try FaultServer.configuration(
            redirectPolicy: .custom(maxRedirects: 1) { hop in
                hops.withLock { $0.append(hop) }
                return .follow
            })
        let endpoint = POST<String>("/redirect") {
            .body(
                .data(Data($0.utf8)), contentType: "text/plain",
                parameters: ["to": "/redirect?status=307&to=/headers", "status": 307])
        }

        // WHEN the call follows them
        do {
            let echo: FaultEcho = try await endpoint.request(with: "body", using: configuration)
            Issue.record("the second hop was followed: \(echo)")
        } catch {
            // THEN the second hop fails as too many redirects; the policy was asked about the first only
            #expect(error.reason == .transport(.redirectRefused(.tooManyRedirects)), "got \(error)")
        }
        #expect(hops.value.map(\.number) == [1])
        #expect(hops.value.first?.statusCode == 307)
    }
}
