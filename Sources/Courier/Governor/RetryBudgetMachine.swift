/// The retry budget of one origin (Finagle's shape): over the window, retries may be `share` of the first
/// attempts, or `minimumPerSecond` a second when that is more, so that calls that all fail send at most
/// (1 + share) times their requests on a busy origin and a quiet one can still be retried.
///
/// A value changed only by events, each returning what to do; time is a `Duration` since the governor started.
struct RetryBudgetMachine: Sendable, Equatable {
    /// How many retries the budget allows.
    typealias Settings = TrafficGovernor.RetryBudget

    /// Which attempt of a call asks to go.
    enum Attempt: Sendable, Equatable {
        case first, retry
    }

    /// Whether an attempt may go.
    enum Decision: Sendable, Equatable {
        /// It goes, counted.
        case go
        /// The budget is spent: the failure before it is returned as it is.
        case refuse
    }

    let settings: Settings
    /// The retries the window allows however few the calls.
    private let floor: Double
    /// First attempts (first) and retries (second).
    private var attempts: SlidingWindow

    init(settings: Settings = Settings()) {
        self.settings = settings
        self.floor = settings.minimumPerSecond * (settings.window / .seconds(1))
        self.attempts = SlidingWindow(window: settings.window)
    }

    /// The retries the window allows at `now`.
    func allowed(at now: Duration) -> Double {
        allowed(attempts.counts(at: now))
    }

    private func allowed(_ counts: SlidingWindow.Counts) -> Double {
        Swift.max(settings.share * Double(counts.first), floor)
    }

    /// An attempt asks to go at `now`: a first attempt always goes; a retry while the budget allows it.
    mutating func requested(_ attempt: Attempt, at now: Duration) -> Decision {
        switch attempt {
        case .first:
            attempts.add(first: true, at: now)
            return .go
        case .retry:
            let counts = attempts.counts(at: now)
            guard Double(counts.second) + 1 <= allowed(counts) else { return .refuse }
            attempts.add(first: false, at: now)
            return .go
        }
    }
}
