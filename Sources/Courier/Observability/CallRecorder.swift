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
    /// Each attempt's duration and outcome, and the status the call ended with, for the outcome observers (which
    /// record no timeline); `nil` without them.
    let measures: LockedBox<Measures>?
    /// What plugins asked to be told when the call ends (``reportAtEnd(owner:_:)``); `nil` when the call's
    /// plugins ask nothing (the usual case).
    let endReports: LockedBox<[EndReport]>?
    /// The call's own recorder, for one that records half-way: it tells the outcome observers a streamed body's end.
    private let call: CallRecorder?

    /// What a plugin is told when the call ends: a ``LoggingPlugin``'s response line waits for the decoding.
    struct EndReport: Sendable {
        /// Who asked: a report of the same owner replaces this one.
        let owner: ObjectIdentifier
        let report: @Sendable (CallEnd) -> Void
    }

    /// What a call measures for its outcome observers.
    struct Measures {
        /// When the current attempt started.
        var attemptStart: ContinuousClock.Instant?
        var attempts: [CallOutcome.Attempt] = []
        /// The status the call ended with: a streamed body's size is recorded with it when the stream ends.
        var statusCode: Int?
    }

    /// How a call ended, for an ``EndReport``.
    enum CallEnd {
        /// With the response, decoded when the call form decodes.
        case succeeded
        /// With `error`: a decoding failure, a status not accepted, or an error raised outside the plugin.
        case failed(APIError)
        /// Not yet: the plugin that asked was called again in the call (a plugin outside it retried).
        case superseded
    }

    /// A recorder for `request`'s call that started at `start` (before its request was built); the outcome
    /// observers are told that it started.
    init(
        request: borrowing APIRequest, observers: [any CallObserver], outcomeObservers: [any CallOutcomeObserver],
        start: ContinuousClock.Instant, reportsAtEnd: Bool = false
    ) {
        self.observers = observers
        self.outcomeObservers = outcomeObservers
        self.start = start
        self.endReports = reportsAtEnd ? LockedBox([]) : nil
        self.measures = outcomeObservers.isEmpty ? nil : LockedBox(Measures())
        self.call = nil
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
    /// observer; it measures the attempts and keeps the end reports of `call` (the recorder it replaces on the
    /// plugin's request), whose observers and plugins the call form tells when the call ends.
    init(halfWay request: APIRequest, of call: CallRecorder?) {
        observers = []
        outcomeObservers = []
        context = nil
        otherContexts = []
        start = .now
        state = Self.timeline(of: request)
        measures = call?.measures
        endReports = call?.endReports
        self.call = call
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

    /// Whether the call marks where each attempt starts and ends: for its timeline, or its outcome observers.
    var recordsAttempts: Bool { state != nil || measures != nil }

    /// Whether the call records the end of a streamed body: in its timeline, or for its outcome observers.
    var recordsStreamEnd: Bool { state != nil || !outcomeObservers.isEmpty }

    /// Records an event of the current attempt (a new one for ``CallTimeline/Event/Kind/attemptStarted``) and
    /// tells the observers; nothing when the call records no events.
    func record(
        _ kind: CallTimeline.Event.Kind, statusCode: Int? = nil, bytes: Int? = nil, delay: Duration? = nil,
        detail: String? = nil, httpVersion: String? = nil
    ) {
        if let measures {
            if kind == .attemptStarted {
                measures.withLock { $0.attemptStart = .now }
            } else if kind == .streamEnded, let bytes {
                bodyEnded(bytes: bytes, statusCode: measures.withLock { $0.statusCode })
            }
        }
        guard state != nil else { return }
        record(
            kind, at: .now, statusCode: statusCode, bytes: bytes, delay: delay, detail: detail,
            httpVersion: httpVersion)
    }

    /// Records an event that happened at `instant`.
    private func record(
        _ kind: CallTimeline.Event.Kind, at instant: ContinuousClock.Instant, statusCode: Int? = nil,
        bytes: Int? = nil, delay: Duration? = nil, detail: String? = nil, httpVersion: String? = nil,
        failure: APIError.Reason? = nil
    ) {
        guard let state else { return }
        let (event, snapshot) = state.withLock { timeline in
            var attempt = timeline.events.last?.attempt ?? 0
            if kind == .attemptStarted { attempt += 1 }
            let event = CallTimeline.Event(
                kind, at: instant, attempt: attempt, statusCode: statusCode, bytes: bytes, delay: delay,
                detail: detail, httpVersion: httpVersion)
            timeline.events.append(event)
            if let failure { timeline.failure = failure }
            return (event, timeline)
        }
        for observer in observers { observer.observe(event, in: snapshot) }
    }

    /// Records the end of the call with `request` (the one its call form made) with `response`.
    func finish(_ response: APIResponse, request: APIRequest, detail: String? = nil) {
        end(request, statusCode: response.statusCode, body: response.body, detail: detail, failure: nil)
        if endReports != nil { report(.succeeded) }
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
        if endReports != nil { report(.failed(error)) }
        return error
    }

    /// Has `report` run when the call ends, with how it ended; a report of `owner` asked for before runs now, as
    /// superseded. `false` when the call reports no end (no plugin of its configuration or endpoint asks, see
    /// `CallEndReportingPlugin`): the caller reports at once.
    func reportAtEnd(owner: ObjectIdentifier, _ report: @escaping @Sendable (CallEnd) -> Void) -> Bool {
        guard endReports != nil else { return false }
        supersedeReport(of: owner)
        endReports?.withLock { $0.append(EndReport(owner: owner, report: report)) }
        return true
    }

    /// Runs now, as superseded, the report `owner` asked for before, if any: the plugin is called again in the call
    /// (a plugin outside it retries), so the attempt it reported on is over.
    func supersedeReport(of owner: ObjectIdentifier) {
        guard let endReports else { return }
        let replaced = endReports.withLock { reports in
            reports.firstIndex { $0.owner == owner }.map { reports.remove(at: $0) }
        }
        replaced?.report(.superseded)
    }

    /// Runs the end reports, once.
    private func report(_ end: CallEnd) {
        let reports = endReports?.withLock { reports in
            defer { reports = [] }
            return reports
        }
        for entry in reports ?? [] { entry.report(end) }
    }

    /// Records the `finished` event (when the call records events) and tells the outcome observers how it ended.
    private func end(
        _ request: APIRequest, statusCode: Int?, body: ResponseBody?, detail: String?, failure: APIError.Reason?
    ) {
        let now = ContinuousClock.now
        record(.finished, at: now, statusCode: statusCode, detail: detail, failure: failure)
        guard let measures else { return }
        let attempts = measures.withLock { measures in
            measures.statusCode = statusCode
            return measures.attempts
        }
        let outcome = CallOutcome(
            duration: now - start, statusCode: statusCode, failure: failure,
            responseBytes: body.flatMap { Self.bytes(of: $0, for: request) }, attempts: attempts)
        for (index, observer) in outcomeObservers.enumerated() {
            observer.callEnded(request, outcome: outcome, context: index == 0 ? context : otherContexts[index - 1])
        }
    }

    /// The bytes of a response body the call ended with: in memory, or in a file (a resumed download's new part);
    /// `nil` for a stream, whose bytes are counted as they are read (``CallOutcomeObserver/callBodyEnded``).
    private static func bytes(of body: ResponseBody, for request: APIRequest) -> Int? {
        // A stream's call ends with its head, whose body is empty: the stream's bytes come when it ends.
        if case .stream = request.responseDelivery.kind, body.stream != nil || body.isEmpty { return nil }
        if let data = body.data { return data.count }
        guard let file = body.fileURL, let size = RequestBody.fileSize(file) else { return nil }
        return max(0, size - Int(request.responseDelivery.resumeOffset))
    }

    /// Tells the outcome observers that the streamed body of a call that ended with `statusCode` ended after `bytes`.
    private func bodyEnded(bytes: Int, statusCode: Int?) {
        if let call { return call.bodyEnded(bytes: bytes, statusCode: statusCode) }
        for (index, observer) in outcomeObservers.enumerated() {
            observer.callBodyEnded(
                bytes: bytes, statusCode: statusCode, context: index == 0 ? context : otherContexts[index - 1])
        }
    }

    /// Measures the attempt that ended with `statusCode` or `failure`; one the cache answered without the server
    /// is not a request sent.
    private func measureAttempt(
        statusCode: Int?, failure: APIError.Reason?, fromCache: Bool, httpVersion: String? = nil
    ) {
        guard let measures else { return }
        let now = ContinuousClock.now
        measures.withLock { measures in
            guard let start = measures.attemptStart else { return }
            measures.attemptStart = nil
            if fromCache { return }
            var attempt = CallOutcome.Attempt(duration: now - start, statusCode: statusCode, failure: failure)
            attempt.httpVersion = httpVersion
            measures.attempts.append(attempt)
        }
    }

    /// Records the end of an attempt with `response` (without wrapping it in a `Result`: a copy).
    func received(_ response: APIResponse) {
        if measures != nil {
            let hit = response.cacheHit
            measureAttempt(
                statusCode: response.statusCode, failure: nil, fromCache: hit != nil && hit?.revalidated != true,
                httpVersion: response.httpVersion)
        }
        record(
            .responseReceived, statusCode: response.statusCode, bytes: response.body.data?.count,
            httpVersion: response.httpVersion)
    }

    /// Records the end of an attempt through the transport.
    func attemptEnded(_ result: Result<APIResponse, any Error>, request: APIRequest) {
        if measures != nil, case .failure(let error) = result {
            let error = APIError.wrapping(error, request: request)
            measureAttempt(statusCode: error.statusCode, failure: error.reason, fromCache: false)
        }
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
        let reportsAtEnd = configuration.reportsAtCallEnd(request.endpoint)
        if configuration.observers.isEmpty, !reportsAtEnd { return nil }
        return CallRecorder(
            request: request, observers: configuration.eventObservers,
            outcomeObservers: configuration.outcomeObservers, start: start, reportsAtEnd: reportsAtEnd)
    }
}
