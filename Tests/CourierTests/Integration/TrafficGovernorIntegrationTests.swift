import Courier
import Foundation
import Testing

/// `TrafficGovernor` in front of the fault server with the real `URLSessionExecutor`: what the server counts is the
/// proof (requests), for a circuit that opens and recovers and a shared `Retry-After`. Many calls at once (the retry
/// budget against a failing upstream, the limit under load): `GovernorLoadIntegrationTests`.
@Suite("Integration: the traffic governor protects an upstream", .faultServer)
struct TrafficGovernorIntegrationTests {
    struct Stats: Decodable {
        let hits: Int
        let peak: Int?
    }

    /// What the server counted under `key`.
    static func stats(_ key: String) async throws -> Stats {
        try await GET<Void>("/count-stats?key=\(key)").request(using: FaultServer.configuration())
    }

    /// Keeps the `governor` events it sees, with the path of their call.
    final class Events: CallObserver {
        let seen = LockedBox<[(path: String, event: CallTimeline.Event)]>([])
        func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
            if event.kind == .governor { seen.withLock { $0.append((timeline.request.url.path, event)) } }
        }
    }

    @Test("An open circuit refuses calls with nothing sent; after the upstream recovers, one probe closes it")
    func circuitRecovers() async throws {
        // GIVEN an upstream whose first 20 requests fail, and a breaker that opens at half of 20 calls
        let key = UUID().uuidString
        let clock = TrafficGovernorTests.ManualClock()
        let governor = TrafficGovernor(circuitBreaker: .init(coolDown: .seconds(5)), now: { clock.now })
        let configuration = try FaultServer.configuration(plugins: [governor])
        func call() async -> APIError.Reason? {
            await TrafficGovernorTests.reason("/flaky?key=\(key)&fail=20&status=503", configuration)
        }

        // WHEN 20 calls fail, the circuit opens: the next 5 are refused and the server sees none of them
        for _ in 0..<20 { #expect(await call() == .unacceptableStatus(.serverError)) }
        for _ in 0..<5 { #expect(await call() == .governorRefused(.circuitOpen)) }
        #expect(try await Self.stats("flaky:\(key)").hits == 20)

        // WHEN the cool-down passes and the upstream has recovered: the probe succeeds, and so do the calls after it
        clock.advance(by: .seconds(5))
        for _ in 0..<3 { #expect(await call() == nil) }
        #expect(try await Self.stats("flaky:\(key)").hits == 23)
    }

    @Test("A 503 with Retry-After: 2 pauses every next call to that origin for 2 s, and none to another")
    func sharedRetryAfter() async throws {
        // GIVEN a governor whose clock stands still: the pause lasts until the test moves it, however slow the
        // machine, and each wait is the pause's whole 2 s
        let key = UUID().uuidString
        let events = Events()
        let clock = TrafficGovernorTests.ManualClock()
        let governor = TrafficGovernor(circuitBreaker: nil, now: { clock.now })
        let main = try FaultServer.configuration(plugins: [governor]).with { $0.observers = [events] }
        let otherPort = try FaultServer.required(FaultServer.otherPort, FaultServer.otherPortKey)
        let other = main.with { $0.baseURL = otherPort }

        // WHEN one call gets a 503 with Retry-After: 2, then a call to another origin and 4 calls at once to this one
        await #expect(throws: APIError.self) {
            try await GET<Void>("/flaky?key=\(key)&fail=1&status=503&retry-after=2").request(using: main) as Data
        }
        let _: Data = try await GET<Void>("/count?key=\(key)-other").request(using: other)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { let _: Data = try await GET<Void>("/count?key=\(key)-main").request(using: main) }
            }
            try await group.waitForAll()
        }

        // THEN the 503 paused its origin, each of the 4 calls waited for the pause, and the other origin's did not
        let seen = events.seen.value
        #expect(seen.map(\.path) == ["/flaky", "/count", "/count", "/count", "/count"])
        #expect(seen.first?.event.detail?.hasSuffix("paused by Retry-After for 2.0 seconds") == true)
        let waits = seen.dropFirst()
        #expect(waits.allSatisfy { $0.event.detail == "paused by Retry-After" })
        #expect(waits.allSatisfy { $0.event.delay == .seconds(2) })
        #expect(try await Self.stats("\(key)-main").hits == 4)
        #expect(try await Self.stats("\(key)-other").hits == 1)
    }
}
