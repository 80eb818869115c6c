import CoreMetrics
@_spi(ExecutorSupport) import Courier
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
/// formats no dimension: with a no-op backend `.metrics()` adds the cost of the call's timeline and two lookups.
///
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory())   // once, at start-up (swift-prometheus, for one)
/// configuration.observers.append(.metrics())
/// ```
public struct MetricsObserver: CallObserver {
    private let chosenFactory: (any MetricsFactory)?
    private let cache = MetricSeriesCache()

    /// Records with `factory`, or with the bootstrapped `MetricsSystem.factory` when `nil` (read at every call,
    /// so the observer can be created before the bootstrap).
    public init(factory: (any MetricsFactory)? = nil) {
        self.chosenFactory = factory
    }

    /// Counts the call as active when it starts; records its duration and sizes when it ends.
    public func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
        let kind = event.kind
        if kind == .started {
            cache.series(of: timeline, factory: factory()).active.increment()
        } else if kind == .finished {
            let series = cache.series(of: timeline, factory: factory())
            // A call without a start (a plugin asked for its timeline half-way) was never counted as active.
            if timeline.events.first?.kind == .started { series.active.decrement() }
            let status = timeline.statusCode
            let sent = timeline.request.body.count
            let received = timeline.events.last(where: { $0.kind == .responseReceived })?.bytes
            let handles = series.handles(
                status: status, errorType: timeline.failure.map { Self.errorType($0, statusCode: status) },
                sizes: (sent != nil, received != nil))
            if let duration = timeline.duration {
                let (seconds, attoseconds) = duration.components
                handles.duration.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            }
            if let sent { handles.requestSize?.record(sent) }
            if let received { handles.responseSize?.record(received) }
        }
    }

    private func factory() -> any MetricsFactory { chosenFactory ?? MetricsSystem.factory }

    /// `http.request.method`, `server.address` and `server.port` of the call.
    static func server(of timeline: CallTimeline) -> [(String, String)] {
        let url = timeline.request.url
        var dimensions = [("http.request.method", timeline.request.method.rawValue)]
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
        /// The last series used: a call's start and end, and calls in a row to one endpoint, skip the hashing.
        var last: (key: Key, series: MetricSeries)?
    }

    private let state = Locked(State())

    /// The series of `timeline`'s call on `factory`; all are made again when the factory changes.
    func series(of timeline: CallTimeline, factory: any MetricsFactory) -> MetricSeries {
        let request = timeline.request
        let key = Key(
            method: request.method.rawValue, path: request.endpoint.path,
            origin: Self.origin(of: request.url.absoluteString))
        let identity = ObjectIdentifier(type(of: factory))
        return state.withLockedValue { state in
            if state.factory != identity {
                state = State(factory: identity)
            } else if let last = state.last, last.key == key {
                return last.series
            }
            let series: MetricSeries
            if let known = state.series[key] {
                series = known
            } else {
                series = MetricSeries(timeline: timeline, factory: factory)
                state.series[key] = series
            }
            state.last = (key, series)
            return series
        }
    }

    /// `scheme://authority` of a URL's text: up to the first `/`, `?` or `#` after `://`.
    static func origin(of text: String) -> Substring {
        let end = text.utf8.withContiguousStorageIfAvailable { bytes -> Int in
            var slashes = 0
            for offset in bytes.indices {
                let byte = bytes[offset]
                if slashes == 2 {
                    if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                        return offset
                    }
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
    }

    let active: Meter
    private let dimensions: [(String, String)]
    private let factory: any MetricsFactory
    private let outcomes = Locked<[Outcome: Handles]>([:])

    init(timeline: CallTimeline, factory: any MetricsFactory) {
        let server = MetricsObserver.server(of: timeline)
        self.active = Meter(label: "http.client.active_requests", dimensions: server, factory: factory)
        self.dimensions = server + [("url.template", timeline.request.endpoint.template)]
        self.factory = factory
    }

    /// The metrics of a call that ended with `status` (when a response arrived) and `errorType` (when it failed),
    /// with the recorders of the sizes it has.
    func handles(status: Int?, errorType: String?, sizes: (request: Bool, response: Bool)) -> Handles {
        let outcome = Outcome(status: status, errorType: errorType)
        return outcomes.withLockedValue { outcomes in
            if let handles = outcomes[outcome], !sizes.request || handles.requestSize != nil,
                !sizes.response || handles.responseSize != nil
            {
                return handles
            }
            var dimensions = self.dimensions
            if let status { dimensions.append(("http.response.status_code", "\(status)")) }
            if let errorType { dimensions.append(("error.type", errorType)) }
            var handles =
                outcomes[outcome]
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
            outcomes[outcome] = handles
            return handles
        }
    }
}
