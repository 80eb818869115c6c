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
///   limit's `maxWait` and its call's deadline, or fails with ``GovernorRefusal/concurrencyLimit``.
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
        self.now = now ?? { .nanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds)) }
    }

    /// Sends one attempt when the origin's governors let it go, and counts how it ended.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        let origin = Origin(request.url)
        countCall(to: origin)
        try await waitOutPause(of: origin, request)
        let admission = try admit(request, to: origin)
        let slot: Bool
        do {
            slot = try await acquireSlot(of: origin, request)
        } catch {
            settle(origin, admission, .abandoned, request)
            throw error
        }
        let outcome: Result<APIResponse, any Error>
        do {
            outcome = .success(try await next(request))
        } catch {
            outcome = .failure(error)
        }
        if slot { releaseSlot(of: origin) }
        settle(origin, admission, judge(outcome, of: request), request)
        if case .success(let response) = outcome { pauseIfAsked(by: response, origin: origin, request) }
        return try outcome.get()
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

    /// Counts the call's first attempt in the origin's retry budget, the first time this governor sees the call,
    /// and registers the budget with the call's retry plugin.
    private func countCall(to origin: Origin) {
        guard retryBudget != nil else { return }
        if let gate = RetryGate.current {
            let first = gate.register(ObjectIdentifier(self)) { [weak self] request in
                guard let self else { return true }
                let now = self.now()
                guard self.withOrigin(origin, { $0.budget?.requested(.retry, at: now) ?? .go }) == .refuse else {
                    return true
                }
                self.report(Event(.retryRefused, at: origin), request)
                return false
            }
            guard first else { return }
        }
        let now = now()
        _ = withOrigin(origin) { $0.budget?.requested(.first, at: now) }
    }

    /// Waits while a shared `Retry-After` pauses the origin; throws `timedOut` when the call's deadline is sooner.
    private func waitOutPause(of origin: Origin, _ request: APIRequest) async throws(APIError) {
        guard sharesRetryAfter else { return }
        let now = now()
        guard case .wait(let wait) = withOrigin(origin, { $0.pause.admit(at: now) }) else { return }
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

    /// Asks the origin's breaker; throws `circuitOpen` when it refuses.
    private func admit(_ request: APIRequest, to origin: Origin) throws(APIError) -> CircuitBreakerMachine.Admission {
        guard circuitBreaker != nil else { return .go }
        let now = now()
        let action = withOrigin(origin) { $0.breaker?.admit(at: now) } ?? .init(admission: .go)
        if let change = action.change { record(change, of: origin, request) }
        guard case .refuse(let retryAfter) = action.admission else { return action.admission }
        report(Event(.refused, at: origin, refusal: .circuitOpen, delay: retryAfter), request)
        throw APIError(.governorRefused(.circuitOpen), endpoint: request.endpoint, request: request)
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

    /// How an attempt's outcome counts for the breaker.
    private func judge(
        _ outcome: Result<APIResponse, any Error>, of request: APIRequest
    )
        -> CircuitBreakerMachine.Outcome
    {
        guard let circuitBreaker else { return .abandoned }
        switch outcome {
        case .success(let response):
            return circuitBreaker.statusCodes.contains(response.statusCode) ? .failed : .succeeded
        case .failure(let error):
            guard let problem = APIError.wrapping(error, request: request).reason.transportProblem,
                circuitBreaker.transportProblems.contains(problem)
            else { return .abandoned }
            return .failed
        }
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
