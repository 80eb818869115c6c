@_spi(CourierInternals)
extension APIRequest {
    /// Whether this request's call records a timeline: test it before working out an event's details.
    public var recordsTimeline: Bool { recorder?.recordsEvents ?? false }

    /// The timeline of this request's call so far; `nil` when it records none.
    public var timeline: CallTimeline? { recorder?.timeline }

    /// Makes this request's call record its timeline from here on (the attempts, retries, redirects and cache
    /// decisions after the plugin that asks), for a plugin that reads it afterwards when the configuration has no
    /// observers: tracing's `http.request.resend_count`. Nothing changes when it records one already.
    public mutating func recordTimeline() {
        // A call whose observers want only its outcome keeps that recorder on its own request: the call form
        // tells them the end; this one, on the plugin's copy, records the rest of the timeline.
        if recorder?.recordsEvents != true { recorder = CallRecorder(halfWay: self, of: recorder) }
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
        guard let recorder, recorder.recordsEvents else { return }
        let (from, to) = (Origin(hop.from), Origin(hop.to))
        let detail =
            from == to
            ? "hop \(hop.number), same origin"
            : "hop \(hop.number), \(from) → \(to), credentials removed"
        recorder.record(.redirected, statusCode: hop.statusCode, detail: detail)
    }
}
