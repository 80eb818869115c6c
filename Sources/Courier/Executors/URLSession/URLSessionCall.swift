import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One call of ``URLSessionExecutor``: the task's own delegate, which enforces the call's deadline, redirect
/// policy and size limit, and resumes the caller exactly once — when the task completes, or at once when
/// Courier stops the call (cancellation, deadline, size limit, refused redirect).
///
/// The body of a `2xx` response goes where the request's `APIRequest.responseDelivery` says: into memory, to
/// a file (written chunk by chunk as it arrives), or to a ``ResponseStream`` (the caller is resumed when the
/// head arrives; the deadline then gives way to the stream's idle timeout, and a full stream window suspends
/// the task until its reader catches up — on Linux, where a task cannot be paused, a response that can be
/// resumed is cancelled and asked for again from where the reader is, see ``StreamResumption``). Bytes sent and
/// received go to the request's ``APIRequest/progress``.
final class URLSessionCall: NSObject, DeadlineClock.Client, Sendable {
    typealias Outcome = (ResponseBody, HTTPURLResponse)

    /// Where the body of the response goes, once its head has arrived.
    enum Sink {
        case memory
        case file(FileWriter, URL)
        case stream(ResponseStream.Continuation)
    }

    struct State {
        var task: URLSessionDataTask?
        var continuation: CheckedContinuation<Outcome, any Error>?
        var sink = Sink.memory
        /// The size of the body (for a resumed download, of the whole file), when known.
        var expected: Int64?
        /// Why Courier stopped the call before its task completed, once it did.
        var stop: ExecutorStop?
        var finished = false
        var body = Data()
        var received = 0
        var redirects = 0
        /// Whether a hop went to another origin: the request's own `Cookie` field was then left behind.
        var crossedOrigin = false
        /// The `401` whose challenge was declined (Linux): the task is then cancelled, and this is its response.
        var declinedChallenge: HTTPURLResponse?
        /// The response whose head the session reported (reading `task.response` at the end costs a queue hop).
        var response: HTTPURLResponse?
        /// A download's idle timeout, once its head arrived: the deadline gave way to it.
        var idle: Duration?
        /// When the last bytes of such a download arrived, in uptime nanoseconds.
        var lastBytes: UInt64 = 0
        /// The session, the request of the hop in flight (before its body is attached), and the next hop when
        /// Courier sends it itself once the redirect response ends (see `URLSessionCall+Redirect.swift`).
        var session: URLSession?
        var current: URLRequest?
        var nextHop: URLRequest?
        /// The request as sent and its session, kept for a stream that may have to be asked for again (Linux).
        var sent: (request: URLRequest, session: URLSession)?
        /// The task whose bytes feed the stream: `nil` while a stream waits for its reader (Linux). Bytes and the
        /// end of any other task (one cancelled to pause the stream) are dropped.
        var streamTask: URLSessionDataTask?
        /// How the stream asks for the rest of its response again; `nil` when it cannot.
        var resumption: StreamResumption?
        /// The bytes still to drop from a `200` that answered a resumed stream's range with the whole body.
        var skip = 0
    }

    let request: APIRequest
    /// Whether the session reports the body as it arrives (its delegate is ``URLSessionExecutor``'s own);
    /// otherwise the task's completion handler hands it over at the end.
    let reportsEvents: Bool
    /// Where the cookies of responses go when the session leaves them to the executor (see ``CookieJar``).
    private let cookies: CookieJar?
    /// Where the `Cookie` field of each hop comes from when the session leaves it to the executor.
    private let sentCookies: CookieJar?
    let state = LockedBox(State())
    #if !canImport(FoundationNetworking) || COURIER_APPLE_PATHS
        /// Suspends and resumes the task for a stream's window, in the order they were asked for.
        private let flow = DispatchQueue(label: "Courier.URLSessionCall.flow")
    #endif

    init(request: APIRequest, reportsEvents: Bool, cookies: CookieJar? = nil, sentCookies: CookieJar? = nil) {
        self.request = request
        self.reportsEvents = reportsEvents
        self.cookies = cookies
        self.sentCookies = sentCookies
    }

    /// Sets the `Cookie` field of `urlRequest`, the first request or a redirect hop of this call, when the executor
    /// sends cookies for the session: the request's own pairs (left behind from the first hop to another origin on,
    /// with the other credentials) merged with the jar's cookies for the hop's URL (see ``CookieJar``).
    func setCookieField(of urlRequest: inout URLRequest, crossingOrigin: Bool) {
        guard let sentCookies, let url = urlRequest.url else { return }
        let crossed = state.withLock { state -> Bool in
            if crossingOrigin { state.crossedOrigin = true }
            return state.crossedOrigin
        }
        let own = crossed ? [] : request.headers.values(for: .cookie)
        urlRequest.httpShouldHandleCookies = false
        urlRequest.setValue(sentCookies.cookieField(for: url, merging: own), forHTTPHeaderField: "Cookie")
    }

    /// Sends `urlRequest` on `session` and returns the body and the response.
    func run(_ urlRequest: URLRequest, on session: URLSession) async throws -> Outcome {
        let outcome = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
                    if StreamUploads.inFlight {
                        // See StreamUploads: off Swift's threads while a stream body may hold the work queue.
                        StreamUploads.control.run { self.start(urlRequest, on: session, continuation) }
                        return
                    }
                #endif
                start(urlRequest, on: session, continuation)
            }
        } onCancel: {
            stop(.cancelled)
        }
        // The outcome (a stream's buffer, say) was made on URLSession's delegate queue, which then released this
        // lock and resumed the continuation; taking the lock here orders the two for ThreadSanitizer as well,
        // which does not see every continuation hand-off from a dispatch queue (it reported a stream's buffer,
        // read by the caller, as a race once in a CI run).
        state.withLock { _ in }
        return outcome
    }

    /// Creates and resumes the task.
    private func start(
        _ urlRequest: URLRequest,
        on session: URLSession,
        _ continuation: CheckedContinuation<Outcome, any Error>
    ) {
        let task = makeTask(urlRequest, body: request.body, on: session, complete: completionHandler)
        task.delegate = TaskEvents(self)
        var keep = false
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            if case .stream = request.responseDelivery.kind, request.method == .get { keep = true }
        #endif
        let started = state.withLock { state -> Bool in
            guard state.stop == nil else { return false }
            state.task = task
            state.continuation = continuation
            state.session = session
            state.current = urlRequest
            if keep { state.sent = (urlRequest, session) }
            return true
        }
        guard started else {
            // Cancelled before the task started: nothing was sent.
            task.cancel()
            continuation.resume(throwing: error(for: .cancelled))
            return
        }
        startDeadline()
        task.resume()
    }

    // MARK: - Stopping

    private func startDeadline() {
        DeadlineClock.shared.add(self, timeout: request.timeout)
        // A call stopped in between left the clock before it was added: take it out again.
        if state.withLock({ $0.finished }) { DeadlineClock.shared.remove(self) }
    }

    /// The body could not be read while it was being sent: the call fails with ``APIError/RequestProblem/unreadableBody``.
    func bodyFailed(_ error: any Error) {
        stop(
            .failed(
                APIError(
                    .invalidRequest(.unreadableBody), endpoint: request.endpoint, request: request,
                    underlyingError: error)))
    }

    /// The call's deadline passed, or a download's idle timeout: then the call goes on while bytes came within it.
    func deadlinePassed() {
        let now = DispatchTime.now().uptimeNanoseconds
        let wait = state.withLock { state -> Duration? in
            guard let idle = state.idle else { return nil }
            let quiet = Duration.nanoseconds(Int64(clamping: now &- state.lastBytes))
            return quiet < idle ? idle - quiet : nil
        }
        guard let wait else { return stop(.timedOut) }
        DeadlineClock.shared.add(self, timeout: wait)
    }

    /// Ends the call with `reason` unless it already ended: resumes the caller at once, then cancels the task.
    private func stop(_ reason: ExecutorStop, cancellingTask: Bool = true) {
        let ended = state.withLock {
            state -> (URLSessionDataTask?, CheckedContinuation<Outcome, any Error>?, Sink)? in
            guard !state.finished, state.stop == nil else { return nil }
            state.stop = reason
            state.finished = true
            state.body = Data()
            defer {
                state.task = nil
                state.continuation = nil
                state.sink = .memory
            }
            return (state.task, state.continuation, state.sink)
        }
        guard let (task, continuation, sink) = ended else { return }
        DeadlineClock.shared.remove(self)
        if case .file(let handle, _) = sink { try? handle.close() }
        request.progress?.finish()
        continuation?.resume(throwing: error(for: reason))
        // Not from here: a stop may come from inside a task callback, which runs on the queue that
        // `cancel()` waits for (see InlineOperationQueue).
        guard cancellingTask, let task else { return }
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            if StreamUploads.inFlight {
                StreamUploads.control.run { task.cancel() }
                return
            }
        #endif
        DispatchQueue.global().async { task.cancel() }
    }

    /// The error of a call stopped for `reason` (the mapping every executor of this repository shares).
    private func error(for reason: ExecutorStop) -> APIError {
        reason.error(for: request)
    }

    /// The error of a call that the executor's own work failed (a file it could not write, a response that does
    /// not continue a download): ``APIError/TransportProblem/other`` over `underlying`.
    func transportFailure(_ underlying: any Error) -> APIError {
        APIError(.transport(.other), endpoint: request.endpoint, request: request, underlyingError: underlying)
    }

    // MARK: - Completion

    /// The task ended: resumes the caller with the response, unless Courier stopped the call before; ends a
    /// stream that was handed over.
    ///
    /// `response` is the completion handler's; without one (the session reports events), the response is the one
    /// whose head was reported, else the task's.
    func complete(data: Data?, response: URLResponse?, task: URLSessionTask? = nil, error: (any Error)?) {
        if error == nil, let next = takeNextHop() { return send(next) }
        let ended = state.withLock { state in
            let sink = state.sink
            state.sink = .memory
            let reported = state.response
            state.response = nil
            guard !state.finished, let continuation = state.continuation else {
                return (
                    CheckedContinuation<Outcome, any Error>?.none, Data(), HTTPURLResponse?.none, sink, reported,
                    state.received, state.expected
                )
            }
            state.finished = true
            defer {
                state.task = nil
                state.continuation = nil
                state.body = Data()
            }
            return (
                continuation, data ?? state.body, state.declinedChallenge, sink, reported, state.received,
                state.expected
            )
        }
        let (continuation, body, declined, sink, reported, received, expected) = ended
        let response = response ?? reported ?? task?.response
        let error = Self.lostConnection(error, response: response, received: received, expected: expected)
        // A redirect that was not followed and a declined 401 reach no earlier callback that stores their cookies.
        if let cookies, let last = declined ?? (response as? HTTPURLResponse),
            declined != nil || (300..<400).contains(last.statusCode)
        {
            cookies.store(from: last)
        }
        request.progress?.finish()
        switch sink {
        case .stream(let stream):
            stream.finish(throwing: error)
            return
        case .file(let handle, let url):
            do {
                try handle.close()
            } catch {
                guard let continuation else { return }
                DeadlineClock.shared.remove(self)
                continuation.resume(throwing: APIError.wrapping(error, request: request))
                return
            }
            guard let continuation else { return }
            DeadlineClock.shared.remove(self)
            continuation.resume(
                with: outcome(body: Data(), response: response, error: error, declined: nil).map { (.file(url), $0.1) })
        case .memory:
            guard let continuation else { return }
            DeadlineClock.shared.remove(self)
            continuation.resume(
                with: outcome(body: body, response: response, error: error, declined: declined).map {
                    (.data($0.0), $0.1)
                })
        }
    }

    /// A transfer that failed before its body reached the declared length lost its connection, whatever the
    /// session calls it: FoundationNetworking reports a clean close mid-body (libcurl's "partial file") as an
    /// unknown error (-1), where a reset is `networkConnectionLost`. Both are the same fault for a caller (a retry
    /// may succeed, a download may resume).
    private static func lostConnection(
        _ error: (any Error)?, response: URLResponse?, received: Int, expected: Int64?
    ) -> (any Error)? {
        guard let urlError = error as? URLError, urlError.code == .unknown, let http = response as? HTTPURLResponse,
            let length = expected ?? declaredLength(of: http), Int64(received) < length
        else { return error }
        return URLError(.networkConnectionLost, userInfo: urlError.userInfo)
    }

    private func outcome(
        body: Data,
        response: URLResponse?,
        error: (any Error)?,
        declined: HTTPURLResponse?
    ) -> Result<(Data, HTTPURLResponse), any Error> {
        if let error {
            if let declined, (error as? URLError)?.code == .cancelled {
                return .success((body, declined))
            }
            return .failure(APIError.wrapping(error, request: request))
        }
        guard let response = response as? HTTPURLResponse else {
            return .failure(APIError(.transport(.other), endpoint: request.endpoint, request: request))
        }
        // A session with its own delegate hands over the whole body at the end: check the limit here.
        if body.count > request.maxResponseBytes {
            return .failure(self.error(for: .responseTooLarge))
        }
        return .success((body, response))
    }

    // MARK: - Task events

    /// The head of `dataTask`'s response arrived.
    func received(
        _ response: URLResponse, of dataTask: URLSessionDataTask,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else { return completionHandler(.allow) }
        cookies?.store(from: http)
        request.recorder?.record(.responseHeadReceived, statusCode: http.statusCode)
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            if let disposition = continueStream(dataTask, response: http) { return completionHandler(disposition) }
        #endif
        let progress = request.progress != nil
        let length = progress ? Self.declaredLength(of: http) : nil
        state.withLock { state in
            state.response = http
            if progress { state.expected = length }
        }
        if (200..<300).contains(http.statusCode) {
            switch request.responseDelivery.kind {
            case .memory, .webSocket: break
            case .file(let url, let offset, _):
                return completionHandler(
                    startFile(url, resumingAt: offset, response: http, length: Self.declaredLength(of: http)))
            case .stream:
                startStream(dataTask, response: http, length: Self.declaredLength(of: http))
                return completionHandler(.allow)
            }
        }
        // A declared length over the limit fails at once; a HEAD answer, a 204 and a 304 declare a length
        // without a body. (The length is looked up only when it matters: finding a header costs more than the
        // rest of this callback.)
        let bodiless = request.method == .head || http.statusCode == 204 || http.statusCode == 304
        if http.expectedContentLength > request.maxResponseBytes, !bodiless,
            let length = Self.declaredLength(of: http), length > request.maxResponseBytes
        {
            stop(.responseTooLarge)
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    /// The length of the decoded body that `response` declares: its `Content-Length`, unless a content encoding
    /// makes that the length of the encoded body.
    private static func declaredLength(of response: HTTPURLResponse) -> Int64? {
        guard response.expectedContentLength >= 0 else { return nil }
        let encoding = response.value(forHTTPHeaderField: "Content-Encoding")?.lowercased()
        return encoding == nil || encoding == "identity" ? response.expectedContentLength : nil
    }

    /// Opens the file of a download: appends after `offset` bytes for a `206` that continues them, else starts
    /// it afresh.
    private func startFile(
        _ url: URL, resumingAt offset: Int64, response: HTTPURLResponse, length: Int64?
    ) -> URLSession.ResponseDisposition {
        var start: Int64 = 0
        if response.statusCode == 206 {
            let range = ContentRange(response.value(forHTTPHeaderField: "Content-Range"))
            guard offset > 0, let range, range.start == offset else {
                let problem = "a 206 response whose Content-Range does not continue the file at \(offset)"
                stop(.failed(transportFailure(DownloadProblem(description: problem))))
                return .cancel
            }
            start = offset
        }
        do {
            if !FileManager.default.fileExists(atPath: url.path) {
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
                }
            }
            let handle = try FileWriter(url, at: UInt64(start))
            request.responseDelivery.willWrite?(
                APIResponse(
                    statusCode: response.statusCode, headers: HTTPHeaders(response), url: response.url, request: request
                ))
            let expected = length.map { $0 + start }
            let idle = request.responseDelivery.idleTimeout
            state.withLock { state in
                state.sink = .file(handle, url)
                state.received = Int(start)
                state.expected = expected
                if let idle {
                    state.idle = idle
                    state.lastBytes = DispatchTime.now().uptimeNanoseconds
                }
            }
            // With an idle timeout the head ends the deadline; the idle timeout takes over.
            if let idle { DeadlineClock.shared.add(self, timeout: idle) }
            request.progress?.reportReceived(start, expected: expected)
            return .allow
        } catch {
            stop(.failed(transportFailure(error)))
            return .cancel
        }
    }

    /// Hands the response over with its body as a stream; the deadline ends here, the idle timeout takes over.
    private func startStream(_ task: URLSessionDataTask, response: HTTPURLResponse, length: Int64?) {
        let (stream, continuation) = ResponseStream.makeStream(for: request) {
            // The task feeding the stream now (none while a paused stream waits for its reader).
            let current = self.state.withLock { state in
                // Nothing feeds the stream any more (this also lets the call go: the sink holds the stream).
                defer {
                    state.streamTask = nil
                    state.sink = .memory
                }
                return state.streamTask
            }
            DispatchQueue.global().async { current?.cancel() }
        }
        let caller = state.withLock { state -> CheckedContinuation<Outcome, any Error>? in
            guard !state.finished else { return nil }
            state.finished = true
            state.sink = .stream(continuation)
            state.streamTask = task
            if let sent = state.sent {
                state.resumption = StreamResumption(response: response, length: length, sent: sent)
            }
            state.sent = nil
            state.expected = length
            defer {
                state.continuation = nil
                state.task = nil
            }
            return state.continuation
        }
        guard let caller else { return }
        DeadlineClock.shared.remove(self)
        caller.resume(returning: (.stream(stream), response))
    }

    /// Bytes of `dataTask`'s response body arrived.
    func received(_ data: Data, from dataTask: URLSessionDataTask) {
        let limit = request.maxResponseBytes
        var data = data
        let (sink, tooLarge, received, expected) = state.withLock { state -> (Sink?, Bool, Int, Int64?) in
            if case .stream = state.sink {
                // A task cancelled to pause the stream may still report bytes: they are asked for again.
                guard state.streamTask === dataTask else { return (nil, false, -1, nil) }
                if state.skip > 0 {
                    let dropped = min(state.skip, data.count)
                    state.skip -= dropped
                    data = data.dropFirst(dropped)
                    if data.isEmpty { return (nil, false, -1, nil) }
                }
            }
            state.received += data.count
            switch state.sink {
            case .file, .stream:
                if state.idle != nil { state.lastBytes = DispatchTime.now().uptimeNanoseconds }
                return (state.sink, false, state.received, state.expected)
            case .memory:
                guard !state.finished else { return (nil, false, -1, nil) }
                if state.received > limit { return (nil, true, 0, nil) }
                if state.body.isEmpty {
                    state.body = data
                } else {
                    state.body.append(data)
                }
                return (nil, false, state.received, state.expected)
            }
        }
        if tooLarge { return stop(.responseTooLarge) }
        guard received >= 0 else { return }
        request.progress?.reportReceived(Int64(received), expected: expected)
        switch sink {
        case .file(let handle, _)?:
            do {
                try handle.write(contentsOf: data)
            } catch {
                stop(.failed(transportFailure(error)))
            }
        case .stream(let stream)?:
            let underWindow = stream.yield(data)
            #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
                // FoundationNetworking cannot pause a transfer (suspending a running task takes its handle off
                // libcurl, and resuming starts it again; blocking this callback blocks every session): a response
                // that can be resumed is cancelled, and asked for again from here once the reader caught up. The
                // unread bytes of any other are bounded by maxResponseBytes.
                if !underWindow, stream.unreadBytes > Self.pauseBytes, pause(dataTask, stream) { return }
                if !underWindow, stream.unreadBytes > request.maxResponseBytes {
                    stream.finish(
                        throwing: error(for: .responseTooLarge))
                    DispatchQueue.global().async { dataTask.cancel() }
                }
            #else
                if !underWindow {
                    // The reader is behind: stop reading from the network until it catches up.
                    flow.async { dataTask.suspend() }
                    stream.whenDrained { [flow] in flow.async { dataTask.resume() } }
                }
            #endif
        case .memory?, nil:
            break
        }
    }

    /// The task sent `totalBytesSent` bytes of the body so far, of `totalBytesExpectedToSend` (0 when unknown).
    func sentBody(_ totalBytesSent: Int64, of totalBytesExpectedToSend: Int64) {
        // The body knows its size; FoundationNetworking says 0 for a body it reads from a stream.
        let expected =
            request.body.count.map(Int64.init) ?? (totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil)
        request.progress?.reportSent(totalBytesSent, expected: expected)
        if let recorder = request.recorder, recorder.recordsEvents, let expected, totalBytesSent == expected {
            recorder.record(.requestSent, bytes: Int(totalBytesSent))
        }
    }

    /// The task's metrics, once it ended.
    func collected(_ metrics: URLSessionTaskMetrics) {
        // Apple platforms; FoundationNetworking does not collect metrics (the timeline has the head and the end).
        guard let recorder = request.recorder, recorder.recordsEvents, let last = metrics.transactionMetrics.last
        else { return }
        var detail = last.networkProtocolName ?? "unknown protocol"
        detail += last.isReusedConnection ? ", reused connection" : ", new connection"
        recorder.record(.connection, detail: detail)
    }

    /// `task` got a redirect `response` that URLSession would follow with `newRequest`.
    func redirecting(
        _ task: URLSessionTask, response: HTTPURLResponse, newRequest: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let (number, resuming) = state.withLock { state -> (Int, Bool) in
            state.redirects += 1
            guard case .stream = state.sink else { return (state.redirects, false) }
            return (state.redirects, true)
        }
        // A stream asked for again (Linux) continues from its own URL or fails: the redirect is its response.
        if resuming { return completionHandler(nil) }
        guard let from = response.url ?? task.currentRequest?.url, let to = newRequest.url else {
            completionHandler(nil)
            return
        }
        cookies?.store(from: response)
        let headers = HTTPHeaders(response)
        let hop = RedirectHop(statusCode: response.statusCode, headers: headers, from: from, to: to, number: number)
        switch request.redirectPolicy.decision(for: hop) {
        case .follow where Self.repeatsBody(hop) && !request.body.isReplayable:
            // A 307/308 sends the body again, and this one cannot be: the redirect is the response.
            completionHandler(nil)
        case .follow where Self.repeatsBody(hop) && sendsHopItself():
            // Courier sends the next hop itself when this response ends (see takeOver(to:crossOrigin:)).
            request.recordRedirect(hop)
            takeOver(to: to, crossOrigin: hop.isCrossOrigin)
            completionHandler(nil)
        case .follow:
            request.recordRedirect(hop)
            var next = newRequest
            if hop.isCrossOrigin { removeCredentials(from: &next) }
            setCookieField(of: &next, crossingOrigin: hop.isCrossOrigin)
            state.withLock { state in
                // A redirect's own body is not part of the response.
                state.body = Data()
                state.received = 0
                state.current = next
            }
            completionHandler(next)
        case .stop:
            completionHandler(nil)
        case .fail(let refusal):
            let redirect = APIResponse(statusCode: response.statusCode, headers: headers, url: from, request: request)
            // The task finishes on its own with the redirect response, which nobody waits for any more.
            stop(.redirectRefused(refusal, response: redirect), cancellingTask: false)
            completionHandler(nil)
        }
    }

    /// A new stream over the request's body, for a request URLSession sends again with its body (a `307`/`308`
    /// redirect, an authentication challenge): a replayable body is read again from its start; a one-shot stream
    /// gets none.
    func newBodyStream(_ completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        guard request.body.isReplayable, !request.body.isInMemory else { return completionHandler(nil) }
        completionHandler(
            Self.inputStream(reading: BodyReader(request.body)) { [weak self] error in self?.bodyFailed(error) })
    }

    /// Removes every credential from a request about to leave for another origin.
    func removeCredentials(from urlRequest: inout URLRequest) {
        for (name, _) in urlRequest.allHTTPHeaderFields ?? [:]
        where SensitiveData.isSensitive(HTTPHeaderName(rawValue: name), in: request) {
            urlRequest.setValue(nil, forHTTPHeaderField: name)
        }
    }

    /// `task` got an authentication challenge.
    func challenged(
        _ task: URLSessionTask, by challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let method = challenge.protectionSpace.authenticationMethod
        guard
            method == NSURLAuthenticationMethodHTTPBasic || method == NSURLAuthenticationMethodHTTPDigest
                || method == NSURLAuthenticationMethodDefault || method == NSURLAuthenticationMethodNTLM
                || method == NSURLAuthenticationMethodNegotiate
        else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            // Courier sends credentials as headers (configuration, endpoint, plugins), so the 401 itself is the
            // answer. Declining cancels the task; its completion then reports the 401.
            let response = (challenge.failureResponse ?? task.response) as? HTTPURLResponse
            state.withLock { $0.declinedChallenge = response }
            // Declining cancels the task, which waits for the queue this callback may run on: answer from another.
            DispatchQueue.global().async { completionHandler(.cancelAuthenticationChallenge, nil) }
        #else
            // Without a stored credential, Apple platforms return the 401 response.
            completionHandler(.performDefaultHandling, nil)
        #endif
    }

    /// `task` ended, with `error` if it failed.
    func completed(_ task: URLSessionTask, error: (any Error)?) {
        // With a completion handler, the handler reports the end (with the body).
        guard reportsEvents else { return }
        // The end of a task cancelled to pause a stream is not the stream's.
        let stale = state.withLock { state -> Bool in
            guard case .stream = state.sink else { return false }
            return state.streamTask !== task
        }
        if stale { return }
        complete(data: nil, response: nil, task: task, error: error)
    }
}
