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
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory())   // once, at start-up (swift-prometheus, for one)
/// configuration.observers.append(.metrics())
/// ```
public struct MetricsObserver: CallObserver {
    private let chosenFactory: (any MetricsFactory)?

    /// Records with `factory`, or with the bootstrapped `MetricsSystem.factory` when `nil` (read at every call,
    /// so the observer can be created before the bootstrap).
    public init(factory: (any MetricsFactory)? = nil) {
        self.chosenFactory = factory
    }

    /// Counts the call as active when it starts; records its duration and sizes when it ends.
    public func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
        switch event.kind {
        case .started:
            Meter(label: "http.client.active_requests", dimensions: Self.server(of: timeline), factory: factory())
                .increment()
        case .finished:
            let factory = factory()
            // A call without a start (a plugin asked for its timeline half-way) was never counted as active.
            if timeline.events.first?.kind == .started {
                Meter(label: "http.client.active_requests", dimensions: Self.server(of: timeline), factory: factory)
                    .decrement()
            }
            let dimensions = Self.dimensions(of: timeline)
            if let duration = timeline.duration {
                let (seconds, attoseconds) = duration.components
                Timer(
                    label: "http.client.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds,
                    factory: factory
                ).recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            }
            if let sent = timeline.request.body.count {
                Recorder(label: "http.client.request.body.size", dimensions: dimensions, factory: factory)
                    .record(sent)
            }
            if let received = timeline.events.last(where: { $0.kind == .responseReceived })?.bytes {
                Recorder(label: "http.client.response.body.size", dimensions: dimensions, factory: factory)
                    .record(received)
            }
        default:
            break
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

    /// Every dimension of a finished call.
    static func dimensions(of timeline: CallTimeline) -> [(String, String)] {
        var dimensions = server(of: timeline)
        dimensions.append(("url.template", timeline.request.endpoint.template))
        if let status = timeline.statusCode { dimensions.append(("http.response.status_code", "\(status)")) }
        if let failure = timeline.failure {
            dimensions.append(("error.type", errorType(failure, statusCode: timeline.statusCode)))
        }
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
