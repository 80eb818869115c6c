/// Records one call's ``CallTimeline`` and tells the configuration's observers each event; tells the outcome
/// observers (`CallOutcomeObserver`) its start and end.
///
/// A call made with observers carries its recorder on its request (`APIRequest.recorder`), so every layer that
/// sees the request — the pipeline, the plugins, the cache, the executor — records what it knows with one
/// `request.recorder?` test; a call without observers has none and records nothing. A call whose observers all
/// want only the outcome has a recorder without a timeline: its events cost one test each.
final class CallRecorder: Sendable {
    private let observers: [any CallObserver]
    private let outcomeObservers: [any CallOutcomeObserver]
    /// What the first outcome observer returned when the call started, and what the others did (an array only
    /// for two or more: one observer, `.metrics()`, is the usual case).
    private let context: (any AnyObject & Sendable)?
    private let otherContexts: [(any AnyObject & Sendable)?]
    /// The timeline so far; `nil` when no observer wants the events (nor a plugin the timeline).
    private let state: LockedBox<CallTimeline>?
    /// When the call started: its outcome's duration is counted from here.
    private let start: ContinuousClock.Instant

    /// A recorder for `request`'s call that started at `start` (before its request was built); the outcome
    /// observers are told that it started.
    init(
        request: borrowing APIRequest, observers: [any CallObserver], outcomeObservers: [any CallOutcomeObserver],
        start: ContinuousClock.Instant
    ) {
        self.observers = observers
        self.outcomeObservers = outcomeObservers
        self.start = start
        if observers.isEmpty {
            state = nil
        } else {
            state = Self.timeline(of: request)
        }
        var contexts: [(any AnyObject & Sendable)?] = []
        var first: (any AnyObject & Sendable)? = nil
        for (index, observer) in outcomeObservers.enumerated() {
            let context = observer.callStarted(request)
            if index == 0 { first = context } else { contexts.append(context) }
        }
        context = first
        otherContexts = contexts
        guard state != nil else { return }
        record(.started, at: start)
        record(.built)
    }

    /// A recorder for a call that starts recording half-way (a plugin asked): it has neither event, and no
    /// observer.
    init(halfWay request: APIRequest) {
        observers = []
        outcomeObservers = []
        context = nil
        otherContexts = []
        start = .now
        state = Self.timeline(of: request)
    }

    /// The box of a new timeline of `request`.
    private static func timeline(of request: borrowing APIRequest) -> LockedBox<CallTimeline> {
        var request = copy request
        request.recorder = nil  // the timeline keeps the request; the request must not keep the timeline
        return LockedBox(CallTimeline(request: request))
    }

    /// The timeline so far; `nil` when the call records none (its observers want only its outcome).
    var timeline: CallTimeline? { state?.value }

    /// Whether the call records its events: test it before working out an event's details.
    var recordsEvents: Bool { state != nil }

    /// Records an event of the current attempt (a new one for ``CallTimeline/Event/Kind/attemptStarted``) and
    /// tells the observers; nothing when the call records no events.
    func record(
        _ kind: CallTimeline.Event.Kind, statusCode: Int? = nil, bytes: Int? = nil, delay: Duration? = nil,
        detail: String? = nil
    ) {
        guard state != nil else { return }
        record(kind, at: .now, statusCode: statusCode, bytes: bytes, delay: delay, detail: detail)
    }

    /// Records an event that happened at `instant`.
    private func record(
        _ kind: CallTimeline.Event.Kind, at instant: ContinuousClock.Instant, statusCode: Int? = nil,
        bytes: Int? = nil, delay: Duration? = nil, detail: String? = nil, failure: APIError.Reason? = nil
    ) {
        guard let state else { return }
        let (event, snapshot) = state.withLock { timeline in
            var attempt = timeline.events.last?.attempt ?? 0
            if kind == .attemptStarted { attempt += 1 }
            let event = CallTimeline.Event(
                kind, at: instant, attempt: attempt, statusCode: statusCode, bytes: bytes, delay: delay,
                detail: detail)
            timeline.events.append(event)
            if let failure { timeline.failure = failure }
            return (event, timeline)
        }
        for observer in observers { observer.observe(event, in: snapshot) }
    }

    /// Records the end of the call with `request` (the one its call form made) with `response`.
    func finish(_ response: APIResponse, request: APIRequest, detail: String? = nil) {
        end(request, statusCode: response.statusCode, body: response.body, detail: detail, failure: nil)
    }

    /// Records the decoding of `response` and the end of the call with `request`.
    func decoded(_ response: APIResponse, request: APIRequest) {
        record(.decoded)
        finish(response, request: request)
    }

    /// Records the end of the call with `request` that failed with `error`, and returns the error carrying this
    /// recorder.
    func finished(_ error: APIError, request: APIRequest) -> APIError {
        end(
            request, statusCode: error.statusCode, body: error.response?.body,
            detail: state == nil ? nil : "\(error.reason)", failure: error.reason)
        var error = error
        error.recorder = self
        return error
    }

    /// Records the `finished` event (when the call records events) and tells the outcome observers how it ended.
    private func end(
        _ request: APIRequest, statusCode: Int?, body: ResponseBody?, detail: String?, failure: APIError.Reason?
    ) {
        let now = ContinuousClock.now
        record(.finished, at: now, statusCode: statusCode, detail: detail, failure: failure)
        if outcomeObservers.isEmpty { return }
        let outcome = CallOutcome(
            duration: now - start, statusCode: statusCode, failure: failure, responseBytes: body?.data?.count)
        for (index, observer) in outcomeObservers.enumerated() {
            observer.callEnded(request, outcome: outcome, context: index == 0 ? context : otherContexts[index - 1])
        }
    }

    /// Records the end of an attempt with `response` (without wrapping it in a `Result`: a copy).
    func received(_ response: APIResponse) {
        record(.responseReceived, statusCode: response.statusCode, bytes: response.body.data?.count)
    }

    /// Records the end of an attempt through the transport.
    func attemptEnded(_ result: Result<APIResponse, any Error>, request: APIRequest) {
        guard recordsEvents else { return }
        switch result {
        case .success(let response): received(response)
        case .failure(let error):
            let reason = APIError.wrapping(error, request: request).reason
            record(.attemptFailed, detail: "\(reason)")
        }
    }
}

extension CallRecorder {
    /// A recorder for a call made with `configuration`, or `nil` when it has no observers (the usual case: one
    /// test of an empty array).
    static func make(
        for request: APIRequest, configuration: APIConfiguration, start: ContinuousClock.Instant
    ) -> CallRecorder? {
        if configuration.observers.isEmpty { return nil }
        return CallRecorder(
            request: request, observers: configuration.eventObservers,
            outcomeObservers: configuration.outcomeObservers, start: start)
    }
}
