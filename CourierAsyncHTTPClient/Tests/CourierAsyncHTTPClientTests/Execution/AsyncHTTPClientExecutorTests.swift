import AsyncHTTPClient
@_spi(CourierInternals) import Courier
import CourierTesting
import Foundation
import InMemoryTracing
import Testing
import Tracing

@testable import CourierAsyncHTTPClient

/// What `AsyncHTTPClientExecutor` does beyond the conformance suite: the exact reasons of broken servers, a
/// client that follows redirects itself, calls through the whole Courier pipeline, and the redirect hop rules.
@Suite("AsyncHTTPClientExecutor", .servers)
struct AsyncHTTPClientExecutorTests {
    struct Slideshow: Decodable, Equatable {
        struct Show: Decodable, Equatable {
            var author: String
            var title: String
        }

        var slideshow: Show
    }

    static func configuration(_ base: URL, executor: any APIExecutor = AsyncHTTPClientExecutor()) -> APIConfiguration {
        APIConfiguration(baseURL: base, executor: executor)
    }

    @Test("A call through Courier decodes the model from a real server")
    func decodesModel() async throws {
        let configuration = Self.configuration(try Servers.required().httpbin)

        let model: Slideshow = try await GET<Void>("/json").request(using: configuration)

        #expect(model.slideshow.author == "Yours Truly")
    }

    @Test(
        "A refused connection is .cannotConnect, and its text says so with balanced parentheses",
        arguments: CookieTests.Executor.allCases)
    func refusedConnectionText(_ executorKind: CookieTests.Executor) async throws {
        // GIVEN a port nothing listens on (port 1 of loopback: refused at once)
        let refused = APIConfiguration(baseURL: URL(string: "http://127.0.0.1:1"), executor: executorKind.make().0)

        // WHEN a call goes there
        let error = await #expect(throws: APIError.self) { try await GET<Void>("/get").request(using: refused) as Data }

        // THEN it cannot connect, and every parenthesis of its description is closed once, after it was opened
        #expect(error?.reason == .transport(.cannotConnect))
        let text = String(describing: try #require(error))
        var depth = 0
        var lowest = 0
        for character in text where character == "(" || character == ")" {
            depth += character == "(" ? 1 : -1
            lowest = min(lowest, depth)
        }
        #expect(depth == 0 && lowest == 0, "\(text)")
        if executorKind == .asyncHTTPClient {
            #expect(text.contains("could not connect to the server (connection refused, errno "), "\(text)")
        }
    }

    @Test("clientConfiguration drops a no-op tracer (its spans record nothing) but keeps a real one")
    func clientConfigurationTracer() {
        var noOp = HTTPClient.Configuration()
        noOp.tracing.tracer = NoOpTracer()
        #expect(AsyncHTTPClientExecutor.clientConfiguration(noOp).tracing.tracer == nil)

        var real = HTTPClient.Configuration()
        real.tracing.tracer = InMemoryTracer()
        #expect(AsyncHTTPClientExecutor.clientConfiguration(real).tracing.tracer is InMemoryTracer)
    }

    @Test("The shared client keeps up to 32 connections per host (AsyncHTTPClient's default is 8), redirects off")
    func sharedClientPool() {
        // The configuration the shared client was made with; AsyncHTTPClient keeps the redirect mode internal, which
        // this test (never the executor) reads by reflection.
        let settings = AsyncHTTPClientExecutor.sharedSettings
        #expect(settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit == 32)
        let mode = Mirror(reflecting: settings.redirectConfiguration).descendant("mode")
        #expect(mode.map { "\($0)" } == "disallow")
        // A client of one's own made from clientConfiguration(_:) keeps the pool it was given.
        let given = HTTPClient.Configuration.singletonConfiguration.connectionPool
        let made = AsyncHTTPClientExecutor.clientConfiguration().connectionPool
        #expect(made.concurrentHTTP1ConnectionsPerHostSoftLimit == given.concurrentHTTP1ConnectionsPerHostSoftLimit)
    }

    @Test("A bare status line, then close, is .connectionLost; a garbage status line is a transport error")
    func brokenStatusLines() async throws {
        let configuration = Self.configuration(try Servers.required().faultServer)

        let bare = await #expect(throws: APIError.self) {
            try await GET<Void>("/bare-status").request(using: configuration) as Data
        }
        let garbage = await #expect(throws: APIError.self) {
            try await GET<Void>("/garbage-status").request(using: configuration) as Data
        }

        #expect(bare?.reason == .transport(.connectionLost), "\(String(describing: bare))")
        #expect(bare?.underlyingError != nil)
        #expect(garbage?.reason.transportProblem != nil, "garbage status: \(String(describing: garbage))")
    }

    @Test("A body cut short of its Content-Length is .connectionLost")
    func truncated() async throws {
        let configuration = Self.configuration(try Servers.required().faultServer)

        let error = await #expect(throws: APIError.self) {
            try await GET<Void>("/truncated").request(using: configuration) as Data
        }

        #expect(error?.reason == .transport(.connectionLost), "\(String(describing: error))")
    }

    struct Hits: Decodable {
        var hits: Int
    }

    @Test(
        "An executor made from a configuration that follows redirects does not: with .doNotFollow the redirect is the response, and the other origin gets no request"
    )
    func configurationFollowingRedirects() async throws {
        // GIVEN a configuration that follows redirects, and an endpoint on origin A that redirects to origin B
        let servers = try Servers.required()
        var settings = HTTPClient.Configuration.singletonConfiguration
        settings.redirectConfiguration = .follow(max: 5, allowCycles: false)
        let executor = AsyncHTTPClientExecutor(configuration: settings, cookies: nil)
        let key = "leak-\(UUID().uuidString)"
        let target = servers.faultServerOtherHost.appendingPathComponent("count").absoluteString + "?key=\(key)"
        let redirect = GET<String>("/redirect", acceptableStatusCodes: .any, redirectPolicy: .doNotFollow) {
            ["to": $0]
        }

        // WHEN the endpoint is called through an executor made from it
        let configuration = APIConfiguration(baseURL: servers.faultServer, executor: executor)
        let response: APIResponse = try await redirect.request(with: target, using: configuration)
        try await executor.client.shutdown()

        // THEN the redirect is the response, and origin B never received a request
        #expect((300..<400).contains(response.statusCode), "\(response.statusCode)")
        let stats = Self.configuration(servers.faultServerOtherHost)
        let hits: Hits = try await GET<String>("/count-stats") { ["key": $0] }.request(with: key, using: stats)
        #expect(hits.hits == 0)
    }

    /// The clients the deprecated initializer is handed, each with whether it follows redirects.
    enum HandedClient: String, CaseIterable, Sendable {
        /// AsyncHTTPClient's process-wide client: it follows redirects.
        case httpClientShared
        /// A client made from AsyncHTTPClient's default configuration, which follows redirects (what code written
        /// against 1.0 hands over).
        case defaultConfiguration
        /// A client made from the executor's own settings: redirects off, but nothing public shows it.
        case executorSettings

        func make() -> HTTPClient {
            switch self {
            case .httpClientShared: HTTPClient.shared
            case .defaultConfiguration:
                HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init())
            case .executorSettings:
                HTTPClient(
                    eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                    configuration: AsyncHTTPClientExecutor.clientConfiguration())
            }
        }
    }

    @Test(
        "The deprecated initializer refuses every client whose configuration it cannot see, before any request",
        arguments: HandedClient.allCases)
    @available(*, deprecated, message: "tests the deprecated init(client:cookies:)")
    func clientsRefused(_ handed: HandedClient) async throws {
        // GIVEN a client made elsewhere
        let client = handed.make()

        // WHEN an executor is made over it, THEN it is refused with the error that says why and what to use
        let error = #expect(throws: ClientFollowsRedirects.self) { try AsyncHTTPClientExecutor(client: client) }
        #expect(error?.description.contains("AsyncHTTPClientExecutor(configuration:") == true)
        if handed != .httpClientShared { try await client.shutdown() }
    }

    @Test("The deprecated initializer takes the shared client, and a redirect to another host carries no credential")
    @available(*, deprecated, message: "tests the deprecated init(client:cookies:)")
    func sharedClientTaken() async throws {
        // GIVEN an executor over the shared client, the one client whose configuration the executor knows
        let servers = try Servers.required()
        let executor = try AsyncHTTPClientExecutor(client: AsyncHTTPClientExecutor.sharedClient, cookies: nil)

        // WHEN a call with credentials is redirected to another host, THEN that host's own record shows none of them
        let suite = ExecutorConformance(executor: executor, servers: servers)
        let failures = await suite.run(.redirectCredentialsRemoved)
        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
    }

    @Test("A short deadline after long ones fires on time (one timer serves every call)")
    func shortDeadlineAfterLongOnes() async throws {
        let configuration = Self.configuration(try Servers.required().faultServer)
        let long = Task {
            try await GET<Void>("/slow-headers?delay=10", timeout: .seconds(30)).request(using: configuration) as Data
        }
        try await Task.sleep(for: .milliseconds(200))
        let start = ContinuousClock.now

        let error = await #expect(throws: APIError.self) {
            try await GET<Void>("/slow-headers?delay=10", timeout: .milliseconds(500)).request(using: configuration)
                as Data
        }
        let elapsed = ContinuousClock.now - start
        long.cancel()

        #expect(error?.reason == .transport(.timedOut))
        #expect(elapsed < .seconds(6), "took \(elapsed)")
        switch await long.result {
        case .failure(let error as APIError): #expect(error.reason == .transport(.cancelled))
        case let other: Issue.record("the long call ended with \(other)")
        }
    }

    @Test("A HEAD whose Content-Length is over the limit is a response, not .responseTooLarge")
    func headOverLimit() async throws {
        let configuration = Self.configuration(try Servers.required().httpbin).with { $0.maxResponseBytes = 1000 }

        let response = try await HEAD<Void>("/bytes/5000").request(using: configuration) as APIResponse

        #expect(response.statusCode == 200)
        #expect(response.headers[.contentLength] == "5000")
        #expect(response.data.isEmpty)
    }

    @Test("A timeout too long for a clock still works")
    func hugeTimeout() async throws {
        let configuration = Self.configuration(try Servers.required().httpbin)
        let endpoint = GET<Void>("/get", timeout: .seconds(Int64.max))

        let response = try await endpoint.request(using: configuration) as APIResponse

        #expect(response.statusCode == 200)
    }
}
