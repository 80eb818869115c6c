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

    /// The call's state: one value, moved by the task's events, the deadline clock and cancellation.
    typealias Machine = URLSessionCallStateMachine<
        URLSessionDataTask, CheckedContinuation<Outcome, any Error>, ResponseStream.Continuation, FileWriter
    >

    let request: APIRequest
    /// Whether the session reports the body as it arrives (its delegate is ``URLSessionExecutor``'s own);
    /// otherwise the task's completion handler hands it over at the end.
    let reportsEvents: Bool
    /// Where the cookies of responses go when the session leaves them to the executor (see ``CookieJar``).
    private let cookies: CookieJar?
    /// Where the `Cookie` field of each hop comes from when the session leaves it to the executor.
    private let sentCookies: CookieJar?
    let state: LockedBox<Machine>
    /// How the call answers TLS challenges (Apple platforms).
    let trust: TLSTrust
    #if !canImport(FoundationNetworking) || COURIER_APPLE_PATHS
        /// Suspends and resumes the task for a stream's window, in the order they were asked for.
        private let flow = DispatchQueue(label: "Courier.URLSessionCall.flow")
    #endif

    init(
        request: APIRequest, reportsEvents: Bool, cookies: CookieJar? = nil, sentCookies: CookieJar? = nil,
        trust: TLSTrust = .system
    ) {
        self.request = request
        self.trust = trust
        self.reportsEvents = reportsEvents
        self.cookies = cookies
        self.sentCookies = sentCookies
        self.state = LockedBox(Machine(Self.configuration(of: request)))
    }

    /// What the state machine knows of `request` from the start.
    private static func configuration(of request: APIRequest) -> Machine.Configuration {
        let delivery: Machine.Delivery
        var idleTimeout: Duration?
        switch request.responseDelivery.kind {
        case .memory, .webSocket: delivery = .memory
        case .file(_, _, let timeout):
            delivery = .file
            idleTimeout = timeout
        case .stream: delivery = .stream
        }
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            let sendsRepeatedBodyHops = true
        #else
            let sendsRepeatedBodyHops = false
        #endif
        let body = request.body
        return Machine.Configuration(
            method: request.method.rawValue, maxResponseBytes: request.maxResponseBytes, delivery: delivery,
            reportsProgress: request.progress != nil,
            body: Machine.Body(isEmpty: body.isEmpty, isInMemory: body.isInMemory, isReplayable: body.isReplayable),
            sendsRepeatedBodyHops: sendsRepeatedBodyHops, idleTimeout: idleTimeout,
            now: { DispatchTime.now().uptimeNanoseconds })
    }

    /// Moves the state machine on with `event`, under the lock, and returns what to perform.
    func receive(_ event: Machine.Event) -> Machine.Action {
        state.withLock { $0.receive(event) }
    }

    /// Sets the `Cookie` field of `urlRequest`, the first request or a redirect hop of this call, when the executor
    /// sends cookies for the session: the request's own pairs (left behind from the first hop to another origin on,
    /// with the other credentials) merged with the jar's cookies for the hop's URL (see ``CookieJar``).
    func setCookieField(of urlRequest: inout URLRequest, crossingOrigin: Bool) {
        guard let sentCookies, let url = urlRequest.url else { return }
        guard case .setCookieField(let ownPairs) = receive(.cookieFieldNeeded(crossingOrigin: crossingOrigin))
        else { return }
        let own = ownPairs ? request.headers.values(for: .cookie) : []
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
        switch receive(.started(task, caller: continuation, session: session, request: urlRequest, resumable: keep)) {
        case .resumeTask(let task):
            startDeadline()
            task.resume()
        case .refuseStart(let task, let caller):
            // Cancelled before the task started: nothing was sent.
            task.cancel()
            caller.resume(throwing: error(for: .cancelled))
        default:
            break
        }
    }

    // MARK: - Stopping

    private func startDeadline() {
        DeadlineClock.shared.add(self, timeout: request.timeout)
        // A call stopped in between left the clock before it was added: take it out again.
        if state.withLock({ $0.isAnswered }) { DeadlineClock.shared.remove(self) }
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
        switch receive(.deadlineFired) {
        case .rearmDeadline(let wait): DeadlineClock.shared.add(self, timeout: wait)
        case .stop(let stopping): perform(stopping)
        default: break
        }
    }

    /// Ends the call with `reason` unless it already ended: resumes the caller at once, then cancels the task.
    private func stop(_ reason: ExecutorStop, cancellingTask: Bool = true) {
        guard case .stop(let stopping) = receive(.stopRequested(reason, cancelsTask: cancellingTask)) else { return }
        perform(stopping)
    }

    /// Performs the end of a stopped call: leaves the deadline clock, closes the file, finishes progress, fails
    /// the caller with the reason's error, then cancels the task.
    private func perform(_ stopping: Machine.Stopping) {
        DeadlineClock.shared.remove(self)
        try? stopping.file?.close()
        request.progress?.finish()
        stopping.caller?.resume(throwing: error(for: stopping.reason))
        // Not from here: a stop may come from inside a task callback, which runs on the queue that
        // `cancel()` waits for (see InlineOperationQueue).
        guard let task = stopping.task else { return }
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
        switch receive(.taskEnded(task: task, body: data, failed: error != nil)) {
        case .sendHop(let next, let session): send(next, on: session)
        case .finish(let finish): self.finish(finish, response: response, task: task, error: error)
        default: break
        }
    }

    /// Finishes the call as its task ended: answers the caller (when it still waits), ends a stream or a file.
    private func finish(_ finish: Machine.Finish, response: URLResponse?, task: URLSessionTask?, error: (any Error)?) {
        let response = response ?? finish.response ?? task?.response
        let error = Self.lostConnection(
            error, response: response, received: finish.received, expected: finish.expected)
        // A redirect that was not followed and a declined 401 reach no earlier callback that stores their cookies.
        if let cookies, let last = finish.declined ?? (response as? HTTPURLResponse),
            finish.declined != nil || (300..<400).contains(last.statusCode)
        {
            cookies.store(from: last)
        }
        request.progress?.finish()
        let result: Result<Outcome, any Error>
        switch finish.sink {
        case .stream(let feed):
            feed.stream.finish(throwing: error)
            return
        case .file(let handle, let url):
            do {
                try handle.close()
                result = outcome(body: Data(), response: response, error: error, declined: nil).map {
                    (.file(url), $0.1)
                }
            } catch {
                result = .failure(APIError.wrapping(error, request: request))
            }
        case .memory:
            result = outcome(body: finish.body, response: response, error: error, declined: finish.declined).map {
                (.data($0.0), $0.1)
            }
        }
        guard let continuation = finish.caller else { return }
        DeadlineClock.shared.remove(self)
        continuation.resume(with: result)
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
        switch receive(.headReceived(http, task: dataTask)) {
        case .openFile:
            guard case .file(let url, let offset, _) = request.responseDelivery.kind else { break }
            return completionHandler(
                startFile(url, resumingAt: offset, response: http, length: Self.declaredLength(of: http)))
        case .openStream:
            startStream(dataTask, response: http, length: Self.declaredLength(of: http))
        case .refuseBody(let stopping):
            if let stopping { perform(stopping) }
            return completionHandler(.cancel)
        case .failStream(let stream, let received):
            // The response to a paused stream's request does not continue it (Linux).
            let problem = "a \(http.statusCode) response that does not continue the stream at \(received) bytes"
            stream.finish(throwing: transportFailure(DownloadProblem(description: problem)))
            return completionHandler(.cancel)
        default:
            break
        }
        completionHandler(.allow)
    }

    /// The length of the decoded body that `response` declares: its `Content-Length`, unless a content encoding
    /// makes that the length of the encoded body.
    private static func declaredLength(of response: HTTPURLResponse) -> Int64? {
        Machine.declaredLength(of: response)
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
            // With an idle timeout the head ends the deadline; the idle timeout takes over.
            if case .armIdleTimeout(let idle) = receive(.fileOpened(handle, url, start: start, expected: expected)) {
                DeadlineClock.shared.add(self, timeout: idle)
            }
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
            // Nothing feeds the stream any more: cancel the task feeding it now (none while a paused stream waits
            // for its reader).
            guard case .cancelTask(let current?) = self.receive(.streamTerminated) else { return }
            DispatchQueue.global().async { current.cancel() }
        }
        let handOver = receive(.streamOpened(continuation, task: task, response: response, length: length))
        guard case .handOverStream(let caller) = handOver else { return }
        DeadlineClock.shared.remove(self)
        caller.resume(returning: (.stream(stream), response))
    }

    /// Bytes of `dataTask`'s response body arrived.
    func received(_ data: Data, from dataTask: URLSessionDataTask) {
        let (bytes, target): (Data, Machine.Target)
        switch receive(.dataReceived(data, task: dataTask)) {
        case .deliver(let delivered, let to, let received, let expected):
            (bytes, target) = (delivered, to)
            request.progress?.reportReceived(Int64(received), expected: expected)
        case .stop(let stopping):
            return perform(stopping)
        default:
            return
        }
        switch target {
        case .file(let handle):
            do {
                try handle.write(contentsOf: bytes)
            } catch {
                stop(.failed(transportFailure(error)))
            }
        case .stream(let stream):
            let underWindow = stream.yield(bytes)
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
        case .memory:
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
        // A stream asked for again (Linux) continues from its own URL or fails: the redirect is its response.
        guard case .decideRedirect(let number) = receive(.redirectReceived) else { return completionHandler(nil) }
        guard let from = response.url ?? task.currentRequest?.url, let to = newRequest.url else {
            completionHandler(nil)
            return
        }
        cookies?.store(from: response)
        let headers = HTTPHeaders(response)
        let hop = RedirectHop(statusCode: response.statusCode, headers: headers, from: from, to: to, number: number)
        let decision = request.redirectPolicy.decision(for: hop)
        switch receive(.redirectDecided(decision, repeatsBody: Self.repeatsBody(hop))) {
        case .takeOverRedirect(let current):
            // Courier sends the next hop itself when this response ends (see takeOver(_:to:crossOrigin:)).
            request.recordRedirect(hop)
            takeOver(current, to: to, crossOrigin: hop.isCrossOrigin)
            completionHandler(nil)
        case .followRedirect:
            request.recordRedirect(hop)
            var next = newRequest
            if hop.isCrossOrigin { removeCredentials(from: &next) }
            setCookieField(of: &next, crossingOrigin: hop.isCrossOrigin)
            _ = receive(.redirectFollowed(next))
            completionHandler(next)
        case .refuseRedirect(let refusal):
            let redirect = APIResponse(statusCode: response.statusCode, headers: headers, url: from, request: request)
            // The task finishes on its own with the redirect response, which nobody waits for any more.
            stop(.redirectRefused(refusal, response: redirect), cancellingTask: false)
            completionHandler(nil)
        default:
            // Not followed (the policy stopped, or a 307/308 would send a one-shot body again): the redirect is
            // the response.
            completionHandler(nil)
        }
    }

    /// A new stream over the request's body, for a request URLSession sends again with its body (a `307`/`308`
    /// redirect, an authentication challenge): a replayable body is read again from its start; a one-shot stream
    /// gets none.
    func newBodyStream(_ completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        guard case .provideBodyStream(true) = receive(.bodyStreamRequested) else { return completionHandler(nil) }
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
        #if !canImport(FoundationNetworking) || COURIER_APPLE_PATHS
            if let answer = TrustChallenge.answer(challenge, trust: trust) {
                if let refusal = answer.refusal {
                    // Cancelling the challenge ends the task as cancelled: the call fails with the refusal instead.
                    let refused = APIError(
                        .transport(.secureConnectionFailed), endpoint: request.endpoint, request: request)
                    stop(.failed(refused.refusing(refusal)), cancellingTask: false)
                }
                return completionHandler(answer.disposition, answer.credential)
            }
        #endif
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
            _ = receive(.challengeDeclined(response))
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
        // The end of a task cancelled to pause a stream is not the stream's: the state machine ignores it.
        complete(data: nil, response: nil, task: task, error: error)
    }
}
