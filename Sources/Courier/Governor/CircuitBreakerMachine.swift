/// The circuit breaker of one origin: it opens when too many of the recent calls failed, refuses calls while open,
/// lets probes through after a cool-down and closes when they succeed.
///
/// ```
///            failure rate ≥ threshold over the window (with enough calls)
///   closed ──────────────────────────────────────────────────────────────► open
///     ▲                                                                     │ cool-down passed
///     │ `probes` probes succeeded          a probe failed: open again       ▼
///     └──────────────────────────────────── halfOpen ◄──────────────────────┘
/// ```
///
/// A value changed only by events (a call asks to go, a call ended), each returning what to do; time is a
/// `Duration` since the governor started. It knows no clocks or locks.
struct CircuitBreakerMachine: Sendable, Equatable {
    /// When the breaker opens and for how long, and what counts as a failure (the governor's rule).
    typealias Settings = TrafficGovernor.CircuitBreaker

    /// The breaker's state.
    enum State: Sendable, Equatable {
        /// Calls go; their outcomes are counted.
        case closed
        /// Calls are refused until `until`.
        case open(until: Duration)
        /// One probe at a time goes (`probing`); `succeeded` of them have.
        case halfOpen(probing: Bool, succeeded: Int)
    }

    /// What a call that asks to go does.
    enum Admission: Sendable, Equatable {
        /// It goes, counted.
        case go
        /// It goes as the probe of a half-open breaker: its outcome decides.
        case probe
        /// It is refused at once; the breaker may let a call through after `retryAfter`.
        case refuse(retryAfter: Duration)
    }

    /// How an admitted call ended.
    enum Outcome: Sendable, Equatable {
        case succeeded
        /// A failure by the governor's rule (transport failures, 5xx and 429 by default).
        case failed
        /// The call went no further than the admission (cancelled or refused by another governor before it was
        /// sent): it counts neither way.
        case abandoned
    }

    /// A change of the breaker's state, for the timeline and the metrics.
    enum Change: Sendable, Equatable {
        case opened, halfOpened, closed
    }

    /// What the breaker did when a call asked to go.
    struct AdmitAction: Sendable, Equatable {
        var admission: Admission
        var change: Change? = nil
    }

    let settings: Settings
    private(set) var state = State.closed
    /// Successes (first) and failures (second) of the calls while closed.
    private var outcomes: SlidingWindow

    init(settings: Settings = Settings()) {
        self.settings = settings
        self.outcomes = SlidingWindow(window: settings.window)
    }

    /// A call asks to go at `now`.
    mutating func admit(at now: Duration) -> AdmitAction {
        switch state {
        case .closed:
            return AdmitAction(admission: .go)
        case .open(let until):
            guard now >= until else { return AdmitAction(admission: .refuse(retryAfter: until - now)) }
            state = .halfOpen(probing: true, succeeded: 0)
            return AdmitAction(admission: .probe, change: .halfOpened)
        case .halfOpen(let probing, let succeeded):
            // One probe at a time; the calls beside it are refused for a cool-down.
            guard !probing else { return AdmitAction(admission: .refuse(retryAfter: settings.coolDown)) }
            state = .halfOpen(probing: true, succeeded: succeeded)
            return AdmitAction(admission: .probe)
        }
    }

    /// A call admitted with `admission` ended at `now` with `outcome`; returns the state change, if any.
    mutating func ended(_ admission: Admission, _ outcome: Outcome, at now: Duration) -> Change? {
        switch (admission, state, outcome) {
        case (_, _, .abandoned):
            if admission == .probe, case .halfOpen(true, let succeeded) = state {
                state = .halfOpen(probing: false, succeeded: succeeded)
            }
            return nil
        case (.go, .closed, _):
            let failed = outcome == .failed
            outcomes.add(first: !failed, at: now)
            let counts = outcomes.counts(at: now)
            guard failed, counts.total >= Swift.max(1, settings.minimumCalls),
                Double(counts.second) >= settings.failureRate * Double(counts.total)
            else { return nil }
            return open(at: now)
        case (.probe, .halfOpen(_, let succeeded), _):
            if outcome == .failed { return open(at: now) }
            guard succeeded + 1 >= settings.probes else {
                state = .halfOpen(probing: false, succeeded: succeeded + 1)
                return nil
            }
            state = .closed
            outcomes.reset()
            return .closed
        default:
            // A call admitted in another state (it went while closed and ended after the breaker opened): its
            // outcome is of a time already judged.
            return nil
        }
    }

    private mutating func open(at now: Duration) -> Change {
        state = .open(until: now + settings.coolDown)
        outcomes.reset()
        return .opened
    }
}
