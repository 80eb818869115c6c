import Courier
import Foundation
import Testing

/// Counts the requests that reach the real server and when they were sent.
final class CountingExecutor: APIExecutor {
    let sent = LockedBox<[ContinuousClock.Instant]>([])
    let wrapped: any APIExecutor

    init(_ wrapped: any APIExecutor = URLSessionExecutor.shared) {
        self.wrapped = wrapped
    }

    var count: Int { sent.value.count }

    func execute(_ request: APIRequest) async throws -> APIResponse {
        sent.withLock { $0.append(.now) }
        return try await wrapped.execute(request)
    }
}

@Suite(.httpbin) struct PluginIntegrationTests {
    struct Authenticated: Decodable, Sendable {
        let authenticated: Bool
        let token: String?
        let user: String?
    }

    struct Echo: Decodable, Sendable {
        let args: [String: String]
        let headers: [String: String]
    }

    static let bearer = GET<Void>("/bearer")
    static let basic = GET<(user: String, password: String)>(
        wrappedValue: .init { ["user": $0.user, "password": $0.password] },
        "/basic-auth/{user}/{password}"
    )
    static let anything = GET<Void>("/anything")
    static let unavailableGet = GET<Void>("/status/503")
    static let unavailablePost = POST<Void>("/status/503")

    func configuration(
        _ plugins: [any APIPlugin], executor: any APIExecutor = URLSessionExecutor.shared
    ) throws
        -> APIConfiguration
    {
        var configuration = try HTTPBin.configuration(executor: executor)
        configuration.plugins = plugins
        return configuration
    }

    @Test func bearerWithAndWithoutAToken() async throws {
        let granted: Authenticated = try await Self.bearer.request(using: configuration([.bearer("t0k3n")]))
        #expect(granted.authenticated && granted.token == "t0k3n")
        let error = try await #require(throws: APIError.self) {
            try await Self.bearer.request(using: configuration([]))
        }
        #expect(error.reason == .unacceptableStatus(.unauthorized))
    }

    @Test func basicAuth() async throws {
        let credentials = (user: "ann", password: "pa55")
        let ok: Authenticated = try await Self.basic.request(
            with: credentials,
            using: configuration([.basicAuth(username: "ann", password: "pa55")])
        )
        #expect(ok.authenticated && ok.user == "ann")
        let error = try await #require(throws: APIError.self) {
            try await Self.basic.request(
                with: credentials, using: configuration([.basicAuth(username: "ann", password: "no")]))
        }
        #expect(error.reason == .unacceptableStatus(.unauthorized))
    }

    @Test func apiKeyInAHeaderAndInTheQuery() async throws {
        let header: Echo = try await Self.anything.request(using: configuration([.apiKey("k-1", header: "X-Api-Key")]))
        #expect(header.headers["X-Api-Key"] == "k-1")
        let query: Echo = try await Self.anything.request(using: configuration([.apiKey("k 2&", queryItem: "api_key")]))
        #expect(query.args == ["api_key": "k 2&"])
    }

    @Test func getIsRetriedTheConfiguredNumberOfTimesAndPostIsNot() async throws {
        // GIVEN a retry policy of 3 attempts with short waits, and a counter in front of the real server
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), jitter: 0)
        let getCounter = CountingExecutor()
        let postCounter = CountingExecutor()
        // WHEN a GET and a POST both meet 503
        let getError = try await #require(throws: APIError.self) {
            try await Self.unavailableGet.request(using: configuration([.retry(policy)], executor: getCounter))
        }
        let postError = try await #require(throws: APIError.self) {
            try await Self.unavailablePost.request(using: configuration([.retry(policy)], executor: postCounter))
        }
        // THEN the GET reached the server 3 times and the POST once
        #expect(getCounter.count == 3)
        #expect(postCounter.count == 1)
        #expect(getError.reason == .unacceptableStatus(.serverError))
        #expect(postError.statusCode == 503)
    }

    @Test func retryAfterFromTheServerSetsTheGap() async throws {
        // GIVEN an endpoint whose policy retries once after a 200, so that httpbin's Retry-After header is read
        let policy = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1), jitter: 0, statusCodes: [200])
        let endpoint = GET<Void>(wrappedValue: .init { ["Retry-After": "1"] }, "/response-headers")
        let counter = CountingExecutor()
        // WHEN it is called
        try await endpoint.request(using: configuration([.retry(policy)], executor: counter))
        // THEN the second attempt left no sooner than one second after the first (not after the 1 ms backoff), and
        // not after the 30 s cap either (a generous bound: a loaded machine delays a wake-up by seconds)
        let times = counter.sent.value
        try #require(times.count == 2)
        let gap = times[1] - times[0]
        #expect(gap >= .milliseconds(950))
        #expect(gap < .seconds(10))
    }

    @Test func cancellingDuringABackoffWaitReturnsPromptly() async throws {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: .seconds(60), maxDelay: .seconds(60), jitter: 0)
        let counter = CountingExecutor()
        // A timeout longer than the backoff: a retry past the call's deadline would not be waited for at all.
        let configuration = try configuration([.retry(policy)], executor: counter).with { $0.timeout = .seconds(120) }
        let task = Task { try await Self.unavailableGet.request(using: configuration) }
        while counter.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(200))
        let start = ContinuousClock.now
        task.cancel()
        let error = try await #require(throws: APIError.self) { try await task.value }
        // Long before the 60 s backoff (a generous bound for a loaded machine).
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(error.reason == .transport(.cancelled))
        #expect(counter.count == 1)
    }

    @Test func loggerPrintsRealTrafficWithoutSecrets() async throws {
        let lines = LockedBox<[String]>([])
        let logging = LoggingPlugin.logging(.init(includeHeaders: true, includeCURL: true)) { line in
            lines.withLock { $0.append(line) }
        }
        let _: Echo = try await Self.anything.request(
            using: configuration([.apiKey("query-secret", queryItem: "api_key"), .bearer("header-secret"), logging])
        )
        let output = lines.value.joined(separator: "\n")
        #expect(output.contains("← 200 GET "))
        #expect(!output.contains("query-secret"))
        #expect(!output.contains("header-secret"))
    }
}
