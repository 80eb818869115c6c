/// Two counts over the last `window` of time, kept in `slots` equal slots: what the circuit breaker (successes and
/// failures) and the retry budget (requests and retries) of a traffic governor decide on.
///
/// Time is a `Duration` since the governor started, so that a test drives it without a clock. A count older than
/// `window` (by up to one slot's width) no longer counts.
struct SlidingWindow: Sendable, Equatable {
    /// The two counts of a slot, or of the whole window.
    struct Counts: Sendable, Equatable {
        var first = 0
        var second = 0

        var total: Int { first + second }
    }

    /// The span of time counted.
    let window: Duration
    /// A slot's width in nanoseconds (at least 1).
    private let width: Int64
    /// The slot number of each slot's counts (`slot % slots.count` is its index), and the counts.
    private var slots: [(number: Int64, counts: Counts)]

    /// A window of `window`, counted in `slots` slots (at least one).
    init(window: Duration, slots: Int = 10) {
        let count = Swift.max(1, slots)
        self.window = window
        self.width = Swift.max(1, (window / count).clampedNanoseconds)
        self.slots = Array(repeating: (number: -1, counts: Counts()), count: count)
    }

    static func == (lhs: SlidingWindow, rhs: SlidingWindow) -> Bool {
        lhs.window == rhs.window && lhs.slots.count == rhs.slots.count
            && zip(lhs.slots, rhs.slots).allSatisfy { $0.number == $1.number && $0.counts == $1.counts }
    }

    /// The number of the slot that `now` falls in (rounded down; far inside Int64's range, so that arithmetic on
    /// slot numbers cannot overflow).
    private func number(at now: Duration) -> Int64 {
        let nanoseconds = now.clampedNanoseconds
        let slot = nanoseconds / width
        return nanoseconds < 0 && nanoseconds % width != 0 ? slot - 1 : slot
    }

    /// Adds one to the first count (`first`) or the second.
    mutating func add(first: Bool, at now: Duration) {
        let current = number(at: now)
        let index = Int(current.magnitude % UInt64(slots.count))
        if slots[index].number != current { slots[index] = (current, Counts()) }
        if first { slots[index].counts.first += 1 } else { slots[index].counts.second += 1 }
    }

    /// The counts of the slots within the window at `now`.
    func counts(at now: Duration) -> Counts {
        let current = number(at: now)
        let oldest = current - Int64(slots.count) + 1
        var counts = Counts()
        for slot in slots where slot.number >= oldest && slot.number <= current {
            counts.first += slot.counts.first
            counts.second += slot.counts.second
        }
        return counts
    }

    /// Forgets every count.
    mutating func reset() {
        for index in slots.indices { slots[index] = (-1, Counts()) }
    }
}

extension Duration {
    /// The duration in whole nanoseconds (rounded towards zero), clamped to ±2⁶² so that sums of two stay in range.
    var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let limit: Int64 = 1 << 62
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, (-limit...limit).contains(whole) else { return seconds < 0 ? -limit : limit }
        return Swift.min(Swift.max(whole + attoseconds / 1_000_000_000, -limit), limit)
    }
}
