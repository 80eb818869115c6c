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
        #expect(entries.first?.message.contains("X-Request: r1") == true)
        #expect(entries.first?.message.contains("Authorization: ***") == true)
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
