/// What a ``RetryPlugin`` asks before each retry of a call: whether the retry budgets of the traffic governors
/// inside it allow one.
///
/// The retry plugin makes one per call (once a governor with a budget exists) and binds it as ``current`` around
/// each attempt; a governor further down the chain registers its origin's budget the first time it sees the call
/// (that attempt counts as the call's first), and the retry plugin asks every registered budget before it waits for
/// a retry.
final class RetryGate: Sendable {
    /// The gate of the call the current task runs, inside a retry plugin.
    @TaskLocal static var current: RetryGate?

    /// Whether the program made a governor with a retry budget: until it does, retry plugins make no gate, so that
    /// a call through `.retry()` costs what it did without governors.
    private static let budgetsExist = LockedBox(false)

    /// A gate for a call of a retry plugin; `nil` while no governor with a retry budget exists.
    static func forCall() -> RetryGate? {
        budgetsExist.value ? RetryGate() : nil
    }

    /// Notes that a governor with a retry budget exists: from now on retry plugins make a gate for every call.
    static func budgetMade() {
        budgetsExist.value = true
    }

    /// A budget's question: may a retry of the request go now (counted if it may)? The governor reports a refusal.
    typealias Check = @Sendable (APIRequest) -> Bool

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

    /// Whether every registered budget allows a retry of `request` now.
    func allowsRetry(of request: APIRequest) -> Bool {
        checks.value.allSatisfy { $0.check(request) }
    }
}
