import Courier
import Foundation

/// An upstream a test scripts in phases: it fails, slows down and recovers on cue, and counts the requests it got
/// and the most it held at once. Give its ``respond(to:)`` to a ``StubExecutor`` rule.
///
/// Each phase answers a number of requests with one response (its delay, if any, is spent while the request counts
/// as in flight), then the next phase answers; the last phase answers every request after it. ``play(_:)``
/// replaces the script from the next request on, for a test that moves the upstream by hand.
///
/// ```swift
/// let upstream = StubUpstream(
///     .answer(.status(503), times: 30),                          // fails
///     .answer(.json("{}").delayed(by: .seconds(2)), times: 10),  // slows down
///     .answer(.json("{}")))                                      // recovers
/// let stub = StubExecutor().stub(where: { $0.url.host == "inventory" }, respond: upstream.respond(to:))
/// // … calls through a TrafficGovernor …
/// #expect(upstream.peakInFlight <= 8)
/// ```
public final class StubUpstream: Sendable {
    /// One step of the script: a response for a number of requests.
    public struct Phase: Sendable {
        let response: StubResponse
        let times: Int?

        /// Answers `times` requests with `response` (every request, when `nil` or in the last phase).
        public static func answer(_ response: StubResponse, times: Int? = nil) -> Phase {
            Phase(response: response, times: times.map { Swift.max(0, $0) })
        }
    }

    private struct State: Sendable {
        var phases: [Phase]
        /// The requests the current phase has answered.
        var answered = 0
        var requests = 0
        var inFlight = 0
        var peakInFlight = 0

        /// The response of the next request, the script moved on past it.
        mutating func next() -> StubResponse {
            while phases.count > 1, let times = phases[0].times, answered >= times {
                phases.removeFirst()
                answered = 0
            }
            answered += 1
            requests += 1
            inFlight += 1
            peakInFlight = Swift.max(peakInFlight, inFlight)
            return phases.first?.response ?? StubResponse(statusCode: 200)
        }
    }

    private let state: LockedBox<State>

    /// An upstream that plays `phases` in order (one that answers 200 to everything, without phases).
    public init(_ phases: Phase...) {
        state = LockedBox(State(phases: phases))
    }

    /// Plays `phases` from the next request on, in place of what was left of the script.
    public func play(_ phases: Phase...) {
        state.withLock { state in
            state.phases = phases
            state.answered = 0
        }
    }

    /// The requests answered so far (those in flight included).
    public var requestCount: Int { state.value.requests }
    /// The requests in flight now: arrived, and still within their phase's delay.
    public var inFlight: Int { state.value.inFlight }
    /// The most requests that were in flight at once.
    public var peakInFlight: Int { state.value.peakInFlight }

    /// The answer to `request` by the script: waits out the phase's delay (in flight meanwhile), then returns its
    /// response. Shaped as a ``StubExecutor/Responder``.
    public func respond(to request: APIRequest) async throws -> StubResponse {
        var response = state.withLock { $0.next() }
        defer { state.withLock { $0.inFlight -= 1 } }
        if let delay = response.delay {
            response.delay = nil
            try await Task.sleep(for: delay)
        }
        return response
    }
}
