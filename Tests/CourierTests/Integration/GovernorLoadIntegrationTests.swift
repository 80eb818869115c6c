import Foundation
import Testing

@testable import Courier

/// A `TrafficGovernor`'s concurrency limit under load, against the fault server with the real `URLSessionExecutor`:
/// what the server counts (requests, and the most in progress at once) is the proof. One of the heavy suites that
/// `scripts/test` runs after the others (its 10,000 requests would make their timing checks late), and under
/// ThreadSanitizer in CI.
@Suite("Integration: the traffic governor under load", .faultServer)
struct GovernorLoadIntegrationTests {
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
