/// The shared `Retry-After` of one origin: a 429 or 503 that asks to wait pauses every new attempt to the origin,
/// not only the call that received it, until the time given.
///
/// A value changed only by events, each returning what to do; time is a `Duration` since the governor started.
struct RetryAfterPauseMachine: Sendable, Equatable {
    /// Whether an attempt may go now.
    enum Admission: Sendable, Equatable {
        case go
        /// The origin is paused: the attempt waits `wait` (or fails, if its deadline is sooner).
        case wait(Duration)
    }

    /// What a `Retry-After` did to the pause.
    enum Change: Sendable, Equatable {
        /// The origin is paused until `until` (a later pause than the one before, if any).
        case paused(until: Duration)
        /// A pause at least as long was already on.
        case unchanged
    }

    /// The end of the pause, while one is on or was last.
    private(set) var until: Duration?

    /// An attempt asks to go at `now`.
    func admit(at now: Duration) -> Admission {
        guard let until, now < until else { return .go }
        return .wait(until - now)
    }

    /// A response received at `now` asked to wait `wait` (its `Retry-After`).
    mutating func received(retryAfter wait: Duration, at now: Duration) -> Change {
        let end = now + Swift.max(.zero, wait)
        guard end > now, until.map({ end > $0 }) ?? true else { return .unchanged }
        until = end
        return .paused(until: end)
    }
}
