import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite struct RetryPluginTests {
    static let fast = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), jitter: 0)

    /// An executor answering with the given statuses in turn (the last one repeats).
    func sequence(_ statuses: [Int], headers: HTTPHeaders = [:]) -> StubExecutor {
        let index = LockedBox(0)
        return StubExecutor().stub(where: { _ in true }) { request in
            let status = index.withLock { i in
                defer { i += 1 }
                return statuses[min(i, statuses.count - 1)]
            }
            return StubResponse(statusCode: status, headers: headers)
        }
    }

    func configuration(_ stub: StubExecutor, policy: RetryPolicy = fast) -> APIConfiguration {
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [.retry(policy)]
        return configuration
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func retryableStatusesAreRetriedForGet(status: Int) async throws {
        let stub = sequence([status, status, 200])
        try await GET<Void>("/x").request(using: configuration(stub))
        #expect(stub.requests.count == 3)
    }

    @Test func givesUpAfterMaxAttemptsWithTheLastResponse() async throws {
        let stub = sequence([503])
        let error = try await #require(throws: APIError.self) {
            try await GET<Void>("/x").request(using: configuration(stub))
        }
        #expect(error.reason == .unacceptableStatus(.serverError))
        #expect(stub.requests.count == 3)
    }

    @Test func postIsNotRetriedByDefault() async throws {
        let stub = sequence([503, 200])
        await #expect(throws: APIError.self) { try await POST<Void>("/x").request(using: configuration(stub)) }
        #expect(stub.requests.count == 1)
    }

    @Test(arguments: [HTTPMethod.get, .head, .put, .delete, .options, "TRACE"])
    func idempotentMethodsAreRetried(method: HTTPMethod) {
        #expect(RetryPolicy().methods.contains(method))
        #expect(!RetryPolicy().methods.contains(.post))
        #expect(!RetryPolicy().methods.contains(.patch))
    }

    @Test func otherStatusesAreNotRetried() async throws {
        let stub = sequence([404, 200])
        await #expect(throws: APIError.self) { try await GET<Void>("/x").request(using: configuration(stub)) }
        #expect(stub.requests.count == 1)
    }

    @Test func transientTransportFailuresAreRetried() async throws {
        let attempts = LockedBox(0)
        let stub = StubExecutor().stub(where: { _ in true }) { request in
            let attempt = attempts.withLock { a in
                a += 1
                return a
            }
            if attempt == 1 { throw URLError(.timedOut) }
            if attempt == 2 { throw URLError(.networkConnectionLost) }
            return StubResponse(statusCode: 200)
        }
        try await GET<Void>("/x").request(using: configuration(stub))
        #expect(stub.requests.count == 3)
    }

    @Test func otherTransportFailuresAreNot() async throws {
        let stub = StubExecutor().stubEverything(with: .error(URLError(.badServerResponse)))
        await #expect(throws: APIError.self) { try await GET<Void>("/x").request(using: configuration(stub)) }
        #expect(stub.requests.count == 1)
    }

    @Test func anEndpointTagOverridesThePolicy() async throws {
        let never = sequence([503, 200])
        await #expect(throws: APIError.self) {
            try await GET<Void>("/x", tags: [.retryPolicy(.never)]).request(using: configuration(never))
        }
        #expect(never.requests.count == 1)

        let posts = sequence([503, 503, 503, 200])
        let custom = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(1), methods: [.post])
        try await POST<Void>("/x", tags: [.retryPolicy(custom)]).request(using: configuration(posts))
        #expect(posts.requests.count == 4)
    }

    @Test func retryAfterSecondsSetsTheWait() async throws {
        let stub = sequence([429, 200], headers: ["Retry-After": "0.2"])
        let start = ContinuousClock.now
        try await GET<Void>("/x").request(using: configuration(stub))
        #expect(ContinuousClock.now - start >= .milliseconds(190))
        #expect(stub.requests.count == 2)
    }

    @Test(arguments: [
        ("3", Duration.seconds(3)),
        ("0", .zero),
        ("120", .seconds(30)),
        ("Sun, 06 Nov 1994 08:49:42 GMT", .seconds(5)),
        ("Sun, 06 Nov 1994 08:49:30 GMT", .zero),
    ])
    func retryAfterParsing(value: String, expected: Duration) {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryPolicy().delay(retryAfter: value, now: now) == expected)
    }

    @Test func unparsableRetryAfterFallsBackToBackoff() {
        #expect(RetryPolicy().delay(retryAfter: "soon") == nil)
    }

    @Test func backoffDoublesWithinTheJitterAndIsCapped() {
        let policy = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .milliseconds(350), jitter: 0.2)
        for _ in 0..<50 {
            let first = policy.backoff(beforeRetry: 1)
            let second = policy.backoff(beforeRetry: 2)
            #expect(first >= .milliseconds(80) && first <= .milliseconds(120))
            #expect(second >= .milliseconds(160) && second <= .milliseconds(240))
            #expect(policy.backoff(beforeRetry: 5) == .milliseconds(350))
        }
    }

    @Test(
        "A Retry-After of any size from the server is capped, never a crash",
        arguments: ["1e300", "9.3e18", "99999999999999999999", "1e16"])
    func hugeRetryAfterIsCapped(value: String) {
        let policy = RetryPolicy(maxAttempts: 3)
        #expect(policy.delay(retryAfter: value) == policy.maxDelay)
    }

    @Test func cancellingDuringABackoffWaitReturnsPromptly() async throws {
        // GIVEN a server that asks to wait a long time before retrying
        let (attempts, attempted) = AsyncStream<Void>.makeStream()
        let stub = StubExecutor().stub(where: { _ in true }) { request in
            attempted.yield()
            return StubResponse(statusCode: 503, headers: ["Retry-After": "20"])
        }
        let configuration = configuration(stub, policy: RetryPolicy(maxAttempts: 3))
        let task = Task { try await GET<Void>("/x").request(using: configuration) }
        // (the first attempt has been answered, however long a loaded machine took to start the task)
        var answered = attempts.makeAsyncIterator()
        _ = await answered.next()
        // WHEN the calling task is cancelled during the wait
        let start = ContinuousClock.now
        task.cancel()
        let error = try await #require(throws: APIError.self) { try await task.value }
        // THEN the call ends at once (well before the 20 s wait; slack for a loaded machine) with the cancelled
        // reason and no further attempt
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(error.reason == .transport(.cancelled))
        #expect(stub.requests.count == 1)
    }
}
