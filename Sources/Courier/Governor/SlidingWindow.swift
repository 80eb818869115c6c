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
    private let width: Duration
    /// The slot number of each slot's counts (`slot % slots.count` is its index), and the counts.
    private var slots: [(number: Int64, counts: Counts)]

    /// A window of `window`, counted in `slots` slots (at least one).
    init(window: Duration, slots: Int = 10) {
        let count = Swift.max(1, slots)
        self.window = window
        self.width = window / count
        self.slots = Array(repeating: (number: -1, counts: Counts()), count: count)
    }

    static func == (lhs: SlidingWindow, rhs: SlidingWindow) -> Bool {
        lhs.window == rhs.window && lhs.slots.count == rhs.slots.count
            && zip(lhs.slots, rhs.slots).allSatisfy { $0.number == $1.number && $0.counts == $1.counts }
    }

    /// The number of the slot that `now` falls in.
    private func number(at now: Duration) -> Int64 {
        guard width > .zero else { return 0 }
        // Clamped far inside Int64's range, so that arithmetic on slot numbers cannot overflow.
        let slot = ((now / width).rounded(.down)).clamped(to: -4e18...4e18)
        return slot.isFinite ? Int64(slot) : 0
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

extension Double {
    /// The value within `range` (a NaN stays NaN).
    fileprivate func clamped(to range: ClosedRange<Double>) -> Double {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
