import Courier
import CourierTesting
import Foundation
import MetricsTestKit
import Testing

@testable import CourierObservability

/// `GovernorMetrics`: a governor's breaker as a gauge and its refusals and pauses as counters, per origin, checked
/// with swift-metrics' test backend over a scripted upstream and a clock the test moves.
@Suite("GovernorMetrics")
struct GovernorMetricsTests {
    /// A clock a test moves by hand.
    final class ManualClock: Sendable {
        private let time = Locked(Duration.seconds(100))
        var now: Duration { time.withLockedValue { $0 } }
        func advance(by duration: Duration) { time.withLockedValue { $0 += duration } }
    }

    static let server = [("server.address", "api.example.com"), ("server.port", "443")]

    @Test("The breaker opens, refuses, probes and closes: the gauge reads 2, 1, 0 and the refusal is counted")
    func breaker() async throws {
        // GIVEN a governor whose breaker opens after 2 failures, over an upstream that fails twice then recovers
        let metrics = TestMetrics()
        let clock = ManualClock()
        let recorder = GovernorMetrics(factory: metrics)
        let governor = TrafficGovernor(
            circuitBreaker: .init(minimumCalls: 2, coolDown: .seconds(5)), onEvent: recorder.record,
            now: { clock.now })
        let upstream = StubUpstream(.answer(.status(503), times: 2), .answer(.status(200)))
        let configuration = APIConfiguration(
            baseURL: URL(string: "https://api.example.com"),
            executor: StubExecutor().stub(where: { _ in true }, respond: upstream.respond(to:)),
            plugins: [governor])
        let call = GET<Void>("/items")

        // WHEN two calls fail, one is refused, and after the cool-down the probe succeeds
        var reasons: [APIError.Reason?] = []
        for _ in 0..<3 { reasons.append(await Self.reason(of: call, configuration)) }
        clock.advance(by: .seconds(5))
        reasons.append(await Self.reason(of: call, configuration))

        // THEN the gauge went open, half-open, closed; one circuit_open refusal; no pause
        let failed = APIError.Reason.unacceptableStatus(.serverError)
        #expect(reasons == [failed, failed, .governorRefused(.circuitOpen), nil])
        let gauge = try metrics.expectGauge("courier.governor.circuit.state", Self.server)
        #expect(gauge.values == [2, 1, 0])
        let refusals = try metrics.expectCounter(
            "courier.governor.refusals", Self.server + [("courier.governor.refusal", "circuit_open")])
        #expect(refusals.totalValue == 1)
        #expect(metrics.counters(label: "courier.governor.pauses").isEmpty)
    }

    @Test("A retry the budget refuses and a Retry-After pause are counted, each in its series")
    func budgetAndPause() async throws {
        let metrics = TestMetrics()
        let recorder = GovernorMetrics(factory: metrics)
        let governor = TrafficGovernor(
            circuitBreaker: nil, retryBudget: .init(share: 0, minimumPerSecond: 0), onEvent: recorder.record)
        let upstream = StubUpstream(.answer(.status(503, headers: ["Retry-After": "1"])))
        let configuration = APIConfiguration(
            baseURL: URL(string: "https://api.example.com"),
            executor: StubExecutor().stub(where: { _ in true }, respond: upstream.respond(to:)),
            plugins: [.retry(RetryPolicy(baseDelay: .milliseconds(1), jitter: 0)), governor])

        #expect(await Self.reason(of: GET<Void>("/items"), configuration) == .unacceptableStatus(.serverError))

        #expect(upstream.requestCount == 1)
        let budget = try metrics.expectCounter(
            "courier.governor.refusals", Self.server + [("courier.governor.refusal", "retry_budget")])
        #expect(budget.totalValue == 1)
        #expect(try metrics.expectCounter("courier.governor.pauses", Self.server).totalValue == 1)
        #expect(metrics.recorders.isEmpty)
    }

    @Test(
        "Refusal names",
        arguments: [
            (GovernorRefusal.circuitOpen, "circuit_open"), (.concurrencyLimit, "concurrency_limit"),
        ])
    func names(refusal: GovernorRefusal, name: String) {
        #expect(GovernorMetrics.name(of: refusal) == name)
    }

    static func reason(of endpoint: GET<Void>, _ configuration: APIConfiguration) async -> APIError.Reason? {
        do {
            let _: Data = try await endpoint.request(using: configuration)
            return nil
        } catch {
            return error.reason
        }
    }
}
