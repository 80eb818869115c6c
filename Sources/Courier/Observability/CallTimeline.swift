/// What happened during one call, in order, on the monotonic clock: the request being built, each attempt
/// (sent, response head, body end), retries and their waits, redirects, cache decisions, credential refreshes,
/// decoding, and the outcome.
///
/// Timelines are recorded when the configuration has at least one ``CallObserver`` that watches events (with none, a
/// call records nothing and costs nothing more; CourierObservability's `.metrics()` is told only each call's start and
/// end, and records none). The observers see every event as it happens; the complete timeline is then
/// on the response (``APIResponse/timeline``, `DecodedResponse.timeline`) and on the error
/// (``APIError/timeline``), so one failing call can be explained from its error:
///
/// ```swift
/// do {
///     let user: User = try await GitHub.$user.request(with: "octocat")
/// } catch {
///     print(error.timeline ?? "no timeline: no observer is registered")
/// }
/// ```
///
/// A call retried once after a `503` with `Retry-After: 1` prints (the executor's own events, such as
/// `requestSent`, `responseHeadReceived` and `connection`, come between an attempt's start and its response):
///
/// ```
/// GET /users/{login}: 2 attempts, 200, 1004.9 ms
///   +0.0 ms      started
///   +0.1 ms      built
///   +0.2 ms      attemptStarted #1
///   +3.0 ms      responseReceived #1 503, 0 bytes
///   +3.1 ms      retryScheduled #1 503, wait 1000.0 ms, status 503, Retry-After: 1
///   +1003.4 ms   attemptStarted #2
///   +1004.6 ms   responseReceived #2 200, 48 bytes
///   +1004.8 ms   decoded #2
///   +1004.9 ms   finished #2 200
/// ```
public struct CallTimeline: Sendable, CustomStringConvertible {
    /// The request the call form built, before the plugins changed it (its endpoint, method, URL, body).
    public var request: APIRequest {
        _read { yield origin.request }  // no copy of the request for a reader of one of its fields
    }
    /// The events, in the order they happened.
    public internal(set) var events: [Event]
    /// ``request`` behind one reference: observers get a copy of the timeline at every event.
    private let origin: Origin

    init(request: APIRequest, events: [Event] = []) {
        self.origin = Origin(request: request)
        self.events = events
        // A call without retries or redirects records six to eight events: one allocation.
        self.events.reserveCapacity(8)
    }

    private final class Origin: Sendable {
        let request: APIRequest
        init(request: APIRequest) { self.request = request }
    }

    /// The attempts the call made (every send of the request through the executor or the cache).
    public var attempts: Int { events.reduce(0) { $0 + ($1.kind == .attemptStarted ? 1 : 0) } }

    /// The time from the first event to ``Event/Kind/finished``; `nil` while the call runs. (A streamed body is
    /// read after its call finished: its ``Event/Kind/streamEnded`` comes later.)
    public var duration: Duration? {
        guard let first = events.first, let finished = events.last(where: { $0.kind == .finished }) else { return nil }
        return finished.instant - first.instant
    }

    /// The status of the last response that arrived, if one did.
    public var statusCode: Int? {
        events.last { $0.kind == .responseReceived || $0.kind == .finished && $0.statusCode != nil }?.statusCode
    }

    /// Why the call failed; `nil` while it runs and when it succeeded.
    public internal(set) var failure: APIError.Reason?

    /// The call, one line per event with its offset from the start.
    public var description: String {
        var text = "\(request.endpoint): \(attempts) attempt\(attempts == 1 ? "" : "s")"
        if let failure { text += ", failed (\(failure))" } else if let statusCode { text += ", \(statusCode)" }
        if let duration { text += ", " + Self.milliseconds(duration) }
        let start = events.first?.instant
        for event in events {
            let offset = start.map { "+" + Self.milliseconds(event.instant - $0) } ?? ""
            text += "\n  " + offset.padding(toLength: 13, withPad: " ", startingAt: 0) + event.description
        }
        return text
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = (seconds * 10_000 + attoseconds / 100_000_000_000_000)
        return "\(tenths / 10).\(abs(tenths % 10)) ms"
    }
}

extension CallTimeline {
    /// One thing that happened during a call.
    public struct Event: Sendable {
        /// What happened.
        public let kind: Kind
        /// When it happened, on the monotonic clock.
        public let instant: ContinuousClock.Instant
        /// The attempt it belongs to: 0 before the first, then 1, 2, …
        public let attempt: Int
        /// The status code it is about: a response's, a redirect's, the final one.
        public let statusCode: Int?
        /// The bytes it is about: the request body sent, the response body received.
        public let bytes: Int?
        /// The wait it is about: a retry's delay.
        public let delay: Duration?
        /// Details for people and for filtering: a cache decision (`hit`, `stale`, `revalidated`, `miss`,
        /// `stored`, `skipped: <reason>`), a refresh's step (`started`, `joined`, `finished`, `failed`), a
        /// redirect's hop (`<origin> → <origin>, credentials removed`), a failure's reason, what an executor knows
        /// of the connection (`HTTP/1.1, reused connection`).
        public let detail: String?
        /// The version of HTTP a response came over (``APIResponse/httpVersion``: `1.1`, `2`), on the events of a
        /// response's head and end, where the executor knows it.
        public let httpVersion: String?

        init(
            _ kind: Kind, at instant: ContinuousClock.Instant, attempt: Int, statusCode: Int? = nil,
            bytes: Int? = nil, delay: Duration? = nil, detail: String? = nil, httpVersion: String? = nil
        ) {
            self.kind = kind
            self.instant = instant
            self.attempt = attempt
            self.statusCode = statusCode
            self.bytes = bytes
            self.delay = delay
            self.detail = detail
            self.httpVersion = httpVersion
        }

        var description: String {
            var text = kind.rawValue
            if attempt > 0 { text += " #\(attempt)" }
            var parts: [String] = []
            if let statusCode { parts.append("\(statusCode)") }
            if let bytes { parts.append("\(bytes) bytes") }
            if let delay { parts.append("wait " + CallTimeline.milliseconds(delay)) }
            if let httpVersion { parts.append("HTTP/" + httpVersion) }
            if let detail { parts.append(detail) }
            return parts.isEmpty ? text : text + " " + parts.joined(separator: ", ")
        }
    }
}

extension CallTimeline.Event {
    /// The kind of an event: a name that can grow (compare with the static members; executors may add their own).
    public struct Kind: RawRepresentable, Hashable, Sendable {
        /// The name, as printed.
        public let rawValue: String

        /// A kind named `rawValue`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The call began: building the request starts.
        public static let started = Kind(rawValue: "started")
        /// The request is built: the plugins start.
        public static let built = Kind(rawValue: "built")
        /// An attempt reached the transport (the cache, then the executor); ``CallTimeline/Event/attempt`` numbers it.
        public static let attemptStarted = Kind(rawValue: "attemptStarted")
        /// The executor sent the request (its body's bytes in ``CallTimeline/Event/bytes``), where it knows.
        public static let requestSent = Kind(rawValue: "requestSent")
        /// The executor received the response head (its status), where it knows.
        public static let responseHeadReceived = Kind(rawValue: "responseHeadReceived")
        /// What the executor knows of the connection an attempt used, in the detail: the protocol (`HTTP/1.1`,
        /// `h2`) and whether the connection was new or reused, where it knows (URLSession on Apple platforms
        /// reports both; AsyncHTTPClient the protocol version).
        public static let connection = Kind(rawValue: "connection")
        /// The attempt ended with a response (status, body bytes in memory).
        public static let responseReceived = Kind(rawValue: "responseReceived")
        /// The attempt ended with an error (its reason in ``CallTimeline/Event/detail``).
        public static let attemptFailed = Kind(rawValue: "attemptFailed")
        /// A retry will follow after ``CallTimeline/Event/delay`` (the cause and any `Retry-After` in the detail).
        public static let retryScheduled = Kind(rawValue: "retryScheduled")
        /// A redirect was followed (its status; origins and whether credentials were removed in the detail).
        public static let redirected = Kind(rawValue: "redirected")
        /// A cache decision: `hit`, `stale`, `revalidated`, `miss`, `stored` or `skipped: <reason>`.
        public static let cache = Kind(rawValue: "cache")
        /// A root or pin of the executor's ``TLSTrust`` for the hop's host is past its rotation date
        /// (``TLSPin/rotating(by:)``): which one and since when, in the detail. Once per root or pin and trust.
        public static let trust = Kind(rawValue: "trust")
        /// A ``TrafficGovernor`` decision: a wait (for a slot, or a shared `Retry-After`, with its
        /// ``CallTimeline/Event/delay``), a refusal, a retry its budget refused, or a change of the origin's circuit
        /// breaker (`circuit opened`, `half-open`, `closed`).
        public static let governor = Kind(rawValue: "governor")
        /// A credential refresh: `started`, `joined` (another call's), `finished` or `failed`.
        public static let authRefresh = Kind(rawValue: "authRefresh")
        /// The call waits for an identical call in flight instead of sending its own.
        public static let joinedInFlight = Kind(rawValue: "joinedInFlight")
        /// The body was decoded into the call's result type.
        public static let decoded = Kind(rawValue: "decoded")
        /// The call ended: its status, or its failure in the detail (and ``CallTimeline/failure``).
        public static let finished = Kind(rawValue: "finished")
        /// The reader of a streamed body (the `stream(...)` call forms, whose call finishes when the stream opens)
        /// stopped: at the body's end (`end`), early (`cancelled`: it left the loop, was cancelled or dropped the
        /// stream) or on a failure (its reason in the detail); the bytes it read in ``CallTimeline/Event/bytes``.
        public static let streamEnded = Kind(rawValue: "streamEnded")
        /// A WebSocket (whose call finishes when it opens) closed: by the app, by the peer (its close in the detail),
        /// when its reader left, or on a failure; the detail counts the messages and bytes sent and received, and
        /// ``CallTimeline/Event/bytes`` is both directions' bytes together.
        public static let webSocketClosed = Kind(rawValue: "webSocketClosed")
    }
}
