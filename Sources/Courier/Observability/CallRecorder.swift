/// Records one call's ``CallTimeline`` and tells the configuration's observers each event.
///
/// A call made with observers carries its recorder on its request (`APIRequest.recorder`), so every layer that
/// sees the request — the pipeline, the plugins, the cache, the executor — records what it knows with one
/// `request.recorder?` test; a call without observers has none and records nothing.
final class CallRecorder: Sendable {
    private let observers: [any CallObserver]
    private let state: LockedBox<CallTimeline>

    /// A recorder for `request` whose call started at `start` (before its request was built, when known); `nil`
    /// for a call that starts recording half-way (a plugin asked): it has neither event.
    init(request: APIRequest, observers: [any CallObserver], start: ContinuousClock.Instant?) {
        var request = request
        request.recorder = nil  // the timeline keeps the request; the request must not keep the timeline
        self.observers = observers
        state = LockedBox(CallTimeline(request: request))
        guard let start else { return }
        record(.started, at: start)
        record(.built)
    }

    /// The timeline so far.
    var timeline: CallTimeline { state.value }

    /// Records an event of the current attempt (a new one for ``CallTimeline/Event/Kind/attemptStarted``) and
    /// tells the observers.
    func record(
        _ kind: CallTimeline.Event.Kind, at instant: ContinuousClock.Instant = .now, statusCode: Int? = nil,
        bytes: Int? = nil, delay: Duration? = nil, detail: String? = nil, failure: APIError.Reason? = nil
    ) {
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

    /// Records the end of the call: its response, or its error.
    func finish(_ result: Result<APIResponse, APIError>) {
        switch result {
        case .success(let response): record(.finished, statusCode: response.statusCode)
        case .failure(let error):
            record(.finished, statusCode: error.statusCode, detail: "\(error.reason)", failure: error.reason)
        }
    }

    /// Records the decoding of `response` and the end of the call.
    func decoded(_ response: APIResponse) {
        record(.decoded)
        record(.finished, statusCode: response.statusCode)
    }

    /// Records the end of a call that failed with `error`, and returns the error carrying this recorder.
    func finished(_ error: APIError) -> APIError {
        finish(.failure(error))
        var error = error
        error.recorder = self
        return error
    }

    /// Records the end of an attempt with `response` (without wrapping it in a `Result`: a copy).
    func received(_ response: APIResponse) {
        record(.responseReceived, statusCode: response.statusCode, bytes: response.body.data?.count)
    }

    /// Records the end of an attempt through the transport.
    func attemptEnded(_ result: Result<APIResponse, any Error>, request: APIRequest) {
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
        for request: APIRequest, configuration: APIConfiguration, start: ContinuousClock.Instant?
    ) -> CallRecorder? {
        let observers = configuration.observers
        if observers.isEmpty { return nil }
        return CallRecorder(request: request, observers: observers, start: start ?? .now)
    }
}

@_spi(ExecutorSupport)
extension APIRequest {
    /// Whether this request's call records a timeline: test it before working out an event's details.
    public var recordsTimeline: Bool { recorder != nil }

    /// The timeline of this request's call so far; `nil` when it records none.
    public var timeline: CallTimeline? { recorder?.timeline }

    /// Makes this request's call record its timeline from here on (the attempts, retries, redirects and cache
    /// decisions after the plugin that asks), for a plugin that reads it afterwards when the configuration has no
    /// observers: tracing's `http.request.resend_count`. Nothing changes when it records one already.
    public mutating func recordTimeline() {
        if recorder == nil { recorder = CallRecorder(request: self, observers: [], start: nil) }
    }

    /// Records an event in this request's call timeline (nothing when the call records none): what an executor
    /// knows of an attempt (``CallTimeline/Event/Kind/requestSent``, ``CallTimeline/Event/Kind/responseHeadReceived``,
    /// ``CallTimeline/Event/Kind/redirected``, the protocol and connection reuse in `detail`).
    public func record(
        _ kind: CallTimeline.Event.Kind, statusCode: Int? = nil, bytes: Int? = nil, detail: String? = nil
    ) {
        recorder?.record(kind, statusCode: statusCode, bytes: bytes, detail: detail)
    }

    /// Records a redirect the executor follows: its status, its number, the origins (never a path or a query) and
    /// whether credentials were removed (an origin change).
    public func recordRedirect(_ hop: RedirectHop) {
        guard let recorder else { return }
        let (from, to) = (Origin(hop.from), Origin(hop.to))
        let detail =
            from == to
            ? "hop \(hop.number), same origin"
            : "hop \(hop.number), \(from) → \(to), credentials removed"
        recorder.record(.redirected, statusCode: hop.statusCode, detail: detail)
    }
}
