import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The state of one ``URLSessionCall``: one value, changed only by an ``Event`` through ``receive(_:)``, which
/// returns the ``Action`` the call performs. It knows no URLSession, timer or lock: the call holds it in its lock,
/// feeds it the task's delegate callbacks, the deadline clock and cancellation, and does the I/O (resuming and
/// cancelling tasks, writing the file, yielding to the stream, resuming the caller) outside the lock.
///
/// The caller (``Phase``) waits from the start until it is answered: with the response when the task ends, with
/// the stream when a streamed response's head arrives, or with an error when the call is stopped (cancellation,
/// deadline, size limit, refused redirect, a failed body or file). The body goes to a ``Sink``: memory, a file, or
/// a stream, which goes on after the caller was answered, fed by one task at a time.
///
/// Generic over the task, the caller's continuation, the stream and the file, so that its transitions are tested
/// without a network: `URLSessionCall` uses `URLSessionDataTask`, a `CheckedContinuation`,
/// `ResponseStream.Continuation` and ``FileWriter``.
struct URLSessionCallStateMachine<Task: AnyObject, Caller, Stream, File> {
    /// What the machine knows of the call from its start.
    struct Configuration {
        /// The request's method (`GET`, `POST`…), as sent.
        var method: String
        /// The request's ``APIRequest/maxResponseBytes``.
        var maxResponseBytes: Int
        /// Where the body of a `2xx` response goes.
        var delivery: Delivery
        /// Whether the request reports progress (the declared length is then kept from the head on).
        var reportsProgress: Bool
        /// The request body's traits, for redirects and new body streams.
        var body: Body
        /// Whether the call sends the next hop of a `307`/`308` itself (Linux: see `URLSessionCall+Redirect.swift`).
        var sendsRepeatedBodyHops: Bool
        /// A download's idle timeout: from its head on, it replaces the deadline.
        var idleTimeout: Duration?
        /// The uptime clock, in nanoseconds, for the idle timeout.
        var now: @Sendable () -> UInt64
    }

    /// Where the body of a `2xx` response goes.
    enum Delivery: Equatable {
        case memory
        case file
        case stream
    }

    /// What the call's request body allows when it must be sent again.
    struct Body: Equatable {
        /// No body, or a known-empty one.
        var isEmpty: Bool
        /// Held in memory whole (URLSession sends it again itself).
        var isInMemory: Bool
        /// Can be read again from its start (everything but a one-shot stream).
        var isReplayable: Bool
    }

    /// Whether the caller still waits.
    enum Phase {
        /// The task has not started.
        case idle
        /// The caller waits; `task` is the task in flight (none between two hops).
        case waiting(Caller, task: Task?)
        /// The caller was answered, or the call was stopped.
        case answered
    }

    /// A stream handed to the caller, and the task that feeds it.
    struct StreamFeed {
        var stream: Stream
        /// The task whose bytes feed the stream: `nil` while a paused stream waits for its reader (Linux). Bytes
        /// and the end of any other task (one cancelled to pause the stream) are dropped.
        var feeder: Task?
        /// How the stream asks for the rest of its response again; `nil` when it cannot.
        var resumption: StreamResumption?
        /// The bytes still to drop from a `200` that answered a resumed stream's range with the whole body.
        var skip = 0
    }

    /// Where the body of the response goes, once its head has arrived.
    enum Sink {
        case memory
        case file(File, URL)
        case stream(StreamFeed)
    }

    /// What happens to the call.
    enum Event {
        /// The call's first task was created, to be resumed unless the call was already stopped. `resumable`: the
        /// request and session are kept for a stream that may have to be asked for again (Linux).
        case started(Task, caller: Caller, session: URLSession, request: URLRequest, resumable: Bool)
        /// Courier stops the call (cancellation, size limit, refused redirect, a failed body or file); the task
        /// is cancelled when `cancelsTask`.
        case stopRequested(ExecutorStop, cancelsTask: Bool)
        /// The deadline clock fired: the call's deadline, or a download's idle timeout.
        case deadlineFired
        /// The head of `task`'s response arrived.
        case headReceived(HTTPURLResponse, task: Task)
        /// A download's file is open, for bytes from `start` on, of `expected` in all when known.
        case fileOpened(File, URL, start: Int64, expected: Int64?)
        /// The stream of a streamed response was made, fed by `task`.
        case streamOpened(Stream, task: Task, response: HTTPURLResponse, length: Int64?)
        /// The stream's reader stopped (it cancelled, or the stream ended).
        case streamTerminated
        /// Bytes of `task`'s response body arrived.
        case dataReceived(Data, task: Task)
        /// The stream fed by `task` is a window ahead of its reader: pause it if the response can be resumed.
        case pauseRequested(task: Task)
        /// A paused stream's reader caught up: ask for the rest (`streamCancelled`: the reader stopped).
        case resumeRequested(streamCancelled: Bool)
        /// The task asking for the rest of a paused stream was created.
        case resumeStarted(Task, streamCancelled: Bool)
        /// The task got a redirect.
        case redirectReceived
        /// The redirect policy decided the hop the redirect asked for; `repeatsBody`: a `307` or `308`.
        case redirectDecided(RedirectDecision, repeatsBody: Bool)
        /// The redirect is followed by the task, with `request`.
        case redirectFollowed(URLRequest)
        /// A hop is prepared, which the call sends itself when the redirect response ends.
        case hopPrepared(URLRequest)
        /// The task of a hop the call sends itself was created.
        case hopStarted(Task, request: URLRequest)
        /// A hop's `Cookie` field is about to be set; `crossingOrigin`: the hop goes to another origin.
        case cookieFieldNeeded(crossingOrigin: Bool)
        /// The task's authentication challenge was declined (Linux); `response` is its `401`.
        case challengeDeclined(HTTPURLResponse?)
        /// URLSession asks for a new stream over the request's body (`needNewBodyStream`).
        case bodyStreamRequested
        /// A task ended (`failed`: with an error). `task` is the delegate's (nil from a completion handler,
        /// which hands over the whole `body`).
        case taskEnded(task: AnyObject?, body: Data?, failed: Bool)
    }

    /// What the call answers a stopped caller with and releases.
    struct Stopping {
        var reason: ExecutorStop
        /// The waiting caller, to resume with the reason's error.
        var caller: Caller?
        /// The task to cancel.
        var task: Task?
        /// The download's file, to close.
        var file: File?
    }

    /// Where received bytes go.
    enum Target {
        /// Into the body in memory (already appended): only progress is reported.
        case memory
        case file(File)
        case stream(Stream)
    }

    /// What the call does when a task ended.
    struct Finish {
        /// The caller to answer; `nil` when it was answered before.
        var caller: Caller?
        /// The body in memory.
        var body: Data
        /// The `401` of a declined challenge, which is then the response.
        var declined: HTTPURLResponse?
        /// Where the body went (a stream or file to finish).
        var sink: Sink
        /// The response whose head the session reported.
        var response: HTTPURLResponse?
        /// The body bytes received, and those declared, when known.
        var received: Int
        var expected: Int64?
    }

    /// What the call performs after an event.
    enum Action {
        case none
        /// Resume `task` (for the first task: after arming the deadline).
        case resumeTask(Task)
        /// The call was stopped before its task started: cancel the task, fail the caller as cancelled.
        case refuseStart(Task, Caller)
        /// Cancel the task, if any.
        case cancelTask(Task?)
        /// Leave the deadline clock, close the file, finish progress, fail the caller, cancel the task.
        case stop(Stopping)
        /// The idle timeout has not passed: wait `after` again.
        case rearmDeadline(after: Duration)
        /// Answer the head: let the body come.
        case allowBody
        /// Answer the head: the body goes to a file; open it, then report ``Event/fileOpened(_:_:start:expected:)``.
        case openFile
        /// Answer the head: the body goes to a stream; make it, then report
        /// ``Event/streamOpened(_:task:response:length:)``.
        case openStream
        /// Answer the head with a cancel, after performing `stopping` (when the call was not stopped before).
        case refuseBody(Stopping?)
        /// The response to a paused stream's request does not continue it: fail the stream (at `received` bytes),
        /// answer the head with a cancel.
        case failStream(Stream, received: Int)
        /// The head of a download ended the deadline: its idle timeout takes over.
        case armIdleTimeout(Duration)
        /// Leave the deadline clock and resume the caller with the stream.
        case handOverStream(Caller)
        /// Report progress (`received` of `expected`) and send `data` to `target`.
        case deliver(Data, to: Target, received: Int, expected: Int64?)
        /// Cancel the stream's task, and ask for the rest once the reader caught up.
        case pauseStream
        /// Send `request` on `session` for the rest of a paused stream.
        case resumeStream(URLRequest, URLSession)
        /// Ask the redirect policy about the redirect, hop `number` of the call.
        case decideRedirect(number: Int)
        /// Answer the redirect with no request: the redirect is the response.
        case declineRedirect
        /// Follow the redirect: answer with its request (credentials removed when crossing origins).
        case followRedirect
        /// Decline the redirect and prepare the next hop from `current`, the request of this hop.
        case takeOverRedirect(current: URLRequest?)
        /// Stop the call with the refusal (the task ends on its own), and decline the redirect.
        case refuseRedirect(RedirectRefusal)
        /// Send `request` as a new task of the call, on `session`.
        case sendHop(URLRequest, URLSession?)
        /// Whether a hop's `Cookie` field carries the request's own pairs (not from the first hop to another
        /// origin on).
        case setCookieField(ownPairs: Bool)
        /// Answer `needNewBodyStream` with a new stream over the body (`true`) or none.
        case provideBodyStream(Bool)
        /// Finish the call with the task's end.
        case finish(Finish)
    }

    let configuration: Configuration
    private(set) var phase = Phase.idle
    private(set) var sink = Sink.memory
    /// The body in memory.
    private(set) var body = Data()
    /// The body bytes received (for a resumed download, from the file's start).
    private(set) var received = 0
    /// The size of the body (for a resumed download, of the whole file), when known.
    private(set) var expected: Int64?
    /// The response whose head the session reported (reading `task.response` at the end costs a queue hop).
    private(set) var response: HTTPURLResponse?
    /// The `401` whose challenge was declined (Linux): the task is then cancelled, and this is its response.
    private(set) var declinedChallenge: HTTPURLResponse?
    /// A download's idle timeout, once its head arrived, and when its last bytes arrived (uptime nanoseconds).
    private(set) var idle: (timeout: Duration, lastBytes: UInt64)?
    private(set) var redirects = 0
    /// Whether a hop went to another origin: the request's own `Cookie` field was then left behind.
    private(set) var crossedOrigin = false
    /// The session, the request of the hop in flight (before its body is attached), and the next hop when the
    /// call sends it itself once the redirect response ends.
    private(set) var session: URLSession?
    private(set) var current: URLRequest?
    private(set) var nextHop: URLRequest?
    /// The request as sent and its session, kept for a stream that may have to be asked for again (Linux).
    private(set) var sent: (request: URLRequest, session: URLSession)?

    init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// Whether the caller was answered (or the call stopped).
    var isAnswered: Bool {
        if case .answered = phase { return true }
        return false
    }

    /// Moves the call on with `event` and returns what the call performs.
    mutating func receive(_ event: Event) -> Action {
        switch event {
        case .started(let task, let caller, let session, let request, let resumable):
            return start(task, caller: caller, session: session, request: request, resumable: resumable)
        case .stopRequested(let reason, let cancelsTask):
            return stop(reason, cancelsTask: cancelsTask).map(Action.stop) ?? .none
        case .deadlineFired:
            return deadlineFired()
        case .headReceived(let response, let task):
            return headReceived(response, task: task)
        case .fileOpened(let file, let url, let start, let expected):
            sink = .file(file, url)
            received = Int(start)
            self.expected = expected
            guard let timeout = configuration.idleTimeout else { return .none }
            idle = (timeout, configuration.now())
            return .armIdleTimeout(timeout)
        case .streamOpened(let stream, let task, let response, let length):
            return streamOpened(stream, task: task, response: response, length: length)
        case .streamTerminated:
            // Nothing feeds the stream any more (this also lets the call go: the sink holds the stream).
            defer { sink = .memory }
            guard case .stream(let feed) = sink else { return .cancelTask(nil) }
            return .cancelTask(feed.feeder)
        case .dataReceived(let data, let task):
            return dataReceived(data, task: task)
        case .pauseRequested(let task):
            guard case .stream(var feed) = sink, feed.feeder === task, feed.resumption != nil, feed.skip == 0
            else { return .none }
            feed.feeder = nil
            sink = .stream(feed)
            return .pauseStream
        case .resumeRequested(let streamCancelled):
            guard case .stream(let feed) = sink, !streamCancelled, feed.feeder == nil,
                let resumption = feed.resumption
            else {
                // The reader stopped while the stream waited: nothing runs any more.
                sink = .memory
                return .none
            }
            return .resumeStream(resumption.request(from: received), resumption.session)
        case .resumeStarted(let task, let streamCancelled):
            guard case .stream(var feed) = sink, !streamCancelled else { return .none }
            feed.feeder = task
            sink = .stream(feed)
            return .resumeTask(task)
        case .redirectReceived:
            redirects += 1
            // A stream asked for again (Linux) continues from its own URL or fails: the redirect is its response.
            if case .stream = sink { return .declineRedirect }
            return .decideRedirect(number: redirects)
        case .redirectDecided(let decision, let repeatsBody):
            return redirectDecided(decision, repeatsBody: repeatsBody)
        case .redirectFollowed(let request):
            // A redirect's own body is not part of the response.
            body = Data()
            received = 0
            current = request
            return .none
        case .hopPrepared(let request):
            nextHop = request
            return .none
        case .hopStarted(let task, let request):
            // Stopped in between (cancelled, past the deadline): the caller already has its error.
            guard case .waiting(let caller, _) = phase else { return .cancelTask(task) }
            phase = .waiting(caller, task: task)
            current = request
            return .resumeTask(task)
        case .cookieFieldNeeded(let crossingOrigin):
            if crossingOrigin { crossedOrigin = true }
            return .setCookieField(ownPairs: !crossedOrigin)
        case .challengeDeclined(let response):
            declinedChallenge = response
            return .none
        case .bodyStreamRequested:
            // A replayable body is read again from its start; a one-shot stream gets none; URLSession sends a
            // body in memory again itself.
            return .provideBodyStream(configuration.body.isReplayable && !configuration.body.isInMemory)
        case .taskEnded(let task, let data, let failed):
            return taskEnded(task: task, data: data, failed: failed)
        }
    }

    // MARK: - Transitions

    private mutating func start(
        _ task: Task, caller: Caller, session: URLSession, request: URLRequest, resumable: Bool
    ) -> Action {
        // Cancelled before the task started: nothing was sent.
        guard case .idle = phase else { return .refuseStart(task, caller) }
        phase = .waiting(caller, task: task)
        self.session = session
        current = request
        if resumable { sent = (request, session) }
        return .resumeTask(task)
    }

    /// Ends the call with `reason` unless it already ended.
    private mutating func stop(_ reason: ExecutorStop, cancelsTask: Bool) -> Stopping? {
        let caller: Caller?
        let task: Task?
        switch phase {
        case .answered: return nil
        case .idle: (caller, task) = (nil, nil)
        case .waiting(let waiting, let running): (caller, task) = (waiting, running)
        }
        phase = .answered
        body = Data()
        var file: File?
        if case .file(let handle, _) = sink { file = handle }
        sink = .memory
        return Stopping(reason: reason, caller: caller, task: cancelsTask ? task : nil, file: file)
    }

    /// The deadline passed, or a download's idle timeout: then the call goes on while bytes came within it.
    private mutating func deadlineFired() -> Action {
        if let idle {
            let quiet = Duration.nanoseconds(Int64(clamping: configuration.now() &- idle.lastBytes))
            if quiet < idle.timeout { return .rearmDeadline(after: idle.timeout - quiet) }
        }
        return stop(.timedOut, cancelsTask: true).map(Action.stop) ?? .none
    }

    private mutating func headReceived(_ head: HTTPURLResponse, task: Task) -> Action {
        if case .stream(var feed) = sink, feed.feeder === task, let resumption = feed.resumption {
            // The response to a paused stream's request (Linux). A `206` from the stream's position continues
            // it; a `200` with the same validator and length is the whole body again, whose first bytes are
            // dropped (and the stream is not paused again); anything else means the response changed.
            if head.statusCode == 206,
                ContentRange(head.value(forHTTPHeaderField: "Content-Range"))?.start == Int64(received)
            {
                return .allowBody
            }
            if head.statusCode == 200, resumption.matches(head) {
                feed.skip = received
                feed.resumption = nil
                sink = .stream(feed)
                return .allowBody
            }
            sink = .memory
            return .failStream(feed.stream, received: received)
        }
        response = head
        if configuration.reportsProgress { expected = Self.declaredLength(of: head) }
        if (200..<300).contains(head.statusCode) {
            switch configuration.delivery {
            case .memory: break
            case .file: return .openFile
            case .stream: return .openStream
            }
        }
        // A declared length over the limit fails at once; a HEAD answer, a 204 and a 304 declare a length
        // without a body. (The length is looked up only when it matters: finding a header costs more than the
        // rest of this callback.)
        let limit = configuration.maxResponseBytes
        let bodiless = configuration.method == "HEAD" || head.statusCode == 204 || head.statusCode == 304
        if head.expectedContentLength > limit, !bodiless, let length = Self.declaredLength(of: head), length > limit {
            return .refuseBody(stop(.responseTooLarge, cancelsTask: true))
        }
        return .allowBody
    }

    private mutating func streamOpened(
        _ stream: Stream, task: Task, response: HTTPURLResponse, length: Int64?
    ) -> Action {
        guard case .waiting(let caller, _) = phase else { return .none }
        phase = .answered
        var feed = StreamFeed(stream: stream, feeder: task)
        if let sent { feed.resumption = StreamResumption(response: response, length: length, sent: sent) }
        sent = nil
        sink = .stream(feed)
        expected = length
        return .handOverStream(caller)
    }

    private mutating func dataReceived(_ data: Data, task: Task) -> Action {
        var data = data
        switch sink {
        case .stream(var feed):
            // A task cancelled to pause the stream may still report bytes: they are asked for again.
            guard feed.feeder === task else { return .none }
            if feed.skip > 0 {
                let dropped = min(feed.skip, data.count)
                feed.skip -= dropped
                sink = .stream(feed)
                data = data.dropFirst(dropped)
                if data.isEmpty { return .none }
            }
            received += data.count
            bytesArrived()
            return .deliver(data, to: .stream(feed.stream), received: received, expected: expected)
        case .file(let file, _):
            received += data.count
            bytesArrived()
            return .deliver(data, to: .file(file), received: received, expected: expected)
        case .memory:
            received += data.count
            guard !isAnswered else { return .none }
            if received > configuration.maxResponseBytes {
                return stop(.responseTooLarge, cancelsTask: true).map(Action.stop) ?? .none
            }
            if body.isEmpty {
                body = data
            } else {
                body.append(data)
            }
            return .deliver(data, to: .memory, received: received, expected: expected)
        }
    }

    /// Bytes arrived: a download's idle timeout starts again.
    private mutating func bytesArrived() {
        guard idle != nil else { return }
        let now = configuration.now()
        idle?.lastBytes = now
    }

    private mutating func redirectDecided(_ decision: RedirectDecision, repeatsBody: Bool) -> Action {
        switch decision {
        case .follow where repeatsBody && !configuration.body.isReplayable:
            // A 307/308 sends the body again, and this one cannot be: the redirect is the response.
            return .declineRedirect
        case .follow where repeatsBody && sendsHopItself:
            return .takeOverRedirect(current: current)
        case .follow:
            return .followRedirect
        case .stop:
            return .declineRedirect
        case .fail(let refusal):
            return .refuseRedirect(refusal)
        }
    }

    /// Whether the call sends the next hop of a `307`/`308` itself: on Linux, while the request still carries its
    /// body (no earlier hop turned it into a `GET`).
    private var sendsHopItself: Bool {
        configuration.sendsRepeatedBodyHops && !configuration.body.isEmpty
            && current?.httpMethod == configuration.method
    }

    private mutating func taskEnded(task: AnyObject?, data: Data?, failed: Bool) -> Action {
        // The end of a task cancelled to pause a stream is not the stream's.
        if let task, case .stream(let feed) = sink, feed.feeder !== task { return .none }
        if !failed, let next = nextHop {
            nextHop = nil
            if case .waiting(let caller, _) = phase {
                // The redirect response and its body are forgotten; the call sends the next hop itself.
                phase = .waiting(caller, task: nil)
                body = Data()
                received = 0
                expected = nil
                response = nil
                return .sendHop(next, session)
            }
        }
        let ended = sink
        sink = .memory
        let reported = response
        response = nil
        guard case .waiting(let caller, _) = phase else {
            return .finish(
                Finish(
                    caller: nil, body: Data(), declined: nil, sink: ended, response: reported, received: received,
                    expected: expected))
        }
        phase = .answered
        defer { body = Data() }
        return .finish(
            Finish(
                caller: caller, body: data ?? body, declined: declinedChallenge, sink: ended, response: reported,
                received: received, expected: expected))
    }

    /// The length of the decoded body that `response` declares: its `Content-Length`, unless a content encoding
    /// makes that the length of the encoded body.
    static func declaredLength(of response: HTTPURLResponse) -> Int64? {
        guard response.expectedContentLength >= 0 else { return nil }
        let encoding = response.value(forHTTPHeaderField: "Content-Encoding")?.lowercased()
        return encoding == nil || encoding == "identity" ? response.expectedContentLength : nil
    }
}
