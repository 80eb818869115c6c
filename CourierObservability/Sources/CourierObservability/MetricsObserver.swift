import CoreMetrics
@_spi(CourierInternals) import Courier
import Foundation

/// Records every call in swift-metrics with the OpenTelemetry HTTP client semantic conventions:
///
/// | Metric | Kind | Unit | Dimensions |
/// |---|---|---|---|
/// | `http.client.request.duration` | timer | seconds | all below |
/// | `http.client.request.body.size` | recorder | bytes | all below (when the body's size is known) |
/// | `http.client.response.body.size` | recorder | bytes | all below (for a body in memory) |
/// | `http.client.active_requests` | meter | calls | `http.request.method`, `server.address`, `server.port` |
///
/// Dimensions: `http.request.method`, `server.address`, `server.port`, `url.template` (the endpoint's path
/// template, `/users/{login}`, never a path with its values: the number of series stays bounded),
/// `http.response.status_code` (when a response arrived) and, on failure only, `error.type`: the status code
/// (`404`) or a short category (`timeout`, `cannot_connect`, `offline`, `cancelled`, `connection_lost`,
/// `tls_failed`, `response_too_large`, `redirect_refused`, `decoding_failed`, `rejected_by_service`,
/// `invalid_request`, `not_cached`, `_OTHER`).
///
/// A call is measured from the start of building its request to the end of decoding, retries and redirects
/// included (one duration per call).
///
/// The metrics of each endpoint, origin and outcome are made once and kept (as swift-metrics recommends), so a call
/// formats no dimension; and a call tells this observer only its start and end, recording no timeline for it (unless
/// another observer wants one): with a no-op backend `.metrics()` adds two locked lookups and two clock reads to a call.
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
                wasActive: timeline.events.first?.kind == .started)
        }
    }

    fileprivate func record(
        _ request: APIRequest, in series: MetricSeries, duration: Duration?, status: Int?,
        failure: APIError.Reason?, received: Int?, wasActive: Bool
    ) {
        if wasActive { series.active.decrement() }
        let sent = request.body.count
        let handles = series.handles(
            status: status, errorType: failure.map { Self.errorType($0, statusCode: status) },
            sizes: (sent != nil, received != nil))
        if let duration {
            let (seconds, attoseconds) = duration.components
            handles.duration.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        }
        if let sent { handles.requestSize?.record(sent) }
        if let received { handles.responseSize?.record(received) }
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
            received: outcome.responseBytes, wasActive: true)
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
    }

    /// The metrics of one outcome; a size recorder is made when a call first has that size.
    struct Handles: Sendable {
        let duration: CoreMetrics.Timer
        var requestSize: Recorder?
        var responseSize: Recorder?

        /// Whether these have a recorder for each size `sizes` says a call has.
        func covers(_ sizes: (request: Bool, response: Bool)) -> Bool {
            (!sizes.request || requestSize != nil) && (!sizes.response || responseSize != nil)
        }
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

    /// The metrics of a call that ended with `status` (when a response arrived) and `errorType` (when it failed),
    /// with the recorders of the sizes it has.
    func handles(status: Int?, errorType: String?, sizes: (request: Bool, response: Bool)) -> Handles {
        let outcome = Outcome(status: status, errorType: errorType)
        return outcomes.withLockedValue { outcomes in
            if let last = outcomes.last, last.outcome == outcome, last.handles.covers(sizes) { return last.handles }
            let handles = made(outcome, known: outcomes.all[outcome], sizes: sizes)
            outcomes.all[outcome] = handles
            outcomes.last = (outcome, handles)
            return handles
        }
    }

    /// `known` (the outcome's handles so far), or new ones, with the size recorders `sizes` asks for.
    private func made(_ outcome: Outcome, known: Handles?, sizes: (request: Bool, response: Bool)) -> Handles {
        if let known, known.covers(sizes) { return known }
        var dimensions = self.dimensions
        if let status = outcome.status { dimensions.append(("http.response.status_code", "\(status)")) }
        if let errorType = outcome.errorType { dimensions.append(("error.type", errorType)) }
        var handles =
            known
            ?? Handles(
                duration: CoreMetrics.Timer(
                    label: "http.client.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds,
                    factory: factory))
        if sizes.request, handles.requestSize == nil {
            handles.requestSize = Recorder(
                label: "http.client.request.body.size", dimensions: dimensions, factory: factory)
        }
        if sizes.response, handles.responseSize == nil {
            handles.responseSize = Recorder(
                label: "http.client.response.body.size", dimensions: dimensions, factory: factory)
        }
        return handles
    }
}
