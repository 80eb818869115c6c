import Courier
import CourierTesting
import Foundation
import Testing

/// A temporary folder for a test's cassettes.
private struct Folder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cassettes-\(UUID().uuidString)")
    func file(_ name: String = "cassette.har") -> URL { url.appendingPathComponent(name) }
    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Cassettes against the real httpbin: recorded with credentials of every kind, checked for secrets byte by byte,
/// then replayed with the server out of reach (a refused port).
@Suite("Integration: cassettes", .httpbin)
struct CassetteIntegrationTests {
    static let echo = GET<(page: Int, trace: String)>(
        "/anything", parameters: { ["page": $0.page] }, headerBuilder: { ["X-Trace": $0.trace] })
    static let login = POST<Login>(wrappedValue: .init { $0 }, "/anything")
    static let gzip = GET<Void>("/gzip")

    struct Login: Codable, Equatable {
        var user: String
        var password: String
    }

    /// What httpbin echoes, the parts that hold no secret.
    struct Echo: Decodable, Equatable {
        var args: [String: String]
        var method: String
        var json: Login?
        var traceHeader: String? { headers["X-Trace"] }
        var headers: [String: String]

        /// The echo without the fields that carry (masked) secrets, to compare a live call with its replay.
        var public_: Echo {
            var copy = self
            copy.args["api_key"] = nil
            copy.headers = headers.filter { ["X-Trace"].contains($0.key) }
            copy.json?.password = ""
            return copy
        }
    }

    struct Gzipped: Decodable, Equatable {
        var gzipped: Bool
        var method: String
    }

    static let token = "bearer-secret-0123456789"
    static let apiKey = "query-key-abcdef987"
    static let cookie = "cookie-secret-556677"
    static let password = "json-password-hunter42"

    /// httpbin with the four credentials: a bearer token and an API key from auth plugins, a cookie header.
    static func configuration(baseURL: URL? = nil) throws -> APIConfiguration {
        var configuration = try HTTPBin.configuration()
        if let baseURL { configuration.baseURL = baseURL }
        configuration.plugins = [AuthPlugin.bearer(token), AuthPlugin.apiKey(apiKey, queryItem: "api_key")]
        configuration.headers = ["Cookie": "session=\(cookie)"]
        return configuration
    }

    /// A configuration whose base URL is a port that refuses connections: any live call fails.
    static func unreachable(_ port: RefusingPort) throws -> APIConfiguration {
        try configuration(baseURL: URL(string: "http://127.0.0.1:\(port.number)"))
    }

    static func calls() async throws -> (Echo, Echo, Gzipped) {
        let echo: Echo = try await Self.echo.request(with: (page: 2, trace: "t-1"))
        let login: Echo = try await Self.login.request(with: Login(user: "ada", password: password))
        let gzip: Gzipped = try await Self.gzip.request()
        return (echo, login, gzip)
    }

    /// The `page` query items httpbin echoes for calls of pages `pages`.
    static func pages(_ pages: Int...) async throws -> [String?] {
        var echoed: [String?] = []
        for page in pages {
            let echo: Echo = try await Self.echo.request(with: (page: page, trace: "x"))
            echoed.append(echo.args["page"])
        }
        return echoed
    }

    @Test("Recorded with a bearer token, an API key, a cookie and a password: no secret in the file; replayed offline")
    func recordThenReplayOffline() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let port = try #require(RefusingPort())

        let live = try await Cassette(folder.file(), recordsInCI: true).activate(in: Self.configuration()) {
            try await Self.calls()
        }
        let replayed = try await Cassette(folder.file(), mode: .none).activate(in: Self.unreachable(port)) {
            try await Self.calls()
        }

        let bytes = try Data(contentsOf: folder.file())
        let text = String(decoding: bytes, as: UTF8.self)
        for secret in [Self.token, Self.apiKey, Self.cookie, Self.password] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the cassette")
            #expect(!text.contains(secret))
        }
        #expect(live.0.args["api_key"] == Self.apiKey)
        #expect(replayed.0.args["api_key"] == "***")
        #expect(replayed.0.public_ == live.0.public_)
        #expect(replayed.1.public_ == live.1.public_)
        #expect(replayed.1.json?.password == "***")
        #expect(replayed.2 == Gzipped(gzipped: true, method: "GET"))
        #expect(replayed.2 == live.2)
        #expect(!text.contains("Content-Encoding"))
    }

    @Test("An unrecorded request fails naming the difference, without a live call")
    func unrecordedRequest() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let port = try #require(RefusingPort())
        let _: Echo = try await Cassette(folder.file(), recordsInCI: true).activate(in: Self.configuration()) {
            try await Self.echo.request(with: (page: 2, trace: "t"))
        }

        let error = await #expect(throws: APIError.self) {
            try await Cassette(folder.file(), mode: .none).activate(in: Self.unreachable(port)) {
                let _: Echo = try await Self.echo.request(with: (page: 3, trace: "t"))
            }
        }

        #expect((error?.underlyingError as? Cassette.Problem)?.difference == "query `page`: 3 vs 2")
        #expect(error?.reason == .other)
    }

    @Test("Two cassettes active in parallel tasks each record only their own calls")
    func parallelCassettes() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let configuration = try Self.configuration()

        async let first: Void = Cassette(folder.file("a.har"), recordsInCI: true).activate(in: configuration) {
            for page in 1...3 { let _: Echo = try await Self.echo.request(with: (page: page, trace: "a")) }
        }
        async let second: Void = Cassette(folder.file("b.har"), recordsInCI: true).activate(in: configuration) {
            for page in 11...12 { let _: Echo = try await Self.echo.request(with: (page: page, trace: "b")) }
        }
        _ = try await (first, second)

        let a = try String(contentsOf: folder.file("a.har"), encoding: .utf8)
        let b = try String(contentsOf: folder.file("b.har"), encoding: .utf8)
        #expect(a.components(separatedBy: "\"_endpoint\"").count - 1 == 3)
        #expect(b.components(separatedBy: "\"_endpoint\"").count - 1 == 2)
        #expect(a.contains("page=3") && !a.contains("page=11"))
        #expect(b.contains("page=12") && !b.contains("page=1&") && !b.contains("page=2"))
    }

    @Test("newEpisodes replays what the file holds and appends the rest")
    func newEpisodesAppends() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let port = try #require(RefusingPort())
        let _: Echo = try await Cassette(folder.file(), recordsInCI: true).activate(in: Self.configuration()) {
            try await Self.echo.request(with: (page: 1, trace: "x"))
        }

        let cassette = Cassette(folder.file(), mode: .newEpisodes, recordsInCI: true)
        let pages = try await cassette.activate(in: Self.configuration()) { try await Self.pages(1, 2) }
        let replayed = try await Cassette(folder.file(), mode: .none).activate(in: Self.unreachable(port)) {
            try await Self.pages(1, 2)
        }

        #expect(pages == ["1", "2"])
        #expect(replayed == ["1", "2"])
        let text = try String(contentsOf: folder.file(), encoding: .utf8)
        #expect(text.components(separatedBy: "\"_endpoint\"").count - 1 == 2)
    }
}

extension CassetteIntegrationTests {
    @Test("A Server-Sent Events stream from the real SSE server replays its events offline", .sseServer)
    func eventStream() async throws {
        let folder = Folder()
        defer { folder.remove() }
        let port = try #require(RefusingPort())
        var offline = try TransferServers.configuration(TransferServers.sse)
        offline.baseURL = URL(string: "http://127.0.0.1:\(port.number)")

        func events(_ cassette: Cassette, _ configuration: APIConfiguration) async throws -> [ServerSentEvent] {
            try await cassette.activate(in: configuration) {
                var events: [ServerSentEvent] = []
                for try await event in try await EventsAPI.$events.stream().events { events.append(event) }
                return events
            }
        }
        let live = try await events(
            Cassette(folder.file(), recordsInCI: true), TransferServers.configuration(TransferServers.sse))
        let replayed = try await events(Cassette(folder.file(), mode: .none), offline)

        #expect(live.count == 5)
        #expect(replayed == live)
    }
}
