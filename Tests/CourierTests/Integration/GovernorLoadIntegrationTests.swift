import Foundation
import Testing

@testable import Courier

/// A `TrafficGovernor` under load, against the fault server with the real `URLSessionExecutor`: what the server
/// counts (requests, and the most in progress at once) is the proof, for the retry budget of 256 calls at once
/// against a failing upstream and a concurrency limit under 10,000 calls. One of the heavy suites that `scripts/test`
/// runs after the others (their bursts would make the timing checks of other suites late), its tests one at a time,
/// and under ThreadSanitizer in CI.
@Suite("Integration: the traffic governor under load", .faultServer, .serialized)
struct GovernorLoadIntegrationTests {
    @Test("256 calls at once to an upstream that always fails send at most 1.2 × 256 requests with .retry()")
    func retryBudget() async throws {
        // GIVEN the default retry policy (3 attempts, 503 retried) and the governor's default budget, no breaker
        let key = UUID().uuidString
        let governor = TrafficGovernor(circuitBreaker: nil)
        let configuration = try FaultServer.configuration(timeout: .seconds(60), plugins: [.retry(), governor])

        // WHEN 256 calls are made at once to a route that answers 503 to every request
        let failures = await withTaskGroup(of: APIError.Reason?.self) { group in
            for _ in 0..<256 {
                group.addTask {
                    await TrafficGovernorTests.reason("/flaky?key=\(key)&fail=100000&status=503", configuration)
                }
            }
            return await group.reduce(into: [APIError.Reason?]()) { $0.append($1) }
        }

        // THEN every call fails with its 503, and the server saw 256 first attempts and at most 51 retries
        #expect(failures.count == 256)
        #expect(failures.allSatisfy { $0 == .unacceptableStatus(.serverError) })
        let hits = try await TrafficGovernorIntegrationTests.stats("flaky:\(key)").hits
        #expect((256...307).contains(hits), "\(hits) requests")
    }

    @Test("A limit of 8: 10,000 calls from 256 tasks all succeed, and the server never has more than 8 at once")
    func concurrencyLimit() async throws {
        // GIVEN a limit of 8 whose queue holds every other task's call
        let key = UUID().uuidString
        let governor = TrafficGovernor(
            circuitBreaker: nil, concurrencyLimit: .init(maxCalls: 8, maxWaiting: 256, maxWait: .seconds(300)))
        let configuration = try FaultServer.configuration(timeout: .seconds(300), plugins: [governor])
        let calls = 10_000
        let tasks = 256

        // WHEN 256 tasks make 10,000 calls between them, each held 2 ms by the server
        let failures = await withTaskGroup(of: [APIError.Reason].self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var failures: [APIError.Reason] = []
                    for _ in stride(from: task, to: calls, by: tasks) {
                        let path = "/count?key=\(key)&delay=0.002"
                        if let reason = await TrafficGovernorTests.reason(path, configuration) {
                            failures.append(reason)
                        }
                    }
                    return failures
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }

        // THEN every call succeeded, the server counted each once, and at most 8 at a time
        let stats = try await TrafficGovernorIntegrationTests.stats(key)
        #expect(failures.isEmpty, "\(failures.count) failed, the first: \(String(describing: failures.first))")
        #expect(stats.hits == calls)
        #expect(stats.peak.map { (1...8).contains($0) } == true, "peak \(String(describing: stats.peak))")
        #expect(governor.origins.value.values.first?.limit?.inFlight == 0)
    }
}
