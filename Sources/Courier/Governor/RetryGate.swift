/// What a ``RetryPlugin`` asks before each retry of a call: whether the retry budgets of the traffic governors
/// inside it allow one.
///
/// The retry plugin makes one per call and binds it as ``current`` around each attempt; a governor further down
/// the chain registers its origin's budget the first time it sees the call (that attempt counts as the call's
/// first), and the retry plugin asks every registered budget before it waits for a retry.
final class RetryGate: Sendable {
    /// The gate of the call the current task runs, inside a retry plugin.
    @TaskLocal static var current: RetryGate?

    /// A budget's question: may a retry go now (counted if it may)?
    typealias Check = @Sendable () -> Bool

    /// The governors registered (by identity) and their checks.
    private let checks = LockedBox<[(governor: ObjectIdentifier, check: Check)]>([])

    /// Registers `governor`'s `check`; `false` when the governor had registered for this call already.
    func register(_ governor: ObjectIdentifier, check: @escaping Check) -> Bool {
        checks.withLock { checks in
            guard !checks.contains(where: { $0.governor == governor }) else { return false }
            checks.append((governor, check))
            return true
        }
    }

    /// Whether every registered budget allows a retry of `request` now; a refusal is a `governor` event of its
    /// timeline.
    func allowsRetry(of request: APIRequest) -> Bool {
        let checks = checks.value
        guard checks.allSatisfy({ $0.check() }) else {
            request.recorder?.record(.governor, detail: "retry refused: the origin's retry budget is spent")
            return false
        }
        return true
    }
}
