import Courier
import CourierObservability
import CourierTesting
import Foundation
import Logging
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `SwiftLogPlugin`: Courier's log lines on a swift-log `Logger`, with levels by outcome, the call's metadata,
/// and secrets redacted. The chain below the plugin is a `StubExecutor` (this is logic above the executor),
/// except for the last test, a real call through `URLSessionExecutor`.
@Suite("SwiftLogPlugin")
struct SwiftLogPluginTests {
    static let user = GET<String>("/users/{login}") { ["login": $0] }

    static func configuration(_ executor: any APIExecutor, _ plugin: SwiftLogPlugin) throws -> APIConfiguration {
        APIConfiguration(baseURL: URL(string: "https://api.example.com"), executor: executor, plugins: [plugin])
    }

    @Test("A call logs the request at debug and the response at info, with the call's metadata")
    func success() async throws {
        let (logger, store) = RecordingLogHandler.logger()
        let configuration = try Self.configuration(
            StubExecutor().stubEverything(with: .json(#"{"login":"octocat"}"#)), .swiftLog(logger))

        _ = try await Self.user.request(with: "octocat", using: configuration) as Data

        let entries = store.entries
        try #require(entries.count == 2)
        #expect(entries[0].level == .debug)
        #expect(entries[0].message == "→ GET https://api.example.com/users/octocat")
        #expect(entries[0].metadata["courier.endpoint"] == "GET /users/{login}")
        #expect(entries[0].metadata["http.request.method"] == "GET")
        #expect(entries[1].level == .info)
        #expect(entries[1].message.hasPrefix("← 200 GET https://api.example.com/users/octocat ("))
        #expect(entries[1].metadata["http.response.status_code"] == "200")
        #expect(entries[1].metadata["courier.duration_ms"] != nil)
    }

    @Test("A status of 400 and above is a warning; a failure without a response is an error with its reason")
    func levelsByOutcome() async throws {
        let (logger, store) = RecordingLogHandler.logger()
        let notFound = try Self.configuration(StubExecutor().stubEverything(with: .status(404)), .swiftLog(logger))
        let failing = try Self.configuration(
            StubExecutor().stubEverything(with: .error(URLError(.timedOut))), .swiftLog(logger))

        await #expect(throws: APIError.self) { try await Self.user.request(with: "nobody", using: notFound) as Data }
        await #expect(throws: APIError.self) { try await Self.user.request(with: "slow", using: failing) as Data }

        let outcomes = store.entries.filter { $0.level != .debug }
        try #require(outcomes.count == 2)
        #expect(outcomes[0].level == .warning)
        #expect(outcomes[0].metadata["http.response.status_code"] == "404")
        #expect(outcomes[1].level == .error)
        #expect(outcomes[1].message.hasPrefix("✗ GET https://api.example.com/users/slow"))
        #expect(outcomes[1].metadata["error.type"] == "\(APIError.Reason.transport(.timedOut))")
    }

    @Test("Secrets are redacted in messages, as LoggingPlugin redacts them, and never reach the metadata")
    func secretsRedacted() async throws {
        let (logger, store) = RecordingLogHandler.logger()
        let options = LoggingPlugin.Options(includeBodies: true, includeHeaders: true, includeCURL: true)
        let login = POST<String>("/login", headers: ["Authorization": "Bearer tok-3141", "X-Request": "r1"]) {
            ["password": $0, "user": "octocat"]
        }
        let executor = StubExecutor().stubEverything(with: .json(#"{"echo":"hunter2-secret","token":"tok-3141"}"#))
        let configuration = try Self.configuration(executor, .swiftLog(logger, options: options))

        _ = try await login.request(with: "hunter2-secret", using: configuration) as Data

        let entries = store.entries
        #expect(entries.count == 2)
        for entry in entries {
            let text = entry.message + entry.metadata.description
            #expect(!text.contains("tok-3141"), "\(entry.message)")
            #expect(!text.contains("hunter2-secret"), "\(entry.message)")
        }
        #expect(entries.first?.metadata["http.request.header.x-request"] == ["r1"])
        #expect(entries.first?.metadata["http.request.header.authorization"] == ["***"])
    }

    @Test("Every message is one line: headers, bodies, sizes and the cURL command are metadata")
    func oneLineMessages() async throws {
        let (logger, store) = RecordingLogHandler.logger()
        let options = LoggingPlugin.Options(includeBodies: true, includeHeaders: true, includeCURL: true)
        let create = POST<String>("/repos", headers: ["X-Request": "r1", "Accept": "application/json"]) {
            ["name": $0]
        }
        let executor = StubExecutor().stubEverything(
            with: .data(Data(#"{"id": 7}"#.utf8), status: 201, headers: ["Content-Type": "application/json"]))
        let configuration = try Self.configuration(executor, .swiftLog(logger, options: options))

        _ = try await create.request(with: "courier", using: configuration) as Data

        let entries = store.entries
        try #require(entries.count == 2)
        #expect(entries.allSatisfy { !$0.message.contains("\n") }, "\(entries.map(\.message))")
        #expect(entries[0].message == "→ POST https://api.example.com/repos")
        #expect(entries[0].metadata["http.request.header.x-request"] == ["r1"])
        #expect(entries[0].metadata["http.request.header.content-type"] == ["application/json"])
        #expect(entries[0].metadata["http.request.body.size"] == "18")
        #expect(entries[0].metadata["courier.request.body"]?.description.contains("courier") == true)
        let curl = try #require(entries[0].metadata["courier.curl"]?.description)
        #expect(curl.hasPrefix("curl -X POST 'https://api.example.com/repos'"), "\(curl)")
        #expect(entries[1].message.hasPrefix("← 201 POST https://api.example.com/repos ("))
        #expect(entries[1].metadata["http.response.header.content-type"] == ["application/json"])
        #expect(entries[1].metadata["http.response.body.size"] == "9")
        #expect(entries[1].metadata["courier.response.body"] == #"{"id":7}"#)
        #expect(entries[1].metadata["courier.curl"] == nil)
    }

    @Test("Without the options, no header, body or cURL metadata")
    func noOptionsNoExtraMetadata() async throws {
        let (logger, store) = RecordingLogHandler.logger()
        let configuration = try Self.configuration(
            StubExecutor().stubEverything(with: .json(#"{"login":"octocat"}"#)), .swiftLog(logger))

        _ = try await Self.user.request(with: "octocat", using: configuration) as Data

        let keys = Set(store.entries.flatMap { $0.metadata.keys })
        #expect(
            keys == [
                "courier.endpoint", "http.request.method", "courier.duration_ms", "http.response.status_code",
                "http.response.body.size",
            ])
    }

    @Test("A 200 from httpbin whose body does not decode is an error entry with the reason", .servers)
    func decodingFailure() async throws {
        struct Owner: Decodable {
            struct Show: Decodable { var owner: String }
            var slideshow: Show
        }
        let (logger, store) = RecordingLogHandler.logger(level: .info)
        let configuration = APIConfiguration(
            baseURL: try Servers.required().httpbin, executor: URLSessionExecutor.shared,
            plugins: [.swiftLog(logger)])

        await #expect(throws: APIError.self) {
            let _: Owner = try await GET<Void>("/json").request(using: configuration)
        }

        let entries = store.entries
        try #require(entries.count == 1, "\(entries.map(\.message))")
        #expect(entries[0].level == .error)
        #expect(entries[0].message.hasPrefix("✗ 200 GET "), "\(entries[0].message)")
        #expect(entries[0].message.contains("'owner' at slideshow"), "\(entries[0].message)")
        #expect(entries[0].metadata["error.type"] == "\(APIError.Reason.decodingFailed)")
        #expect(entries[0].metadata["http.response.status_code"] == "200")
    }

    @Test("Inside .tracing() (which records the timeline from where it runs) the outcome still waits for decoding")
    func decodingFailureUnderTracing() async throws {
        struct Model: Decodable { var id: Int }
        let (logger, store) = RecordingLogHandler.logger(level: .info)
        var configuration = try Self.configuration(
            StubExecutor().stubEverything(with: .json("[]")), .swiftLog(logger))
        configuration.plugins.insert(.tracing(), at: 0)

        await #expect(throws: APIError.self) { try await Self.user.request(with: "a", using: configuration) as Model }

        #expect(store.entries.map(\.level) == [.error])
        #expect(store.entries.first?.metadata["error.type"] == "\(APIError.Reason.decodingFailed)")
    }

    @Test("Levels of your own: each outcome at the level you choose")
    func customLevels() async throws {
        let (logger, store) = RecordingLogHandler.logger()
        let levels = SwiftLogPlugin.Levels(
            request: .trace, success: .notice, unacceptableStatus: .error, failure: .critical)
        let ok = try Self.configuration(
            StubExecutor().stubEverything(with: .json("{}")), .swiftLog(logger, levels: levels))
        let notFound = try Self.configuration(
            StubExecutor().stubEverything(with: .status(404)), .swiftLog(logger, levels: levels))
        let failing = try Self.configuration(
            StubExecutor().stubEverything(with: .error(URLError(.timedOut))), .swiftLog(logger, levels: levels))

        _ = try await Self.user.request(with: "a", using: ok) as Data
        _ = try? await Self.user.request(with: "b", using: notFound) as Data
        _ = try? await Self.user.request(with: "c", using: failing) as Data

        #expect(store.entries.map(\.level) == [.trace, .notice, .trace, .error, .trace, .critical])
    }

    @Test("At info a call is one entry: info, a warning for 4xx/5xx, an error with error.type for a failure")
    func infoLevel() async throws {
        let (logger, store) = RecordingLogHandler.logger(level: .info)
        let ok = try Self.configuration(StubExecutor().stubEverything(with: .json("{}")), .swiftLog(logger))
        let serverError = try Self.configuration(StubExecutor().stubEverything(with: .status(503)), .swiftLog(logger))
        let failing = try Self.configuration(
            StubExecutor().stubEverything(with: .error(URLError(.timedOut))), .swiftLog(logger))

        _ = try await Self.user.request(with: "octocat", using: ok) as Data
        await #expect(throws: APIError.self) { try await Self.user.request(with: "down", using: serverError) as Data }
        await #expect(throws: APIError.self) { try await Self.user.request(with: "slow", using: failing) as Data }

        let entries = store.entries
        #expect(entries.map(\.level) == [.info, .warning, .error])
        try #require(entries.count == 3)
        #expect(entries[0].message.hasPrefix("← 200 GET https://api.example.com/users/octocat ("))
        #expect(entries[1].metadata["http.response.status_code"] == "503")
        #expect(entries[2].metadata["error.type"] == "\(APIError.Reason.transport(.timedOut))")
    }

    @Test("At warning only 4xx/5xx responses and failures are logged")
    func warningLevel() async throws {
        let (logger, store) = RecordingLogHandler.logger(level: .warning)
        let ok = try Self.configuration(StubExecutor().stubEverything(with: .json("{}")), .swiftLog(logger))
        let notFound = try Self.configuration(StubExecutor().stubEverything(with: .status(404)), .swiftLog(logger))

        _ = try await Self.user.request(with: "octocat", using: ok) as Data
        await #expect(throws: APIError.self) { try await Self.user.request(with: "nobody", using: notFound) as Data }

        #expect(store.entries.map(\.level) == [.warning])
    }

    @Test("With the logger's level above every level used, nothing is formatted or logged")
    func quietLogger() async throws {
        let (logger, store) = RecordingLogHandler.logger(level: .critical)
        let configuration = try Self.configuration(StubExecutor().stubEverything(with: .json("{}")), .swiftLog(logger))

        _ = try await Self.user.request(with: "octocat", using: configuration) as Data

        #expect(store.entries.isEmpty)
    }

    @Test("A real call through URLSessionExecutor logs its request and response", .servers)
    func realCall() async throws {
        let (logger, store) = RecordingLogHandler.logger()
        let configuration = APIConfiguration(
            baseURL: try Servers.required().httpbin, executor: URLSessionExecutor.shared,
            plugins: [.swiftLog(logger)])

        _ = try await GET<Void>("/get?api_key=k-2718").request(using: configuration) as Data

        let entries = store.entries
        try #require(entries.count == 2)
        #expect(entries[1].metadata["http.response.status_code"] == "200")
        #expect(entries.allSatisfy { $0.message.contains("api_key=***") && !$0.message.contains("k-2718") })
    }
}
