import CoreMetrics
import Courier
import Foundation

/// Records a ``Courier/TrafficGovernor``'s events in swift-metrics, named in the style of OpenTelemetry's
/// conventions:
///
/// | Metric | Kind | Unit | Dimensions |
/// |---|---|---|---|
/// | `courier.governor.circuit.state` | gauge | 0 closed, 1 half-open, 2 open | `server.address`, `server.port` |
/// | `courier.governor.refusals` | counter | calls | `server.address`, `server.port`, `courier.governor.refusal` |
/// | `courier.governor.pauses` | counter | pauses | `server.address`, `server.port` |
///
/// `courier.governor.refusal` is `circuit_open` or `concurrency_limit` for a call refused unsent, `retry_budget`
/// for a retry the budget did not allow. The gauge changes with the breaker (an origin whose breaker never changed
/// has no series yet: read none as closed). Each series is made once and kept.
///
/// ```swift
/// let metrics = GovernorMetrics()                      // the bootstrapped MetricsSystem
/// let upstream = TrafficGovernor(onEvent: metrics.record)
/// ```
public struct GovernorMetrics: Sendable {
    private let chosenFactory: (any MetricsFactory)?
    private let series = Locked<[SeriesKey: Series]>([:])

    /// Records with `factory`, or with the bootstrapped `MetricsSystem.factory` when `nil` (read at each event).
    public init(factory: (any MetricsFactory)? = nil) {
        self.chosenFactory = factory
    }

    /// Records `event`: a change of the breaker in the gauge, a refusal or a pause in its counter.
    public func record(_ event: TrafficGovernor.Event) {
        switch event.kind {
        case .circuitClosed: gauge(of: event).record(0)
        case .circuitHalfOpened: gauge(of: event).record(1)
        case .circuitOpened: gauge(of: event).record(2)
        case .refused: counter(Self.refusals, of: event, refusal: Self.name(of: event.refusal)).increment()
        case .retryRefused: counter(Self.refusals, of: event, refusal: "retry_budget").increment()
        case .paused: counter("courier.governor.pauses", of: event).increment()
        default: break
        }
    }

    private static let refusals = "courier.governor.refusals"

    /// The value of `courier.governor.refusal` for a refusal.
    static func name(of refusal: GovernorRefusal?) -> String {
        switch refusal {
        case .circuitOpen?: "circuit_open"
        case .concurrencyLimit?: "concurrency_limit"
        default: "_OTHER"
        }
    }

    private struct SeriesKey: Hashable {
        let label: String
        let origin: String
        let refusal: String?
    }

    private enum Series {
        case gauge(Gauge)
        case counter(Counter)
    }

    private func dimensions(of event: TrafficGovernor.Event, refusal: String?) -> [(String, String)] {
        var dimensions = [("server.address", event.host)]
        if let port = event.port { dimensions.append(("server.port", "\(port)")) }
        if let refusal { dimensions.append(("courier.governor.refusal", refusal)) }
        return dimensions
    }

    private func gauge(of event: TrafficGovernor.Event) -> Gauge {
        let key = SeriesKey(label: "courier.governor.circuit.state", origin: event.origin, refusal: nil)
        return series.withLockedValue { series in
            if case .gauge(let gauge)? = series[key] { return gauge }
            let gauge = Gauge(label: key.label, dimensions: dimensions(of: event, refusal: nil), factory: factory)
            series[key] = .gauge(gauge)
            return gauge
        }
    }

    private func counter(_ label: String, of event: TrafficGovernor.Event, refusal: String? = nil) -> Counter {
        let key = SeriesKey(label: label, origin: event.origin, refusal: refusal)
        return series.withLockedValue { series in
            if case .counter(let counter)? = series[key] { return counter }
            let counter = Counter(label: label, dimensions: dimensions(of: event, refusal: refusal), factory: factory)
            series[key] = .counter(counter)
            return counter
        }
    }

    private var factory: any MetricsFactory { chosenFactory ?? MetricsSystem.factory }
}
