import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `TrafficGovernor` as a plugin over stubs, with a clock the test moves: the breaker's refusals and recovery, the
/// retry budget through `.retry()`, the shared `Retry-After`, the concurrency limit's queue, and the timeline's
/// `governor` events. Against a real server: `TrafficGovernorIntegrationTests`.
@Suite("TrafficGovernor")
struct TrafficGovernorTests {
    /// A clock a test moves by hand.
    final class ManualClock: Sendable {
        private let time = LockedBox(Duration.seconds(100))
        var now: Duration { time.value }
        func advance(by duration: Duration) { time.withLock { $0 += duration } }
    }

    /// Keeps the details of the `governor` events it sees.
    final class Events: CallObserver {
        let details = LockedBox<[String]>([])
        func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
            if event.kind == .governor { details.withLock { $0.append(event.detail ?? "") } }
        }
    }

    /// A stub that answers `statuses` in turn (the last one again once they run out), `headers` on each.
    static func answering(_ statuses: [Int], headers: HTTPHeaders = [:]) -> StubExecutor {
        let count = LockedBox(0)
        return StubExecutor().stub(where: { _ in true }) { _ in
            let index = count.withLock { count in
                defer { count += 1 }
                return count
            }
            return StubResponse(statusCode: statuses[min(index, statuses.count - 1)], headers: headers)
        }
    }

    /// A stub that answers 200 at once, but holds each request to `/slow` until `release` yields; `entered` yields
    /// as each such request arrives.
    static func blocking() -> (
        stub: StubExecutor, entered: AsyncStream<Void>, release: AsyncStream<Void>.Continuation
    ) {
        let entered = AsyncStream.makeStream(of: Void.self)
        let release = AsyncStream.makeStream(of: Void.self)
        let stub = StubExecutor().stub(where: { $0.url.path == "/slow" }) { _ in
            entered.continuation.yield()
            for await _ in release.stream { break }
            return StubResponse(statusCode: 200)
        }.stubEverything(with: StubResponse(statusCode: 200))
        return (stub, entered.stream, release.continuation)
    }

    /// A governor with a limit of 1 and a queue of 1 (each wait up to 30 s) over a ``blocking()`` stub, whose one
    /// slot a call to `/slow` holds until `release` yields.
    struct HeldSlot {
        let governor: TrafficGovernor
        let stub: StubExecutor
        let entered: AsyncStream<Void>
        let release: AsyncStream<Void>.Continuation
        let events: Events
        let configuration: APIConfiguration
        /// The call to `/slow`, in the slot.
        let slow: Task<APIError.Reason?, Never>
    }

    /// Starts the call to `/slow` and returns once it holds the slot.
    static func holdingTheSlot() async -> HeldSlot {
        let governor = TrafficGovernor(
            circuitBreaker: nil, concurrencyLimit: .init(maxCalls: 1, maxWaiting: 1, maxWait: .seconds(30)))
        let (stub, entered, release) = blocking()
        let events = Events()
        let configuration = configuration(stub, plugins: [governor], events: events)
        let slow = Task { await reason("/slow", configuration) }
        for await _ in entered { break }
        return HeldSlot(
            governor: governor, stub: stub, entered: entered, release: release, events: events,
            configuration: configuration, slow: slow)
    }

    static func configuration(
        _ stub: StubExecutor, plugins: [any APIPlugin], events: Events = Events(), timeout: Duration = .seconds(10)
    ) -> APIConfiguration {
        testConfiguration.with {
            $0.baseURL = URL(string: "http://api.example.com")
            $0.executor = stub
            $0.plugins = plugins
            $0.observers = [events]
            $0.timeout = timeout
        }
    }

    /// The reason a call to `path` fails with, `nil` when it succeeds.
    static func reason(_ path: String, _ configuration: APIConfiguration) async -> APIError.Reason? {
        do {
            let _: Data = try await GET<Void>(path).request(using: configuration)
            return nil
        } catch {
            return error.reason
        }
    }

    static let breaker = TrafficGovernor.CircuitBreaker(minimumCalls: 4, coolDown: .seconds(5))

    // MARK: The circuit breaker

    @Test("Four 503s open the circuit: the next call is refused with circuitOpen and nothing is sent")
    func opens() async throws {
        let clock = ManualClock()
        let reported = LockedBox<[TrafficGovernor.Event]>([])
        let governor = TrafficGovernor(
            circuitBreaker: Self.breaker, onEvent: { event in reported.withLock { $0.append(event) } },
            now: { clock.now })
        let stub = Self.answering([503])
        let events = Events()
        let configuration = Self.configuration(stub, plugins: [governor], events: events)

        var reasons: [APIError.Reason?] = []
        for _ in 0..<5 { reasons.append(await Self.reason("/x", configuration)) }

        let failed = APIError.Reason.unacceptableStatus(.serverError)
        #expect(reasons == [failed, failed, failed, failed, .governorRefused(.circuitOpen)])
        #expect(stub.requests.count == 4)
        #expect(
            events.details.value == [
                "circuit opened for http://api.example.com:80",
                "refused at http://api.example.com:80: the origin's circuit breaker is open",
            ])
        // The handler gets the same two events, with the origin's parts and the refusal's reason and delay.
        let kinds = reported.value.map(\.kind)
        #expect(kinds == [.circuitOpened, .refused])
        #expect(reported.value.map(\.origin) == ["http://api.example.com:80", "http://api.example.com:80"])
        #expect(reported.value.last?.refusal == .circuitOpen)
        #expect(reported.value.last?.delay == .seconds(5))
    }

    @Test("A logging plugin before the governor logs a refused call's line with the refusal, and nothing sent")
    func loggedRefusal() async throws {
        let governor = TrafficGovernor(circuitBreaker: Self.breaker)
        let lines = LockedBox<[String]>([])
        let logging = LoggingPlugin.logging { line in lines.withLock { $0.append(line) } }
        let configuration = Self.configuration(Self.answering([503]), plugins: [logging, governor])
        for _ in 0..<5 { _ = await Self.reason("/x", configuration) }

        let last = try #require(lines.value.last)
        #expect(lines.value.count == 10)
        #expect(last.hasPrefix("✗ GET http://api.example.com/x ("))
        #expect(last.hasSuffix("GET /x: not sent: the origin's circuit breaker is open"))
    }

    @Test("After the cool-down one probe goes; its success closes the circuit, its failure opens it again")
    func probes() async throws {
        let clock = ManualClock()
        let governor = TrafficGovernor(circuitBreaker: Self.breaker, now: { clock.now })
        let stub = Self.answering([503, 503, 503, 503, 200, 503, 503, 503, 503, 503])
        let configuration = Self.configuration(stub, plugins: [governor])
        for _ in 0..<4 { _ = await Self.reason("/x", configuration) }

        // WHEN the cool-down passes: the probe succeeds and the circuit closes
        clock.advance(by: .seconds(5))
        #expect(await Self.reason("/x", configuration) == nil)
        #expect(governor.origins.value.values.first?.breaker?.state == .closed)

        // WHEN four more fail it opens; after the cool-down the probe fails and it opens again at once
        for _ in 0..<4 { _ = await Self.reason("/x", configuration) }
        clock.advance(by: .seconds(5))
        #expect(await Self.reason("/x", configuration) == .unacceptableStatus(.serverError))
        #expect(await Self.reason("/x", configuration) == .governorRefused(.circuitOpen))
        #expect(stub.requests.count == 10)
    }

    @Test("Each origin has its own circuit: an open one for one host leaves another's calls alone")
    func perOrigin() async throws {
        let governor = TrafficGovernor(circuitBreaker: Self.breaker)
        let stub = Self.answering([503, 503, 503, 503, 200])
        let configuration = Self.configuration(stub, plugins: [governor])
        for _ in 0..<4 { _ = await Self.reason("/x", configuration) }

        #expect(await Self.reason("/x", configuration) == .governorRefused(.circuitOpen))
        #expect(await Self.reason("https://other.example.com/x", configuration) == nil)
    }

    @Test(
        "What counts as a failure: 5xx, 429 and timeouts do; 404, a cancelled call and a body too large do not",
        arguments: [
            (StubResponse(statusCode: 500), true), (StubResponse(statusCode: 429), true),
            (.error(URLError(.timedOut)), true), (.error(URLError(.cannotConnectToHost)), true),
            (StubResponse(statusCode: 404), false), (.error(URLError(.cancelled)), false),
            (StubResponse(statusCode: 200), false),
        ])
    func failures(answer: StubResponse, counts: Bool) async throws {
        let governor = TrafficGovernor(circuitBreaker: Self.breaker)
        let stub = StubExecutor().stubEverything(with: answer)
        let configuration = Self.configuration(stub, plugins: [governor])
        for _ in 0..<4 { _ = await Self.reason("/x", configuration) }
        let opened = governor.origins.value.values.first?.breaker?.state != .closed
        #expect(opened == counts)
    }

    // MARK: The retry budget

    @Test("A spent budget refuses the retry: the call ends with the 503 it had, and the timeline says why")
    func budget() async throws {
        // GIVEN a budget of one retry per 10 s and retries without a wait
        let governor = TrafficGovernor(
            circuitBreaker: nil, retryBudget: .init(share: 0, minimumPerSecond: 0.1))
        let stub = Self.answering([503])
        let events = Events()
        let retry = RetryPolicy(baseDelay: .milliseconds(1), jitter: 0)
        let configuration = Self.configuration(stub, plugins: [.retry(retry), governor], events: events)

        // WHEN two calls are made, each allowed three attempts
        let first = await Self.reason("/x", configuration)
        let second = await Self.reason("/x", configuration)

        // THEN the first makes one retry, the budget's only one, and the second none
        #expect(first == .unacceptableStatus(.serverError))
        #expect(second == .unacceptableStatus(.serverError))
        #expect(stub.requests.count == 3)
        let refusal = "retry refused at http://api.example.com:80: the origin's retry budget is spent"
        #expect(events.details.value == [refusal, refusal])
    }

    @Test("Without a governor, or with its budget off, .retry() makes every attempt its policy allows")
    func noBudget() async throws {
        let retry = RetryPolicy(baseDelay: .milliseconds(1), jitter: 0)
        for plugins: [any APIPlugin] in [[.retry(retry)], [.retry(retry), TrafficGovernor(retryBudget: nil)]] {
            let stub = Self.answering([503])
            _ = await Self.reason("/x", Self.configuration(stub, plugins: plugins))
            #expect(stub.requests.count == 3)
        }
    }

    // MARK: The shared Retry-After

    @Test("A 503 with Retry-After pauses the origin: a call whose deadline is sooner fails at once, unsent")
    func sharedRetryAfter() async throws {
        let clock = ManualClock()
        let governor = TrafficGovernor(circuitBreaker: nil, now: { clock.now })
        let stub = Self.answering([503, 200], headers: ["Retry-After": "30"])
        let events = Events()
        let configuration = Self.configuration(stub, plugins: [governor], events: events, timeout: .seconds(5))

        #expect(await Self.reason("/x", configuration) == .unacceptableStatus(.serverError))
        #expect(await Self.reason("/y", configuration) == .transport(.timedOut))
        #expect(await Self.reason("https://other.example.com/x", configuration) == nil)
        clock.advance(by: .seconds(30))
        #expect(await Self.reason("/x", configuration) == nil)

        #expect(
            stub.requests.map(\.url.absoluteString) == [
                "http://api.example.com/x", "https://other.example.com/x", "http://api.example.com/x",
            ])
        #expect(
            events.details.value == [
                "http://api.example.com:80 paused by Retry-After for 30.0 seconds",
                "paused by Retry-After past the deadline",
            ])
    }

    // MARK: The concurrency limit

    @Test("A limit of 1 without a queue refuses a second call while the first is in flight, and none after")
    func limit() async throws {
        let governor = TrafficGovernor(circuitBreaker: nil, concurrencyLimit: .init(maxCalls: 1, maxWaiting: 0))
        let (stub, entered, release) = Self.blocking()
        let configuration = Self.configuration(stub, plugins: [governor])

        let slow = Task { await Self.reason("/slow", configuration) }
        for await _ in entered { break }
        #expect(await Self.reason("/x", configuration) == .governorRefused(.concurrencyLimit))
        release.yield()
        #expect(await slow.value == nil)
        #expect(await Self.reason("/x", configuration) == nil)
        #expect(stub.requests.map(\.url.path) == ["/slow", "/x"])
    }

    @Test("With a queue, a waiting call goes when the slot is freed; one that waits past maxWait is refused")
    func queue() async throws {
        let held = await Self.holdingTheSlot()
        let (stub, entered, release, events, configuration, slow) = (
            held.stub, held.entered, held.release, held.events, held.configuration, held.slow
        )
        let waiting = Task { await Self.reason("/waited", configuration) }
        while events.details.value.isEmpty { await Task.yield() }
        // The queue of one is full: a third call is refused at once.
        #expect(await Self.reason("/x", configuration) == .governorRefused(.concurrencyLimit))
        release.yield()
        #expect(await slow.value == nil)
        #expect(await waiting.value == nil)
        #expect(stub.requests.map(\.url.path) == ["/slow", "/waited"])

        // A call that waits longer than its bound is refused.
        let short = TrafficGovernor(
            circuitBreaker: nil, concurrencyLimit: .init(maxCalls: 1, maxWaiting: 1, maxWait: .milliseconds(50)))
        let configured = Self.configuration(stub, plugins: [short])
        let slowAgain = Task { await Self.reason("/slow", configured) }
        for await _ in entered { break }
        #expect(await Self.reason("/x", configured) == .governorRefused(.concurrencyLimit))
        release.yield()
        #expect(await slowAgain.value == nil)
    }

    @Test("A call whose deadline comes before a slot fails with timedOut, and nothing is sent")
    func slotPastDeadline() async throws {
        let held = await Self.holdingTheSlot()

        let hurried = Self.configuration(held.stub, plugins: [held.governor], timeout: .milliseconds(100))
        #expect(await Self.reason("/x", hurried) == .transport(.timedOut))
        held.release.yield()
        #expect(await held.slow.value == nil)
        #expect(held.stub.requests.map(\.url.path) == ["/slow"])
    }

    @Test("Cancelling a call that waits for a slot fails it with cancelled, and frees its place in the queue")
    func cancelWhileWaiting() async throws {
        let held = await Self.holdingTheSlot()
        let waiting = Task { await Self.reason("/waited", held.configuration) }
        while held.events.details.value.isEmpty { await Task.yield() }
        waiting.cancel()
        #expect(await waiting.value == .transport(.cancelled))
        #expect(held.governor.origins.value.values.first?.limit?.waiting == [])
        held.release.yield()
        #expect(await held.slow.value == nil)
        #expect(held.stub.requests.map(\.url.path) == ["/slow"])
    }

    // MARK: A scripted upstream

    @Test("An upstream that fails, slows down and recovers: the circuit opens, refuses, probes and closes")
    func scriptedUpstream() async throws {
        // GIVEN an upstream that fails 4 requests, answers 1 slowly, then recovers
        let clock = ManualClock()
        let governor = TrafficGovernor(circuitBreaker: Self.breaker, now: { clock.now })
        let upstream = StubUpstream(
            .answer(.status(503), times: 4), .answer(.status(200).delayed(by: .milliseconds(20)), times: 1),
            .answer(.status(200)))
        let stub = StubExecutor().stub(where: { _ in true }, respond: upstream.respond(to:))
        let events = Events()
        let configuration = Self.configuration(stub, plugins: [governor], events: events)

        // WHEN it fails, the circuit opens and the calls during the cool-down are refused unsent
        var reasons: [APIError.Reason?] = []
        for _ in 0..<6 { reasons.append(await Self.reason("/x", configuration)) }
        #expect(upstream.requestCount == 4)
        // THEN after the cool-down the slow probe succeeds, the circuit closes, and every call goes again
        clock.advance(by: .seconds(5))
        for _ in 0..<3 { reasons.append(await Self.reason("/x", configuration)) }

        let failed = APIError.Reason.unacceptableStatus(.serverError)
        let refused = APIError.Reason.governorRefused(.circuitOpen)
        #expect(reasons == [failed, failed, failed, failed, refused, refused, nil, nil, nil])
        #expect(upstream.requestCount == 7)
        #expect(upstream.peakInFlight == 1)
        #expect(
            events.details.value.filter { $0.hasPrefix("circuit") } == [
                "circuit opened for http://api.example.com:80", "circuit half-open for http://api.example.com:80",
                "circuit closed for http://api.example.com:80",
            ])
    }

    @Test("A limit of 2 holds 16 concurrent calls to a slow upstream to 2 in flight; the rest wait their turn")
    func limitHoldsAtTheUpstream() async throws {
        let governor = TrafficGovernor(
            circuitBreaker: nil, concurrencyLimit: .init(maxCalls: 2, maxWaiting: 16, maxWait: .seconds(30)))
        let upstream = StubUpstream(.answer(.status(200).delayed(by: .milliseconds(5))))
        let stub = StubExecutor().stub(where: { _ in true }, respond: upstream.respond(to:))
        let configuration = Self.configuration(stub, plugins: [governor])

        let reasons = await withTaskGroup(of: APIError.Reason?.self) { group in
            for _ in 0..<16 { group.addTask { await Self.reason("/x", configuration) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(reasons.count == 16)
        #expect(reasons.allSatisfy { $0 == nil })
        #expect(upstream.requestCount == 16)
        #expect((1...2).contains(upstream.peakInFlight))
        #expect(upstream.inFlight == 0)
    }
}
