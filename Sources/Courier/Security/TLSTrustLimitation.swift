/// Why an executor refused a call before any I/O: it cannot honour its ``TLSTrust`` for the call. The
/// ``APIError/underlyingError`` of such an ``APIError/TransportProblem/unsupportedByExecutor`` error.
@_spi(CourierInternals)
public struct TLSTrustLimitation: Error, Sendable, Hashable, CustomStringConvertible {
    /// The executor's type name.
    public let executor: String
    /// What it cannot honour, and why.
    public let reason: String
    /// What to do instead.
    public let advice: String

    /// The error of `executor`, which cannot honour `reason`; `advice` names what can.
    public init(executor: String, reason: String, advice: String) {
        self.executor = executor
        self.reason = reason
        self.advice = advice
    }

    /// The executor, what it cannot honour, and the advice.
    public var description: String {
        "\(executor) cannot honour the TLS trust: \(reason); \(advice)"
    }
}
