import Courier
import CourierAsyncHTTPClient
import Foundation
import Testing

/// `.retry()` under a timeout against the fault server, with `AsyncHTTPClientExecutor`: the timeout is one deadline
/// for every attempt and wait (the root package runs the same cases with `URLSessionExecutor`).
@Suite("AsyncHTTPClientExecutor: a timeout is one deadline across retries", .servers)
struct RetryDeadlineTests {
    /// A call under a 3 s timeout with the default retry policy, and how it must end.
    struct Case: Sendable, CustomTestStringConvertible {
        let testDescription: String
        /// The route, given the run's key.
        let target: @Sendable (String) -> String
        /// The key the server counts the route's requests under.
        let statsKey: @Sendable (String) -> String
        let reason: APIError.Reason

        static let all = [
            Case(
                testDescription: "an upstream that answers after 60 s: one attempt, timed out",
                target: { "/count?key=\($0)&delay=60" }, statsKey: { $0 }, reason: .transport(.timedOut)),
            Case(
                testDescription: "a 503 with Retry-After: 30: timed out at once",
                target: { "/flaky?key=\($0)&fail=3&status=503&retry-after=30" }, statsKey: { "flaky:\($0)" },
                reason: .transport(.timedOut)),
        ]
    }

    struct Stats: Decodable {
        let hits: Int
    }

    @Test(
        "A 3 s timeout with .retry() ends at that deadline, after one attempt", .timeLimit(.minutes(1)),
        arguments: Case.all)
    func oneDeadlineAcrossRetries(_ call: Case) async throws {
        // GIVEN a 3 s timeout and the default retry policy (3 attempts, timeouts and 503 retried), over an executor
        // whose connection to the server is already open, so the first attempt reaches it however loaded the machine
        let servers = try Servers.required()
        let key = UUID().uuidString
        let executor = AsyncHTTPClientExecutor()
        let plain = APIConfiguration(baseURL: servers.faultServer, executor: executor)
        let before: Stats = try await GET<Void>("/count-stats?key=\(call.statsKey(key))").request(using: plain)
        #expect(before.hits == 0)
        let configuration = APIConfiguration(
            baseURL: servers.faultServer, timeout: .seconds(3), executor: executor, plugins: [.retry()])

        // WHEN the call is made (a call that waited for the answer or the Retry-After would take 30 s or more)
        let start = ContinuousClock.now
        let error = await #expect(throws: APIError.self) {
            try await GET<Void>(call.target(key)).request(using: configuration) as Data
        }
        let elapsed = ContinuousClock.now - start

        // THEN it ends before a second attempt could have run, with the expected reason, after one attempt
        #expect(error?.reason == call.reason)
        #expect(elapsed < .seconds(20), "\(elapsed)")
        let stats: Stats = try await GET<Void>("/count-stats?key=\(call.statsKey(key))").request(using: plain)
        #expect(stats.hits == 1)
    }
}
