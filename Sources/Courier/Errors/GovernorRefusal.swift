/// Why a ``TrafficGovernor`` refused a call before sending it.
///
/// A struct with a static member for each refusal, not an enum, so that Courier can add refusals without
/// breaking your code: it matches in a `switch` (end it with `default:`) and with `==`.
public struct GovernorRefusal: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case circuitOpen
        case concurrencyLimit
    }

    let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The origin's circuit breaker is open (too many of its recent calls failed), or half-open with its probe
    /// in flight: nothing was sent.
    public static let circuitOpen = GovernorRefusal(.circuitOpen)
    /// The origin has its most calls in flight and its queue of waiting calls is full, or no slot came free
    /// within the wait allowed: nothing was sent.
    public static let concurrencyLimit = GovernorRefusal(.concurrencyLimit)

    /// A short English description of the refusal.
    public var description: String {
        switch kind {
        case .circuitOpen: "the origin's circuit breaker is open"
        case .concurrencyLimit: "the origin's concurrency limit is reached and no slot came free in time"
        }
    }
}
