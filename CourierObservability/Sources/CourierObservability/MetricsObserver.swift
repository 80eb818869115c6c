import CoreMetrics
@_spi(CourierInternals) import Courier
import Foundation

/// Records every call in swift-metrics with the OpenTelemetry HTTP client semantic conventions:
///
/// | Metric | Kind | Unit | Dimensions |
/// |---|---|---|---|
/// | `http.client.request.duration` | timer | seconds | all below, of the attempt |
/// | `courier.call.duration` | timer | seconds | all below |
/// | `http.client.request.body.size` | recorder | bytes | all below (when the body's size is known) |
/// | `http.client.response.body.size` | recorder | bytes | all below |
/// | `http.client.active_requests` | meter | calls | `http.request.method`, `server.address`, `server.port` |
///
/// Dimensions: `http.request.method`, `server.address`, `server.port`, `url.template` (the endpoint's path
/// template, `/users/{login}`, never a path with its values: the number of series stays bounded),
/// `http.response.status_code` (when a response arrived), `network.protocol.version` (`1.1`, `2`: of each
/// attempt's response, on `http.client.request.duration`, where the executor knows it) and, on failure only,
/// `error.type`: the status code (`404`) or a short category (`timeout`, `cannot_connect`, `offline`, `cancelled`,
/// `connection_lost`, `tls_failed`, `response_too_large`, `proxy_authentication_required`, `redirect_refused`,
/// `decoding_failed`, `rejected_by_service`, `invalid_request`, `not_cached`, `_OTHER`).
///
/// `http.client.request.duration` is OpenTelemetry's: one duration per request sent, each attempt of a call
/// measured on its own (a retried call records two or more, each with its own status or `error.type`; redirects the
/// executor follows belong to their attempt; an attempt the cache answered without the server records none).
/// `courier.call.duration` is one duration per call, from the start of building its request to the end of decoding,
/// retries, their waits and redirects included: what the caller waited. The body sizes are one per call: a streamed
/// body's bytes are counted as the reader reads them and recorded when its stream ends (`download`'s file when the
/// call ends).
///
/// The metrics of each endpoint, origin and outcome are made once and kept (as swift-metrics recommends), so a call
/// formats no dimension; and a call tells this observer only its start, each attempt's start and end, and its end,
/// recording no timeline for it (unless another observer wants one): with a no-op backend `.metrics()` adds a few locked
/// lookups and two clock reads per attempt and per call.
///
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory())   // once, at start-up (swift-prometheus, for one)
/// configuration.observers.append(.metrics())
/// ```
public struct MetricsObserver: CallObserver {
    private let chosenFactory: (any MetricsFactory)?
    fileprivate let cache = MetricSeriesCache()

    /// Records with `factory`, or with the bootstrapped `MetricsSystem.factory` when `nil` (read at every call,
    /// so the observer can be created before the bootstrap).
    public init(factory: (any MetricsFactory)? = nil) {
        self.chosenFactory = factory
    }

    /// Counts the call as active at its `started` event; records its duration and sizes at its `finished` event.
    /// (A configuration's calls tell this observer only their start and end, without recording a timeline.)
    public func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
        let kind = event.kind
        if kind == .started {
            _ = callStarted(timeline.request)
        } else if kind == .finished {
            // A call without a start (a plugin asked for its timeline half-way) was never counted as active.
            let request = timeline.request
            record(
                request, in: cache.series(of: request, factory: factory()), duration: timeline.duration,
                status: timeline.statusCode, failure: timeline.failure,
                received: timeline.events.last(where: { $0.kind == .responseReceived })?.bytes,
                attempts: Self.attempts(of: timeline), wasActive: timeline.events.first?.kind == .started)
        } else if kind == .streamEnded, let bytes = event.bytes {
            let request = timeline.request
            cache.series(of: request, factory: factory()).bodyEnded(
                bytes: bytes, status: timeline.statusCode,
                errorType: timeline.failure.map { Self.errorType($0, statusCode: timeline.statusCode) })
        }
    }

    /// The attempts of `timeline`: each from its start to its response or failure, but those the cache answered.
    static func attempts(of timeline: CallTimeline) -> [CallOutcome.Attempt] {
        var attempts: [CallOutcome.Attempt] = []
        var start: ContinuousClock.Instant?
        var fromCache = false
        for event in timeline.events {
            switch event.kind {
            case .attemptStarted:
                start = event.instant
                fromCache = false
            case .cache where event.detail == "hit" || event.detail == "stale":
                fromCache = true
            case .responseReceived, .attemptFailed:
                guard let begun = start else { continue }
                start = nil
                if fromCache { continue }
                // The timeline keeps an attempt's failure as text: the call's reason stands for it.
                let failure = event.kind == .attemptFailed ? timeline.failure ?? .other : nil
                var attempt = CallOutcome.Attempt(
                    duration: event.instant - begun, statusCode: event.statusCode, failure: failure)
                attempt.httpVersion = event.httpVersion
                attempts.append(attempt)
            default:
                continue
            }
        }
        return attempts
    }

    fileprivate func record(
        _ request: APIRequest, in series: MetricSeries, duration: Duration?, status: Int?,
        failure: APIError.Reason?, received: Int?, attempts: [CallOutcome.Attempt], wasActive: Bool
    ) {
        if wasActive { series.active.decrement() }
        let sent = request.body.count
        let errorType = failure.map { Self.errorType($0, statusCode: status) }
        for attempt in attempts {
            let attemptError = attempt.failure.map { Self.errorType($0, statusCode: attempt.statusCode) }
            // A status the call does not accept is the call's failure, not the attempt's: OpenTelemetry's error.type
            // of a request is its status code from 400 on.
            let type = attemptError ?? (attempt.statusCode.map { $0 >= 400 ? "\($0)" : nil } ?? nil)
            series.handles(status: attempt.statusCode, errorType: type, version: attempt.httpVersion, needs: .attempt)
                .requestDuration?
                .recordNanoseconds(Self.nanoseconds(attempt.duration))
        }
        let handles = series.handles(
            status: status, errorType: errorType,
            needs: MetricSeries.Needs(call: duration != nil, requestSize: sent != nil, responseSize: received != nil))
        if let duration { handles.callDuration?.recordNanoseconds(Self.nanoseconds(duration)) }
        if let sent { handles.requestSize?.record(sent) }
        if let received { handles.responseSize?.record(received) }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    fileprivate func factory() -> any MetricsFactory { chosenFactory ?? MetricsSystem.factory }

    /// `http.request.method`, `server.address` and `server.port` of the call.
    static func server(of request: APIRequest) -> [(String, String)] {
        let url = request.url
        var dimensions = [("http.request.method", request.method.rawValue)]
        if let host = url.host { dimensions.append(("server.address", host)) }
        if let port = url.port ?? defaultPort(of: url.scheme) { dimensions.append(("server.port", "\(port)")) }
        return dimensions
    }

    /// The port a URL without one uses.
    static func defaultPort(of scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "https": 443
        case "http": 80
        default: nil
        }
    }

    /// A short, low-cardinality name for a failure: the status code, or its category.
    static func errorType(_ reason: APIError.Reason, statusCode: Int?) -> String {
        if reason.statusCategory != nil { return statusCode.map { "\($0)" } ?? "_OTHER" }
        if let problem = reason.transportProblem {
            switch problem {
            case .timedOut: return "timeout"
            case .cannotConnect: return "cannot_connect"
            case .offline: return "offline"
            case .cancelled: return "cancelled"
            case .connectionLost: return "connection_lost"
            case .secureConnectionFailed: return "tls_failed"
            case .responseTooLarge: return "response_too_large"
            case .proxyAuthenticationRequired: return "proxy_authentication_required"
            default: return problem.redirectRefusal != nil ? "redirect_refused" : "_OTHER"
            }
        }
        if reason == .decodingFailed { return "decoding_failed" }
        if reason.serviceRejection != nil { return "rejected_by_service" }
        if reason.requestProblem != nil { return "invalid_request" }
        if reason == .notCached { return "not_cached" }
        return "_OTHER"
    }
}

// Calls tell `.metrics()` their start and end without a timeline: a few thousand instructions, not tens of thousands.
@_spi(CourierInternals)
extension MetricsObserver: CallOutcomeObserver {
    /// Counts the call as active; returns its series, for ``callEnded(_:outcome:context:)``.
    public func callStarted(_ request: APIRequest) -> (any AnyObject & Sendable)? {
        let series = cache.series(of: request, factory: factory())
        series.active.increment()
        return series
    }

    /// Counts the call as no longer active; records its duration and sizes.
    public func callEnded(_ request: APIRequest, outcome: CallOutcome, context: (any AnyObject & Sendable)?) {
        record(
            request, in: context as? MetricSeries ?? cache.series(of: request, factory: factory()),
            duration: outcome.duration, status: outcome.statusCode, failure: outcome.failure,
            received: outcome.responseBytes, attempts: outcome.attempts, wasActive: true)
    }

    /// Records the size of a streamed body, read to its end (or as far as its reader went).
    public func callBodyEnded(bytes: Int, statusCode: Int?, context: (any AnyObject & Sendable)?) {
        (context as? MetricSeries)?.bodyEnded(bytes: bytes, status: statusCode, errorType: nil)
    }
}

extension CallObserver where Self == MetricsObserver {
    /// Records every call in swift-metrics with the OpenTelemetry HTTP client names; see ``MetricsObserver``.
    public static func metrics(factory: (any MetricsFactory)? = nil) -> MetricsObserver {
        MetricsObserver(factory: factory)
    }
}

/// The metrics objects of each series, made once: formatting dimensions and asking the factory at every call would
/// cost more than the rest of the call.
final class MetricSeriesCache: Sendable {
    /// What identifies a series before its dimensions are known: the method, the declared path (its template is
    /// worked out once, for the series) and the URL's origin (`scheme://authority`, a slice of the URL's text:
    /// nothing is formatted to look it up).
    struct Key: Hashable {
        let method: String
        let path: String
        let origin: Substring
    }

    private struct State {
        /// The factory's type: swift-metrics bootstraps once, so a new type is a bootstrap after the first call
        /// (from the no-op factory); a metatype compares without a dynamic cast.
        var factory: ObjectIdentifier?
        var series: [Key: MetricSeries] = [:]
        /// The last series used, and its key (compared in place, not copied): calls in a row to one endpoint skip
        /// the hashing.
        var last = Key(method: "", path: "", origin: "")
        var lastSeries: MetricSeries?
    }

    private let state = Locked(State())

    /// The series of `request`'s call on `factory`; all are made again when the factory changes.
    func series(of request: APIRequest, factory: any MetricsFactory) -> MetricSeries {
        let identity = ObjectIdentifier(type(of: factory))
        let text = request.url.absoluteString
        let method = request.method.rawValue
        let path = request.endpoint.path
        return state.withLockedValue { state in
            if state.factory != identity {
                state = State(factory: identity)
            } else if let series = state.lastSeries, state.last.method == method, state.last.path == path,
                Self.origin(of: text, is: state.last.origin)
            {
                return series
            }
            let key = Key(method: method, path: path, origin: Self.origin(of: text))
            let series: MetricSeries
            if let known = state.series[key] {
                series = known
            } else {
                series = MetricSeries(request: request, factory: factory)
                state.series[key] = series
            }
            state.last = key
            state.lastSeries = series
            return series
        }
    }

    /// Whether the URL `text` has `origin`: it starts with it, and it ends there or a path, query or fragment
    /// follows (cheaper than finding the URL's origin to compare it).
    static func origin(of text: String, is origin: Substring) -> Bool {
        var text = text
        var origin = origin
        return text.withUTF8 { text in
            origin.withUTF8 { origin in
                guard text.count >= origin.count, let start = text.baseAddress, let prefix = origin.baseAddress,
                    memcmp(start, prefix, origin.count) == 0
                else { return false }
                return text.count == origin.count || endsAuthority(text[origin.count])
            }
        }
    }

    /// Whether `byte` ends a URL's authority: a path, query or fragment starts.
    static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// `scheme://authority` of a URL's text: up to the first `/`, `?` or `#` after `://`.
    static func origin(of text: String) -> Substring {
        let end = text.utf8.withContiguousStorageIfAvailable { bytes -> Int in
            var slashes = 0
            for offset in bytes.indices {
                let byte = bytes[offset]
                if slashes == 2 {
                    if endsAuthority(byte) { return offset }
                } else if byte == UInt8(ascii: "/") {
                    slashes += 1
                }
            }
            return bytes.count
        }
        // A bridged string without contiguous UTF-8 (not on Linux; rare on Apple platforms): the URL's own parse.
        guard let end else { return Substring(text) }
        return Substring(text.utf8.prefix(end))
    }
}

/// The metrics of one endpoint on one origin: the active-requests meter, and the duration and sizes of each outcome.
final class MetricSeries: Sendable {
    /// The outcome a duration is recorded under.
    struct Outcome: Hashable {
        let status: Int?
        let errorType: String?
        /// The HTTP version of an attempt's response (`network.protocol.version`); `nil` for a call's metrics.
        var version: String? = nil
    }

    /// The metrics of one outcome; each is made when a call or an attempt first needs it (a series no call recorded
    /// into would show as a zero).
    struct Handles: Sendable {
        var requestDuration: CoreMetrics.Timer?
        var callDuration: CoreMetrics.Timer?
        var requestSize: Recorder?
        var responseSize: Recorder?

        /// Whether these have each metric `needs` asks for.
        func covers(_ needs: Needs) -> Bool {
            (!needs.attempt || requestDuration != nil) && (!needs.call || callDuration != nil)
                && (!needs.requestSize || requestSize != nil) && (!needs.responseSize || responseSize != nil)
        }
    }

    /// Which metrics of an outcome a record needs.
    struct Needs {
        var attempt = false
        var call = false
        var requestSize = false
        var responseSize = false

        static let attempt = Needs(attempt: true)
        static let responseSize = Needs(responseSize: true)
    }

    let active: Meter
    private let dimensions: [(String, String)]
    private let factory: any MetricsFactory
    private let outcomes = Locked(Outcomes())

    /// The handles of each outcome seen, and of the last one: calls in a row to one endpoint mostly end alike,
    /// and comparing an outcome costs less than hashing it.
    private struct Outcomes {
        var all: [Outcome: Handles] = [:]
        var last: (outcome: Outcome, handles: Handles)?
    }

    init(request: APIRequest, factory: any MetricsFactory) {
        let server = MetricsObserver.server(of: request)
        self.active = Meter(label: "http.client.active_requests", dimensions: server, factory: factory)
        self.dimensions = server + [("url.template", request.endpoint.template)]
        self.factory = factory
    }

    /// The metrics of a call or an attempt that ended with `status` (when a response arrived) and `errorType`
    /// (when it failed), with those `needs` asks for.
    func handles(status: Int?, errorType: String?, version: String? = nil, needs: Needs) -> Handles {
        let outcome = Outcome(status: status, errorType: errorType, version: version)
        return outcomes.withLockedValue { outcomes in
            if let last = outcomes.last, last.outcome == outcome, last.handles.covers(needs) { return last.handles }
            let handles = made(outcome, known: outcomes.all[outcome], needs: needs)
            outcomes.all[outcome] = handles
            outcomes.last = (outcome, handles)
            return handles
        }
    }

    /// Records the size of a streamed body of a call that ended with `status`.
    func bodyEnded(bytes: Int, status: Int?, errorType: String?) {
        handles(status: status, errorType: errorType, needs: .responseSize).responseSize?.record(bytes)
    }

    /// `known` (the outcome's handles so far), or new ones, with the metrics `needs` asks for.
    private func made(_ outcome: Outcome, known: Handles?, needs: Needs) -> Handles {
        if let known, known.covers(needs) { return known }
        var dimensions = self.dimensions
        if let status = outcome.status { dimensions.append(("http.response.status_code", "\(status)")) }
        if let errorType = outcome.errorType { dimensions.append(("error.type", errorType)) }
        if let version = outcome.version { dimensions.append(("network.protocol.version", version)) }
        var handles = known ?? Handles()
        if needs.attempt, handles.requestDuration == nil {
            handles.requestDuration = CoreMetrics.Timer(
                label: "http.client.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds,
                factory: factory)
        }
        if needs.call, handles.callDuration == nil {
            handles.callDuration = CoreMetrics.Timer(
                label: "courier.call.duration", dimensions: dimensions, preferredDisplayUnit: .seconds,
                factory: factory)
        }
        if needs.requestSize, handles.requestSize == nil {
            handles.requestSize = Recorder(
                label: "http.client.request.body.size", dimensions: dimensions, factory: factory)
        }
        if needs.responseSize, handles.responseSize == nil {
            handles.responseSize = Recorder(
                label: "http.client.response.body.size", dimensions: dimensions, factory: factory)
        }
        return handles
    }
}
