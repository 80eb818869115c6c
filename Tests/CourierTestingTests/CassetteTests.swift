@_spi(CourierInternals) import Courier
import Foundation
import Testing

@testable import CourierTesting

@MainActor
enum Shop {
    @GET("/items")
    static var items: APIParameterBuilder<(page: Int, sort: String)>? = .init { ["page": $0.page, "sort": $0.sort] }

    @GET("/items/{id}")
    static var item: APIParameterBuilder<String>? = .init { ["id": $0] }

    @POST("/login")
    static var login: APIParameterBuilder<[String: String]>? = .init { $0 }
}

struct Page: Codable, Equatable {
    var page: Int
    var names: [String]
}

/// A folder of its own for each test's cassettes, removed at the end.
struct CassetteFolder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cassettes-\(UUID().uuidString)")

    func file(_ name: String = "cassette.har") -> URL { url.appendingPathComponent(name) }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

extension Cassette {
    /// A cassette that ignores the process's `CI` variable (the CI guard has tests of its own).
    static func local(
        _ file: URL, mode: Mode = .once, matching: Matching = Matching(), recordingWith executor: any APIExecutor,
        redact: (@Sendable (inout Interaction) -> Void)? = nil
    ) -> Cassette {
        Cassette(
            file, mode: mode, matching: matching, recordingWith: executor, recordsInCI: false, redact: redact,
            environment: [:])
    }
}

/// An executor that must not be reached: replaying never calls the network.
let unreachable = StubExecutor().stub(where: { _ in true }) { request in
    Issue.record("a replaying cassette sent \(request.method) \(request.url)")
    throw URLError(.cannotConnectToHost)
}

@Suite struct CassetteTests {
    let base = APIConfiguration(baseURL: URL(string: "https://shop.example/api"))

    func pageStub() -> StubExecutor {
        StubExecutor().stub(where: { $0.endpoint.path == "/items" }) { request in
            let page = Int(request.queryItems.first { $0.name == "page" }?.value ?? "") ?? 0
            return .json(#"{"page": \#(page), "names": ["a\#(page)", "b\#(page)"]}"#)
        }
    }

    /// Makes `call` through a new cassette that records from `stub`, then again through one that replays only;
    /// returns both responses and the cassette file's text.
    func recordAndReplay(
        in folder: CassetteFolder, _ configuration: APIConfiguration, with stub: StubExecutor,
        call: () async throws -> APIResponse
    ) async throws -> (recorded: APIResponse, replayed: APIResponse, file: String) {
        let recorded = try await Cassette.local(folder.file(), recordingWith: stub).activate(in: configuration) {
            try await call()
        }
        let replayed = try await Cassette.local(folder.file(), mode: .none, recordingWith: unreachable).activate(
            in: configuration
        ) { try await call() }
        return (recorded, replayed, try String(decoding: Data(contentsOf: folder.file()), as: UTF8.self))
    }

    @Test func recordsOnceThenReplaysWithoutTheNetwork() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let stub = pageStub()

        let recorded: Page = try await Cassette.local(folder.file(), recordingWith: stub).activate(in: base) {
            try await Shop.$items.request(with: (page: 2, sort: "name"))
        }
        let replayed: Page = try await Cassette.local(folder.file(), recordingWith: unreachable).activate(in: base) {
            try await Shop.$items.request(with: (page: 2, sort: "name"))
        }

        #expect(recorded == Page(page: 2, names: ["a2", "b2"]))
        #expect(replayed == recorded)
        #expect(stub.requests.count == 1)
    }

    @Test func theFileIsPrettyHAR12WithTheEndpoint() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }

        let _: Page = try await Cassette.local(folder.file(), recordingWith: pageStub()).activate(in: base) {
            try await Shop.$items.request(with: (page: 1, sort: "name"))
        }

        let text = try String(contentsOf: folder.file(), encoding: .utf8)
        let json = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let log = try #require(json["log"] as? [String: Any])
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(log["version"] as? String == "1.2")
        #expect(entries.count == 1)
        #expect(entries.first?["_endpoint"] as? String == "GET /items")
        #expect(text.contains("\n  \"log\" : {"))
    }

    @Test("startedDateTime has milliseconds, so calls a few milliseconds apart keep their order")
    func startedDateTimeHasFractionalSeconds() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }

        try await Cassette.local(folder.file(), recordingWith: pageStub()).activate(in: base) {
            for page in 1...3 { let _: Page = try await Shop.$items.request(with: (page: page, sort: "name")) }
        }

        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.file())) as? [String: Any]
        let entries = try #require((json?["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let started = entries.compactMap { $0["startedDateTime"] as? String }
        #expect(started.count == 3)
        for text in started {
            #expect(text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(text)")
        }
        let dates = started.compactMap(HAR.date(fromDateTime:))
        #expect(dates.count == 3 && dates == dates.sorted(), "\(started)")
        #expect(HAR.date(fromDateTime: "2026-11-27T03:39:59Z") != nil, "a file written without fractions still reads")
    }

    @Test("A cassette activated without a base URL fails before any I/O; a stub still builds on stub.invalid")
    func aCassetteWithoutABaseURLFailsBeforeAnyIO() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let recorder = StubExecutor().stubEverything(with: .json(#"{"page": 1, "names": []}"#))

        let error = await #expect(throws: APIError.self) {
            try await Cassette.local(folder.file(), recordingWith: recorder).activate(in: APIConfiguration()) {
                let _: Page = try await Shop.$items.request(with: (page: 1, sort: "name"))
            }
        }
        let page: Page = try await recorder.activate(in: APIConfiguration()) {
            try await Shop.$items.request(with: (page: 1, sort: "name"))
        }

        #expect(error?.reason == .invalidRequest(.missingBaseURL))
        #expect(recorder.requests.map(\.url.host) == ["stub.invalid"], "only the stub's own call was sent")
        #expect(page.page == 1)
    }

    @Test func noSecretIsWrittenAndReplayMatchesThroughTheMasks() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let secrets = ["s3cr3t-bearer-token", "query-api-key-123", "cookie-value-456", "hunter2-password", "sess-789"]
        let stub = StubExecutor().stub(where: { $0.endpoint.path == "/login" }) { request in
            let echoed = String(decoding: request.body.data ?? Data(), as: UTF8.self)
            return .json(
                #"{"access_token": "fresh-token-abc", "echo": \#(String(reflecting: echoed)), "ok": true}"#,
                headers: ["Set-Cookie": "session=sess-789; Path=/"])
        }
        var configuration = base
        configuration.plugins = [AuthPlugin.bearer(secrets[0]), AuthPlugin.apiKey(secrets[1], queryItem: "key")]
        configuration.headers = ["Cookie": "id=\(secrets[2])"]
        let parameter = ["user": "ada", "password": secrets[3]]

        let (recorded, replayed, bytes) = try await recordAndReplay(in: folder, configuration, with: stub) {
            try await Shop.$login.request(with: parameter)
        }

        for secret in secrets + ["fresh-token-abc"] {
            #expect(!bytes.contains(secret), "\(secret) was written")
        }
        #expect(recorded.statusCode == 200)
        #expect(replayed.statusCode == 200)
        #expect(replayed.headers[.setCookie] == "***")
        let body = try #require(JSONSerialization.jsonObject(with: replayed.data) as? [String: Any])
        #expect(body["access_token"] as? String == "***")
        #expect(body["ok"] as? Bool == true)
    }

    @Test func anUnmatchedRequestNamesTheClosestInteractionAndTheFirstDifference() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        try await Cassette.local(folder.file(), recordingWith: pageStub()).activate(in: base) {
            let _: Page = try await Shop.$items.request(with: (page: 2, sort: "name"))
            let _: Page = try await Shop.$items.request(with: (page: 5, sort: "date"))
        }

        let error = await #expect(throws: APIError.self) {
            try await Cassette.local(folder.file(), mode: .none, recordingWith: unreachable).activate(in: self.base) {
                let _: Page = try await Shop.$items.request(with: (page: 3, sort: "name"))
            }
        }

        let problem = try #require(error?.underlyingError as? Cassette.Problem)
        #expect(error?.reason == .other)
        #expect(problem.difference == "query `page`: 3 vs 2")
        #expect(problem.closestInteraction == "GET https://shop.example/api/items?page=2&sort=name")
        let message = String(describing: error)
        #expect(message.contains("query `page`: 3 vs 2"))
    }

    @Test func identicalRequestsReplayInRecordedOrderEachOnce() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let counter = LockedBox(0)
        let stub = StubExecutor().stub(where: { $0.endpoint.path == "/items/{id}" }) { _ in
            .text("call \(counter.withLock { $0 += 1; return $0 })")
        }
        try await Cassette.local(folder.file(), recordingWith: stub).activate(in: base) {
            for _ in 0..<2 { let _: String = try await Shop.$item.request(with: "x") }
        }

        let replay = Cassette.local(folder.file(), recordingWith: unreachable)
        let texts: [String] = try await replay.activate(in: base) {
            [try await Shop.$item.request(with: "x"), try await Shop.$item.request(with: "x")]
        }
        let third = await #expect(throws: APIError.self) {
            try await replay.activate(in: self.base) { let _: String = try await Shop.$item.request(with: "x") }
        }

        #expect(texts == ["call 1", "call 2"])
        let message = String(describing: third?.underlyingError)
        #expect(message.contains("already replayed"))
    }

    @Test func noneModeWithoutAFileFailsWithoutCallingTheNetwork() async throws {
        let folder = CassetteFolder()
        let error = await #expect(throws: APIError.self) {
            try await Cassette.local(folder.file(), mode: .none, recordingWith: unreachable).activate(in: self.base) {
                let _: String = try await Shop.$item.request(with: "x")
            }
        }
        let message = String(describing: error?.underlyingError)
        #expect(message.contains("no cassette at"))
        #expect(!FileManager.default.fileExists(atPath: folder.file().path))
    }
}

@MainActor
enum Vault {
    @POST("/vault/{token}/items", encoding: .form)
    static var store: APIParameterBuilder<(token: String, pin: String, note: String)>? = .init {
        ["token": $0.token, "client_secret": $0.pin, "note": $0.note]
    }
}

extension CassetteTests {
    @Test func userInfoFormFieldsKeyHeadersAndSecretPathValuesAreMasked() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let secrets = ["user-info-pass", "path-token-777", "form-secret-888", "header-key-999"]
        let stub = StubExecutor().stub(where: { _ in true }) { request in
            StubResponse(statusCode: 201, body: request.body.data ?? Data())
        }
        var configuration = APIConfiguration(baseURL: URL(string: "https://ada:\(secrets[0])@vault.example"))
        configuration.plugins = [AuthPlugin.apiKey(secrets[3], header: "X-Vault-Key")]
        let parameter = (token: secrets[1], pin: secrets[2], note: "groceries")

        let (recorded, replayed, bytes) = try await recordAndReplay(in: folder, configuration, with: stub) {
            try await Vault.$store.request(with: parameter)
        }

        for secret in secrets {
            #expect(!bytes.contains(secret), "\(secret) was written")
        }
        #expect(bytes.contains("groceries"))
        #expect(recorded.statusCode == 201)
        #expect(replayed.statusCode == 201)
        #expect(String(decoding: replayed.data, as: UTF8.self).contains("note=groceries"))
    }
}
