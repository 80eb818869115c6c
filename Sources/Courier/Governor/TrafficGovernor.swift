import Foundation

/// Keeps the calls to each origin, together, within what the origin can take: a circuit breaker, a retry budget,
/// a concurrency limit and a shared `Retry-After`, each kept per origin (scheme, host and port).
///
/// A plugin that holds state: make one per upstream you protect, and put it in the plugins of every
/// configuration that calls it, right after ``APIPlugin/retry(_:)`` so that it sees each attempt:
///
/// ```swift
/// let upstream = TrafficGovernor(concurrencyLimit: .init(maxCalls: 8, maxWaiting: 64))
/// let configuration = APIConfiguration(baseURL: inventory, plugins: [.retry(), upstream])
/// ```
///
/// For each attempt, in this order:
/// - **Shared `Retry-After`**: after a 429 or 503 with `Retry-After` from the origin (up to 5 minutes), every new
///   attempt to it waits until that time, or fails at once with ``APIError/TransportProblem/timedOut`` when its
///   call's deadline comes sooner.
/// - **Circuit breaker** (``CircuitBreaker``): while open, the attempt fails at once with
///   ``APIError/Reason/governorRefused(_:)`` ``GovernorRefusal/circuitOpen``, nothing sent.
/// - **Concurrency limit** (``ConcurrencyLimit``, none by default): the attempt waits for a slot, within the
///   limit's `maxWait`, or fails with ``GovernorRefusal/concurrencyLimit`` (``APIError/TransportProblem/timedOut``
///   when its call's deadline comes first).
/// - **Retry budget** (``RetryBudget``): a retry that ``RetryPlugin`` would make once the budget is spent is not
///   made; the call ends with the failure or response it had.
///
/// Each wait and refusal, and each change of the breaker, is a ``CallTimeline/Event/Kind/governor`` event of the
/// call's timeline; each refusal, change and pause is also an ``Event`` for the `onEvent` handler (metrics, logs).
public final class TrafficGovernor: APIPlugin {
    /// The circuit breaker's settings; `nil` for none.
    let circuitBreaker: CircuitBreaker?
    /// The retry budget's settings; `nil` for none.
    let retryBudget: RetryBudget?
    /// The concurrency limit's settings; `nil` for none.
    let concurrencyLimit: ConcurrencyLimit?
    /// Whether a `Retry-After` pauses every attempt to its origin.
    let sharesRetryAfter: Bool
    /// Receives every refusal, change of a breaker and pause.
    let onEvent: (@Sendable (Event) -> Void)?

    /// The time since some fixed point.
    let now: @Sendable () -> Duration
    /// Each origin's governors.
    let origins = LockedBox<[Origin: OriginState]>([:])

    /// A governor; `onEvent` receives its ``Event``s (on the thread of the call they happened in: keep it short);
    /// `now` is a monotonic clock (a test's, to drive windows and cool-downs; the system's uptime by default).
    public init(
        circuitBreaker: CircuitBreaker? = CircuitBreaker(),
        retryBudget: RetryBudget? = RetryBudget(),
        concurrencyLimit: ConcurrencyLimit? = nil,
        sharesRetryAfter: Bool = true,
        onEvent: (@Sendable (Event) -> Void)? = nil,
        now: (@Sendable () -> Duration)? = nil
    ) {
        self.circuitBreaker = circuitBreaker
        self.retryBudget = retryBudget
        self.concurrencyLimit = concurrencyLimit
        self.sharesRetryAfter = sharesRetryAfter
        self.onEvent = onEvent
        if retryBudget != nil { RetryGate.budgetMade() }
        self.now = now ?? { .nanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds)) }
    }

    /// Sends one attempt when the origin's governors let it go, and counts how it ended.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        let origin = Origin(request.url)
        var entry = enter(origin, countsCall: countsCall(to: origin), checksPause: sharesRetryAfter)
        if case .paused(let wait) = entry {
            try await waitOut(wait, request)
            entry = enter(origin, countsCall: false, checksPause: false)
        }
        let admission = try admission(of: entry, origin, request)
        var slot = false
        if concurrencyLimit != nil {
            do {
                slot = try await acquireSlot(of: origin, request)
            } catch {
                settle(origin, admission, .abandoned, request)
                throw error
            }
        }
        let response: APIResponse
        do {
            response = try await next(request)
        } catch {
            if slot { releaseSlot(of: origin) }
            settle(origin, admission, judge(error, of: request), request)
            throw error
        }
        if slot { releaseSlot(of: origin) }
        settle(origin, admission, judge(response), request)
        pauseIfAsked(by: response, origin: origin, request)
        return response
    }
}

/// The governors of one origin.
struct OriginState: Sendable {
    var breaker: CircuitBreakerMachine?
    var budget: RetryBudgetMachine?
    var limit: ConcurrencyLimitMachine?
    var pause = RetryAfterPauseMachine()
    /// The calls waiting for a slot, by the identifier the limit knows them by.
    var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    var nextWaiter = 0
}

extension TrafficGovernor {
    /// The longest a `Retry-After` pauses an origin.
    static let maxPause = Duration.seconds(300)

    /// Runs `body` on `origin`'s governors, made on first use.
    func withOrigin<Result>(_ origin: Origin, _ body: (inout OriginState) -> Result) -> Result {
        origins.withLock { origins in
            body(&origins[origin, default: makeState()])
        }
    }

    private func makeState() -> OriginState {
        OriginState(
            breaker: circuitBreaker.map { CircuitBreakerMachine(settings: $0) },
            budget: retryBudget.map { RetryBudgetMachine(settings: $0) },
            limit: concurrencyLimit.map { ConcurrencyLimitMachine(limit: $0.maxCalls, queue: $0.maxWaiting) })
    }

    /// What an attempt met on its way in (counted in the retry budget, once per call): a shared `Retry-After` to
    /// wait out, or the breaker's answer.
    private enum Entry {
        case paused(Duration)
        case admitted(CircuitBreakerMachine.AdmitAction)
    }

    /// The breaker's admission of an attempt that met `entry`: records a change of the breaker, and throws
    /// `circuitOpen` when it refuses.
    private func admission(
        of entry: Entry, _ origin: Origin, _ request: APIRequest
    ) throws(APIError)
        -> CircuitBreakerMachine.Admission
    {
        guard case .admitted(let action) = entry else { return .go }
        if let change = action.change { record(change, of: origin, request) }
        guard case .refuse(let retryAfter) = action.admission else { return action.admission }
        report(Event(.refused, at: origin, refusal: .circuitOpen, delay: retryAfter), request)
        throw APIError(.governorRefused(.circuitOpen), endpoint: request.endpoint, request: request)
    }

    /// One look at the origin's state: counts the call's first attempt, checks the pause, asks the breaker.
    private func enter(_ origin: Origin, countsCall: Bool, checksPause: Bool) -> Entry {
        let now = now()
        return withOrigin(origin) { state in
            if countsCall { _ = state.budget?.requested(.first, at: now) }
            if checksPause, case .wait(let wait) = state.pause.admit(at: now) { return .paused(wait) }
            return .admitted(state.breaker?.admit(at: now) ?? .init(admission: .go))
        }
    }

    /// Whether this attempt is the call's first this governor sees, so that it counts in the retry budget; registers
    /// the budget with the call's retry plugin the first time.
    private func countsCall(to origin: Origin) -> Bool {
        guard retryBudget != nil else { return false }
        guard let gate = RetryGate.current else { return true }
        return gate.register(ObjectIdentifier(self)) { [weak self] request in
            guard let self else { return true }
            let now = self.now()
            guard self.withOrigin(origin, { $0.budget?.requested(.retry, at: now) ?? .go }) == .refuse else {
                return true
            }
            self.report(Event(.retryRefused, at: origin), request)
            return false
        }
    }

    /// Waits `wait` of a shared `Retry-After`; throws `timedOut` at once when the call's deadline is sooner.
    private func waitOut(_ wait: Duration, _ request: APIRequest) async throws(APIError) {
        if let left = request.timeLeft, left <= wait {
            request.recorder?.record(.governor, delay: wait, detail: "paused by Retry-After past the deadline")
            throw request.deadlinePassed()
        }
        request.recorder?.record(.governor, delay: wait, detail: "paused by Retry-After")
        do {
            try await Task.sleep(for: wait)
        } catch {
            throw APIError(.transport(.cancelled), endpoint: request.endpoint, request: request, underlyingError: error)
        }
    }

    /// Counts how an admitted attempt ended in the origin's breaker.
    private func settle(
        _ origin: Origin, _ admission: CircuitBreakerMachine.Admission, _ outcome: CircuitBreakerMachine.Outcome,
        _ request: APIRequest
    ) {
        guard circuitBreaker != nil else { return }
        let now = now()
        if let change = withOrigin(origin, { $0.breaker?.ended(admission, outcome, at: now) }) {
            record(change, of: origin, request)
        }
    }

    /// How a response counts for the breaker.
    private func judge(_ response: APIResponse) -> CircuitBreakerMachine.Outcome {
        guard let circuitBreaker else { return .abandoned }
        return circuitBreaker.statusCodes.contains(response.statusCode) ? .failed : .succeeded
    }

    /// How a failed attempt counts for the breaker: a failure when its transport problem is one of the breaker's.
    private func judge(_ error: any Error, of request: APIRequest) -> CircuitBreakerMachine.Outcome {
        guard let circuitBreaker,
            let problem = APIError.wrapping(error, request: request).reason.transportProblem,
            circuitBreaker.transportProblems.contains(problem)
        else { return .abandoned }
        return .failed
    }

    private func record(_ change: CircuitBreakerMachine.Change, of origin: Origin, _ request: APIRequest) {
        let kind: Event.Kind =
            switch change {
            case .opened: .circuitOpened
            case .halfOpened: .circuitHalfOpened
            case .closed: .circuitClosed
            }
        report(Event(kind, at: origin), request)
    }

    /// Hands `event` to the handler and to the timeline of `request`'s call.
    func report(_ event: Event, _ request: APIRequest) {
        request.recorder?.record(.governor, delay: event.delay, detail: event.description)
        onEvent?(event)
    }

    /// Pauses the origin when `response` is a 429 or 503 with a `Retry-After`.
    private func pauseIfAsked(by response: APIResponse, origin: Origin, _ request: APIRequest) {
        guard sharesRetryAfter, response.statusCode == 429 || response.statusCode == 503,
            let header = response.headers[.retryAfter],
            let wait = RetryPolicy(maxDelay: Self.maxPause).delay(retryAfter: header), wait > .zero
        else { return }
        let now = now()
        if case .paused = withOrigin(origin, { $0.pause.received(retryAfter: wait, at: now) }) {
            report(Event(.paused, at: origin, delay: wait), request)
        }
    }
}
