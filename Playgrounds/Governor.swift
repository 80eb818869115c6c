// Governor: a TrafficGovernor keeps the calls to each origin, together, within what the origin can take: a circuit
// breaker, a retry budget, an optional concurrency limit and a shared Retry-After. Make one per upstream, put the
// same instance in every configuration that calls it, right after `.retry()`.
import Courier
import CourierTesting
import Foundation

@MainActor
enum Upstream {
    @GET("/status/503")
    static var failing: APIParameterBuilder<Void>? = nil

    @GET("/get")
    static var healthy: APIParameterBuilder<Void>? = nil
}

/// A clock the page moves by hand (the governor's `now:`), so that a cool-down passes without waiting.
// @unchecked: every access to `time` goes through `lock`.
final class GovernorClock: @unchecked Sendable {
    private let lock = NSLock()
    private var time = Duration.zero

    var now: Duration { lock.withLock { time } }
    func advance(by duration: Duration) { lock.withLock { time += duration } }
}

@MainActor
enum GovernorPage {
    /// The governors' `onEvent` handler: prints each refusal, change of a breaker and pause.
    static let printEvent: @Sendable (TrafficGovernor.Event) -> Void = { Console.line("    event│ \($0)") }

    static func run(_ stage: Stage) async throws {
        let clock = GovernorClock()
        Console.step("A breaker that opens when half of at least 4 calls failed, with a 5 s cool-down: 4 calls fail")
        let governor = TrafficGovernor(
            circuitBreaker: .init(minimumCalls: 4, coolDown: .seconds(5)), onEvent: printEvent, now: { clock.now })
        let configuration = APIConfiguration.default.with { $0.plugins = [governor] }
        for _ in 0..<4 {
            do { try await Upstream.$failing.request(using: configuration) } catch { Console.caught(error) }
        }

        Console.step("The circuit is open: a call to that origin, /get too, fails at once and nothing is sent")
        // The same governor in another configuration, after a logging plugin, which logs the refused call.
        let logged = configuration.with {
            $0.plugins = [LoggingPlugin.logging { Console.line("    log│ \($0)") }, governor]
        }
        do {
            try await Upstream.$healthy.request(using: logged)
        } catch {
            Console.caught(error)
            Console.result("error.reason.governorRefusal: \(error.reason.governorRefusal.map { "\($0)" } ?? "nil")")
        }

        Console.step("clock.advance(by: .seconds(5)): the cool-down is over; one probe goes, and its success closes it")
        clock.advance(by: .seconds(5))
        try await Upstream.$healthy.request(using: configuration)
        try await Upstream.$healthy.request(using: configuration)
        Console.note("a probe that fails opens the circuit again for another cool-down")

        try await retryBudget(clock)
        try await concurrencyLimit()
    }

    static func retryBudget(_ clock: GovernorClock) async throws {
        Console.step("A retry budget of 1 retry per 10 s under `.retry()` (3 attempts): two failing calls")
        let governor = TrafficGovernor(
            circuitBreaker: nil, retryBudget: .init(share: 0, minimumPerSecond: 0.1), onEvent: printEvent,
            now: { clock.now })
        let retry = RetryPolicy(baseDelay: .milliseconds(50), jitter: 0)
        let sent = Tally()
        let configuration = APIConfiguration.default.with {
            $0.plugins = [.retry(retry), governor, CountAttempts(tally: sent)]
        }
        for _ in 0..<2 {
            do { try await Upstream.$failing.request(using: configuration) } catch { Console.caught(error) }
        }
        Console.result("\(sent.count) requests, not 6: the first call retried once, the second not at all")
        Console.note("the defaults: retries ≤ max(0.2 × calls, 1 a second) in 10 s: 256 failing calls send ≤ 307")
    }

    static func concurrencyLimit() async throws {
        Console.step("A concurrency limit of 2 with a queue: 8 calls at once to a slow StubUpstream (CourierTesting)")
        let upstream = StubUpstream(.answer(.json("{}").delayed(by: .milliseconds(20))))
        let configuration = APIConfiguration.default.with {
            $0.executor = StubExecutor().stub(where: { _ in true }, respond: upstream.respond(to:))
            $0.plugins = [TrafficGovernor(concurrencyLimit: .init(maxCalls: 2, maxWaiting: 8))]
        }
        let failures = Tally()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do { try await Upstream.$healthy.request(using: configuration) } catch { failures.increment() }
                }
            }
        }
        Console.result(
            "\(upstream.requestCount) requests, \(failures.count) failed, at most \(upstream.peakInFlight) at once")
        Console.note("with `maxWaiting: 0` a call beyond the limit fails at once: .concurrencyLimit")
    }
}
