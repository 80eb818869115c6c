@_spi(CourierInternals) import Courier
import Foundation

/// Keeps the timelines of the calls made with a configuration and writes them as an HTTP Archive (HAR 1.2), the
/// file a browser's devtools open (Chrome, Firefox and Safari import it in their network panel): a slow call is then
/// seen as a bar split into its phases.
///
/// ```swift
/// let har = HARRecorder()
/// configuration.observers.append(har)
/// // ... calls ...
/// try har.write(to: URL(filePath: "calls.har"))
/// ```
///
/// One entry per call, in the order the calls ended, with the request the call built (before the plugins, which
/// add credentials), its secrets masked as in logs (``Courier/SensitiveData``): secret headers, query items, body
/// keys and URL user info. The response has its status and body size (a timeline keeps neither the response's
/// headers nor its body). The timings come from the timeline: `blocked` from the start of the call to its last
/// attempt (building, plugins, earlier attempts and retry waits), `send` to the request sent, `wait` to the response
/// head, `receive` to the body's end, and `_decode` to the end of the call; `time` is their sum. An executor that
/// does not report the sent request or the response head has its whole exchange in `wait`. `_attempts` counts the
/// attempts when there were several; `_error` is a failed call's reason. A call's single timeline is
/// ``Courier/CallTimeline/har()``.
public final class HARRecorder: CallObserver {
    private let calls = Locked<[CallTimeline]>([])
    private let limit: Int

    /// Keeps the last `limit` calls (1,000 by default: memory stays bounded in a long-running process).
    public init(keepingLast limit: Int = 1_000) {
        self.limit = max(limit, 1)
    }

    /// Keeps a call's timeline when it ends.
    public func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
        guard event.kind == .finished else { return }
        calls.withLockedValue { calls in
            if calls.count == limit { calls.removeFirst() }
            calls.append(timeline)
        }
    }

    /// The timelines kept, oldest first.
    public var timelines: [CallTimeline] { calls.withLockedValue { $0 } }

    /// The calls kept, as a HAR 1.2 file's bytes.
    public func har() throws -> Data {
        try CallTimeline.har(timelines)
    }

    /// Writes the calls kept to `file` as HAR 1.2, replacing it.
    public func write(to file: URL) throws {
        try har().write(to: file, options: .atomic)
    }
}

extension CallTimeline {
    /// This call as a HAR 1.2 file's bytes, secrets masked: see ``HARRecorder``. With a timeline from an error
    /// (``Courier/APIError/timeline``), one failing call opens in a browser's devtools.
    public func har() throws -> Data {
        try Self.har([self])
    }

    /// `timelines` as one HAR 1.2 file's bytes.
    static func har(_ timelines: [CallTimeline]) throws -> Data {
        let now = (date: Date(), instant: ContinuousClock.now)
        return try HAR(entries: timelines.map { HAR.Entry($0, now: now) }, creator: "CourierObservability").encoded()
    }
}

extension HAR.Entry {
    /// The entry of a call; `now` maps the monotonic clock to dates.
    init(_ timeline: CallTimeline, now: (date: Date, instant: ContinuousClock.Instant)) {
        let request = timeline.request
        let masking = SensitiveData.Recording(request: request)
        let phases = Phases(timeline)
        let started = timeline.events.first.map { now.date - Self.milliseconds(now.instant - $0.instant) / 1000 }
        let body = request.body.data ?? Data()
        let contentType = request.headers[.contentType]
        let text = masking.body(body, contentType: contentType).map { ($0, nil) } ?? HAR.text(of: body)
        let url = masking.url(request.url)
        self.init(
            endpoint: request.endpoint.description,
            startedDateTime: HAR.dateTime(started ?? now.date),
            time: phases.total,
            request: HAR.Request(
                bodySize: request.body.count ?? -1, headers: HAR.fields(masking.headers(request.headers)),
                method: request.method.rawValue,
                postData: body.isEmpty ? nil : HAR.PostData(mimeType: contentType ?? "", body: text),
                queryString: (URLComponents(string: url)?.queryItems ?? []).map {
                    HAR.Field(name: $0.name, value: $0.value ?? "")
                },
                url: url),
            response: HAR.Response(
                bodySize: phases.received ?? -1,
                content: HAR.Content(size: phases.received ?? 0, mimeType: "", text: nil, encoding: nil),
                headers: [], status: timeline.statusCode ?? 0),
            timings: HAR.Timings(
                blocked: phases.blocked, send: phases.send, wait: phases.wait, receive: phases.receive,
                decode: phases.decode),
            attempts: timeline.attempts > 1 ? timeline.attempts : nil,
            error: timeline.failure.map { "\($0)" })
        self.request.httpVersion = HAR.httpVersion(phases.httpVersion)
        self.response.httpVersion = self.request.httpVersion
    }

    /// `duration` in milliseconds.
    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// A call's phases in milliseconds, from its events: each phase ends at the first event of its end that the
    /// last attempt recorded, and starts where the one before ended (so none is negative, and they add up to the
    /// call's duration).
    struct Phases {
        var blocked = 0.0
        var send = 0.0
        var wait = 0.0
        var receive = 0.0
        var decode = 0.0
        var received: Int?
        /// The HTTP version of the last attempt's response, where the executor told it.
        var httpVersion: String?

        var total: Double { blocked + send + wait + receive + decode }

        init(_ timeline: CallTimeline) {
            let events = timeline.events
            guard let start = events.first?.instant else { return }
            let attempt = events.last(where: { $0.kind == .attemptStarted })?.attempt ?? 0
            let ofLast = events.filter { $0.attempt == attempt }
            func instant(_ kind: CallTimeline.Event.Kind) -> ContinuousClock.Instant? {
                ofLast.first { $0.kind == kind }?.instant
            }
            let end = events.last?.instant ?? start
            let attemptStart = attempt > 0 ? instant(.attemptStarted) ?? start : end
            let bodyEnd = instant(.responseReceived) ?? instant(.attemptFailed) ?? end
            let sent = instant(.requestSent) ?? attemptStart
            let head = instant(.responseHeadReceived) ?? bodyEnd
            // Clamped in order, so that a late event from an executor never makes a phase negative.
            var cursor = start
            func phase(to instant: ContinuousClock.Instant) -> Double {
                let next = Swift.min(Swift.max(instant, cursor), end)
                defer { cursor = next }
                return HAR.Entry.milliseconds(next - cursor)
            }
            blocked = phase(to: attemptStart)
            send = phase(to: sent)
            wait = phase(to: head)
            receive = phase(to: bodyEnd)
            decode = phase(to: end)
            received = ofLast.last { $0.kind == .responseReceived }?.bytes
            httpVersion = ofLast.last { $0.httpVersion != nil }?.httpVersion
        }
    }
}
