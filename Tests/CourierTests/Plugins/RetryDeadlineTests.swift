import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The call's timeout is one deadline for every attempt, wait and refresh (APIRequest+Deadline.swift), with stubs:
/// counts of attempts, the reasons, and what each attempt's executor is given. Against real servers on both
/// executors: `RetryDeadlineIntegrationTests` and the AsyncHTTPClient package's `RetryDeadlineTests`.
@Suite struct RetryDeadlineTests {
    /// What a stub answers on every attempt, in a table of cases.
    enum Answer: Sendable, CustomTestStringConvertible {
        case status503RetryAfter(String)
        case status503
        case connectionLost

        var testDescription: String {
            switch self {
            case .status503RetryAfter(let value): "503, Retry-After: \(value)"
            case .status503: "503 without Retry-After"
            case .connectionLost: "connection lost"
            }
        }

        var stub: StubResponse {
            switch self {
            case .status503RetryAfter(let value): StubResponse(statusCode: 503, headers: ["Retry-After": value])
            case .status503: StubResponse(statusCode: 503)
            case .connectionLost: .error(URLError(.networkConnectionLost))
            }
        }
    }

    /// How the call ended: its reason, and what it carries of the last attempt.
    struct Ending: Sendable, Equatable {
        var reason: APIError.Reason
        var attempts: Int
        /// The status of the response the error carries, if any.
        var status: Int?
        /// The reason of the underlying `APIError` (the last attempt's failure), if any.
        var underlying: APIError.Reason?
    }

    static func configuration(_ stub: StubExecutor, timeout: Duration, plugins: [any APIPlugin]) -> APIConfiguration {
        testConfiguration.with {
            $0.executor = stub
            $0.timeout = timeout
            $0.plugins = plugins
        }
    }

    /// Waits ten minutes before a retry: far past every timeout below, so a retry after it can never start in time,
    /// and a call that waited for it would outlast any load a test run meets.
    static let slowBackoff = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(600), maxDelay: .seconds(600), jitter: 0)

    @Test(
        "A retry whose wait reaches the deadline is not started: the call times out at once, the response attached",
        arguments: [
            (Answer.status503RetryAfter("600"), Ending(reason: .transport(.timedOut), attempts: 1, status: 503)),
            (.status503, Ending(reason: .transport(.timedOut), attempts: 1, status: 503)),
            (
                .connectionLost,
                Ending(reason: .transport(.timedOut), attempts: 1, underlying: .transport(.connectionLost))
            ),
        ])
    func retryPastTheDeadlineIsNotStarted(answer: Answer, expected: Ending) async throws {
        // GIVEN a 1 s timeout, a server that fails every attempt and a wait of 600 s before each retry
        let stub = StubExecutor().stubEverything(with: answer.stub)
        let configuration = Self.configuration(stub, timeout: .seconds(1), plugins: [.retry(Self.slowBackoff)])

        // WHEN the call is made (cancelled after 30 s, so a call that waits fails instead of hanging the run)
        let (outcome, _) = await bounded(within: .seconds(30)) { () async throws(APIError) -> Data in
            try await GET<Void>("/x").request(using: configuration)
        }

        // THEN it ends after one attempt without waiting, the last attempt's failure attached
        let error = try #require(outcome.error, "\(outcome)")
        let ending = Ending(
            reason: error.reason, attempts: stub.requests.count, status: error.statusCode,
            underlying: (error.underlyingError as? APIError)?.reason)
        #expect(ending == expected)
    }

    @Test("A 503 whose Retry-After is past the deadline keeps the header for the caller")
    func retryAfterPastTheDeadlineKeepsTheHeader() async throws {
        let stub = StubExecutor().stubEverything(with: Answer.status503RetryAfter("5").stub)
        let configuration = Self.configuration(stub, timeout: .seconds(1), plugins: [.retry()])

        let error = try await #require(throws: APIError.self) {
            try await GET<Void>("/x").request(using: configuration)
        }

        #expect(error.response?.headers[.retryAfter] == "5")
        #expect(stub.requests.count == 1)
    }

    @Test("Waits that fit in the deadline still happen, and each attempt is given only what is left")
    func attemptsShareOneDeadline() async throws {
        // GIVEN a 10 s timeout and a server asking for 0.2 s between attempts
        let stub = StubExecutor().stubEverything(with: Answer.status503RetryAfter("0.2").stub)
        let configuration = Self.configuration(stub, timeout: .seconds(10), plugins: [.retry()])

        // WHEN the call is made
        await #expect(throws: APIError.self) { try await GET<Void>("/x").request(using: configuration) }

        // THEN all three attempts ran, each given the call's deadline less what the ones before and the waits took
        let timeouts = stub.requests.map(\.timeout)
        #expect(timeouts.count == 3)
        #expect(timeouts.allSatisfy { $0 <= .seconds(10) })
        for (earlier, later) in zip(timeouts, timeouts.dropFirst()) {
            #expect(later <= earlier - .milliseconds(200), "\(timeouts)")
        }
    }

    /// A plugin that takes `delay` before passing the request on.
    struct Slow: APIPlugin {
        let delay: Duration
        func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
            try await Task.sleep(for: delay)
            return try await next(request)
        }
    }

    /// A plugin that sets the request's timeout.
    struct SetsTimeout: APIPlugin {
        let timeout: Duration
        func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
            var request = request
            request.timeout = timeout
            return try await next(request)
        }
    }

    @Test("An attempt with nothing left of the deadline is not sent: the call times out before any I/O")
    func noAttemptAfterTheDeadline() async throws {
        // GIVEN a plugin that uses up the whole 0.2 s timeout before the executor
        let stub = StubExecutor().stubEverything(with: StubResponse(statusCode: 200))
        let configuration = Self.configuration(
            stub, timeout: .milliseconds(200), plugins: [Slow(delay: .milliseconds(300))])

        // WHEN the call is made
        let error = try await #require(throws: APIError.self) {
            try await GET<Void>("/x").request(using: configuration)
        }

        // THEN it times out, and the executor never saw the request
        #expect(error.reason == .transport(.timedOut))
        #expect(stub.requests.isEmpty)
    }

    @Test("A plugin that sets the timeout sets the deadline of the whole call")
    func aPluginMovesTheDeadline() async throws {
        let stub = StubExecutor().stubEverything(with: StubResponse(statusCode: 200))
        let configuration = Self.configuration(
            stub, timeout: .seconds(1), plugins: [SetsTimeout(timeout: .seconds(120)), .retry()])

        try await GET<Void>("/x").request(using: configuration)

        let timeout = try #require(stub.requests.first?.timeout)
        #expect(timeout > .seconds(60) && timeout <= .seconds(120))
    }

    @Test("The response's request keeps the call's timeout, not what was left of it for the attempt")
    func theResponseKeepsTheCallsTimeout() async throws {
        let stub = StubExecutor().stubEverything(with: StubResponse(statusCode: 200))
        let configuration = Self.configuration(stub, timeout: .seconds(7), plugins: [.retry()])

        let response: APIResponse = try await GET<Void>("/x").request(using: configuration)

        #expect(response.request.timeout == .seconds(7))
        #expect(try #require(stub.requests.first?.timeout) < .seconds(7))
    }

    @Test("Without plugins the executor is given the timeout itself")
    func withoutPluginsTheTimeoutIsTheExecutors() async throws {
        let stub = StubExecutor().stubEverything(with: StubResponse(statusCode: 200))
        let configuration = Self.configuration(stub, timeout: .seconds(7), plugins: [])

        try await GET<Void>("/x").request(using: configuration)

        #expect(stub.requests.map(\.timeout) == [.seconds(7)])
    }

    @Test("A refresh that outlasts the deadline ends the call with .timedOut, without a second attempt")
    func refreshWithinTheDeadline() async throws {
        // GIVEN a server that rejects the credential and a refresh that takes 60 s, under a 0.5 s timeout
        let stub = StubExecutor().stubEverything(with: StubResponse(statusCode: 401))
        let refreshEnded = LockedBox(false)
        let auth = RefreshingAuthPlugin<String>(
            credential: { "old" },
            refresh: { _ in
                try await Task.sleep(for: .seconds(60))
                refreshEnded.withLock { $0 = true }
                return "new"
            },
            apply: { token, request in request.headers[.authorization] = "Bearer \(token)" })
        let configuration = Self.configuration(stub, timeout: .milliseconds(500), plugins: [auth])

        // WHEN the call is made
        let error = try await #require(throws: APIError.self) {
            try await GET<Void>("/x").request(using: configuration)
        }

        // THEN it stops waiting for the refresh at its deadline: it ends while the refresh still runs
        #expect(error.reason == .transport(.timedOut))
        #expect(!refreshEnded.value)
        #expect(stub.requests.count == 1)
    }

    @Test("A call that starts while a refresh runs waits for it only until its own deadline")
    func joiningARefreshWithinTheDeadline() async throws {
        // GIVEN a refresh that runs until the test lets it end, started by a call with a long timeout
        let (started, refreshStarted) = AsyncStream<Void>.makeStream()
        // (it ends after 60 s anyway, so that a call that waits for it past its deadline fails, not hangs)
        let refreshEnds = Gate()
        let token = LockedBox("old")
        let stub = StubExecutor().stub(where: { _ in true }) { request in
            StubResponse(statusCode: request.headers[.authorization] == "Bearer new" ? 200 : 401)
        }
        let auth = RefreshingAuthPlugin<String>(
            credential: { token.value },
            refresh: { _ in
                refreshStarted.yield()
                await refreshEnds.wait()
                token.withLock { $0 = "new" }
                return "new"
            },
            apply: { token, request in request.headers[.authorization] = "Bearer \(token)" })
        let patient = Self.configuration(stub, timeout: .seconds(30), plugins: [auth])
        let first = Task { try await GET<Void>("/x").request(using: patient) }
        var refreshing = started.makeAsyncIterator()
        _ = await refreshing.next()

        // WHEN a call with a 0.3 s timeout starts while the refresh runs
        let hasty = Self.configuration(stub, timeout: .milliseconds(300), plugins: [auth])
        let error = try await #require(throws: APIError.self) { try await GET<Void>("/x").request(using: hasty) }
        let endedWhileTheRefreshRan = !refreshEnds.openedOnItsOwn
        refreshEnds.open()
        _ = try await first.value

        // THEN it times out without sending anything, before the refresh ends, and the refresh ran on for the first
        #expect(error.reason == .transport(.timedOut))
        #expect(endedWhileTheRefreshRan)
        #expect(stub.requests.map { $0.headers[.authorization] } == ["Bearer old", "Bearer new"])
    }
}
