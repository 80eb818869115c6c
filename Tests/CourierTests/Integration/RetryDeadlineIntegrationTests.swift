import Courier
import Foundation
import Testing

/// `.retry()` under a timeout against the fault server, with `URLSessionExecutor`: the timeout is one deadline for
/// every attempt and wait, so a slow upstream gets one attempt and a `Retry-After` past the deadline none more. The
/// AsyncHTTPClient package runs the same cases against its executor.
@Suite("Integration: a timeout is one deadline across retries", .faultServer)
struct RetryDeadlineIntegrationTests {
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

    @Test("A 3 s timeout with .retry() ends at that deadline, after one attempt", arguments: Case.all)
    func oneDeadlineAcrossRetries(_ call: Case) async throws {
        // GIVEN a 3 s timeout and the default retry policy (3 attempts, timeouts and 503 retried), over an executor
        // whose connection to the server is already open, so the first attempt reaches it however loaded the machine
        let key = UUID().uuidString
        let before: Stats = try await GET<Void>("/count-stats?key=\(call.statsKey(key))")
            .request(using: FaultServer.configuration())
        #expect(before.hits == 0)
        let configuration = try FaultServer.configuration(timeout: .seconds(3), plugins: [.retry()])

        // WHEN the call is made (cut off at 20 s: a call that waited for the answer or the Retry-After would take
        // 30 s or more, so it fails here however loaded the machine is)
        let endpoint = GET<Void>(call.target(key))
        let (outcome, _) = await bounded(within: .seconds(20)) { () async throws(APIError) -> Data in
            try await endpoint.request(using: configuration)
        }

        // THEN it ends before a second attempt could have run, with the expected reason, after one attempt
        #expect(outcome.error?.reason == call.reason, "\(outcome)")
        let stats: Stats = try await GET<Void>("/count-stats?key=\(call.statsKey(key))")
            .request(using: FaultServer.configuration())
        #expect(stats.hits == 1)
    }
}
