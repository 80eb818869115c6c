import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One hop of ``URLSessionExecutor``: one task, whose own delegate this is. It answers the caller with the response
/// head and the body as a ``ResponseStream`` fed by the task, follows no redirect (the redirect is the response:
/// Courier's policy decides above), and stops the task when the caller is cancelled before the head or the reader
/// of the body stops.
///
/// On Apple platforms a full stream window suspends the task until the reader catches up. FoundationNetworking
/// cannot pause a task; there the stream's own bound applies (see ``ResponseStream``).
final class URLSessionHop: NSObject, Sendable {
    private enum Phase {
        /// The task has not started.
        case idle
        /// The caller waits for the head; `task` is the task in flight.
        case waiting(CheckedContinuation<APIResponse, any Error>, task: URLSessionDataTask)
        /// The caller has the head; the task feeds the body's stream.
        case streaming(ResponseStream.Continuation)
        /// The hop ended, or the caller stopped waiting.
        case ended
    }

    private struct State {
        var phase = Phase.idle
        /// Body bytes that came before the caller had the head: a redirect's or a declined `401`'s, whose head is
        /// known only when the task ends.
        var early = Data()
        /// The `401` whose challenge was declined (Linux): the task is then cancelled, and this is its response.
        var declined: HTTPURLResponse?
        /// Whether the caller stopped before the task started.
        var cancelled = false
    }

    let hop: APIRequest
    /// Whether the session reports the body as it arrives (its delegate is ``URLSessionExecutor``'s own);
    /// otherwise the task's completion handler hands it over at the end.
    let reportsEvents: Bool
    /// Where the cookies of responses go when the session leaves them to the executor (see ``CookieJar``).
    private let cookies: CookieJar?
    /// How the hop answers TLS challenges (Apple platforms).
    let trust: TLSTrust
    /// The proxy the hop goes through, whose challenge it answers with its credentials; `nil` for none.
    let proxy: HTTPProxy.Server?
    private let state = LockedBox(State())
    #if !canImport(FoundationNetworking) || COURIER_APPLE_PATHS
        /// Suspends and resumes the task for a stream's window, in the order they were asked for.
        private let flow = DispatchQueue(label: "Courier.URLSessionHop.flow")
    #endif

    init(hop: APIRequest, reportsEvents: Bool, cookies: CookieJar?, trust: TLSTrust, proxy: HTTPProxy.Server? = nil) {
        self.hop = hop
        self.reportsEvents = reportsEvents
        self.cookies = cookies
        self.trust = trust
        self.proxy = proxy
    }

    /// Sends `urlRequest` on `session` and returns the response head with its body.
    func run(_ urlRequest: URLRequest, on session: URLSession) async throws -> APIResponse {
        let response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                Self.offSessionQueue(orInline: true) { self.start(urlRequest, on: session, continuation) }
            }
        } onCancel: {
            fail(ExecutorStop.cancelled.error(for: hop))
        }
        // The task's callbacks built the body's stream, then took the lock to record the head: taking it here orders
        // that before the caller reads the stream. A head that arrives before this task suspends resumes it with no
        // handoff ThreadSanitizer sees (the call's task starts at once on its caller's thread); the lock is one.
        state.withLock { _ in }
        return response
    }

    /// Creates and resumes the task, unless the caller stopped before.
    private func start(
        _ urlRequest: URLRequest, on session: URLSession, _ continuation: CheckedContinuation<APIResponse, any Error>
    ) {
        let task = makeTask(urlRequest, body: hop.body, on: session, complete: completionHandler)
        task.delegate = TaskEvents(self)
        let started = state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.phase = .waiting(continuation, task: task)
            return true
        }
        guard started else {
            // Stopped before the task started: nothing was sent.
            task.cancel()
            return continuation.resume(throwing: ExecutorStop.cancelled.error(for: hop))
        }
        task.resume()
    }

    /// The completion handler of the hop's task on a session that does not report events (it keeps its own
    /// delegate); `nil` on a session that does.
    private var completionHandler: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)? {
        guard !reportsEvents else { return nil }
        return { data, response, error in self.ended(data: data, response: response, error: error) }
    }

    /// Runs `work`, which creates, resumes or cancels a task, off the session's queue and off the threads that may
    /// produce a stream body's chunks: on `StreamUploads.control` while such an upload is in flight (Linux), else
    /// on a Dispatch thread, or here when `orInline` (a caller's thread, not a task callback).
    static func offSessionQueue(orInline inline: Bool = false, _ work: @escaping @Sendable () -> Void) {
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            if StreamUploads.inFlight { return StreamUploads.control.run(work) }
        #endif
        if inline { return work() }
        DispatchQueue.global().async(execute: work)
    }

    // MARK: - Ending

    /// Fails the hop with `error` unless it ended: the waiting caller at once, else the body's stream; then cancels
    /// the task.
    func fail(_ error: APIError) {
        let (caller, stream, task) = state.withLock {
            state -> (CheckedContinuation<APIResponse, any Error>?, ResponseStream.Continuation?, URLSessionDataTask?)
            in
            defer { state.phase = .ended }
            switch state.phase {
            case .idle:
                state.cancelled = true
                return (nil, nil, nil)
            case .waiting(let caller, let task): return (caller, nil, task)
            case .streaming(let stream): return (nil, stream, nil)
            case .ended: return (nil, nil, nil)
            }
        }
        caller?.resume(throwing: error)
        stream?.finish(throwing: error)
        // Not from here: a failure may come from inside a task callback, which runs on the queue that `cancel()`
        // waits for (see InlineOperationQueue).
        if let task { Self.offSessionQueue { task.cancel() } }
    }

    /// The body could not be read while it was being sent: the hop fails with
    /// ``APIError/RequestProblem/unreadableBody``.
    func bodyFailed(_ error: any Error) {
        fail(APIError(.invalidRequest(.unreadableBody), endpoint: hop.endpoint, request: hop, underlyingError: error))
    }

    /// The task ended. `data` and `response` are the completion handler's (a session without events); without
    /// them, the response is the task's.
    func ended(data: Data?, response: URLResponse?, task: URLSessionTask? = nil, error: (any Error)?) {
        let (phase, early, declined) = state.withLock { state -> (Phase, Data, HTTPURLResponse?) in
            defer {
                state.phase = .ended
                state.early = Data()
            }
            return (state.phase, state.early, state.declined)
        }
        switch phase {
        case .streaming(let stream):
            // A declined challenge cancels the task: its `401` ended there.
            let declinedEnd = declined != nil && (error as? URLError)?.code == .cancelled
            stream.finish(throwing: declinedEnd ? nil : Self.bodyFailure(error))
        case .waiting(let caller, let task):
            // No head reached the caller: a redirect the hop declined, a declined `401`, a session without events,
            // or a failure.
            let head = declined ?? (response ?? task.response) as? HTTPURLResponse
            if let head, error == nil || (declined != nil && (error as? URLError)?.code == .cancelled) {
                cookies?.store(from: head)
                let body = data ?? early
                caller.resume(returning: self.response(head, body: .data(body)))
            } else {
                caller.resume(throwing: APIError.wrapping(error ?? URLError(.badServerResponse), request: hop))
            }
        case .idle, .ended:
            break
        }
    }

    /// A body that failed after its head lost its connection, whatever the session calls it: FoundationNetworking
    /// reports a close mid-body (libcurl's "partial file", a cut chunked body) as an unknown error (-1).
    private static func bodyFailure(_ error: (any Error)?) -> (any Error)? {
        guard let urlError = error as? URLError, urlError.code == .unknown else { return error }
        return URLError(.networkConnectionLost, userInfo: urlError.userInfo)
    }

    private func response(_ head: HTTPURLResponse, body: ResponseBody) -> APIResponse {
        APIResponse(statusCode: head.statusCode, headers: HTTPHeaders(head), body: body, url: head.url, request: hop)
    }

    // MARK: - Task events

    /// The head of `dataTask`'s response arrived: the caller gets it, with the body as a stream.
    func received(
        _ response: URLResponse, of dataTask: URLSessionDataTask,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else { return completionHandler(.allow) }
        cookies?.store(from: http)
        let (stream, continuation) = ResponseStream.makeStream(for: hop) {
            // The reader stopped: cancel the task feeding the stream.
            Self.offSessionQueue { dataTask.cancel() }
        }
        let caller = state.withLock { state -> CheckedContinuation<APIResponse, any Error>? in
            guard case .waiting(let caller, _) = state.phase else { return nil }
            state.phase = .streaming(continuation)
            return caller
        }
        // No caller: `fail` ended the hop and cancels the task. Answering `.cancel` too would end the task twice
        // (the disposition and the cancel each complete it), and FoundationNetworking traps on the second end once
        // the first removed the task from its session.
        guard let caller else { return completionHandler(.allow) }
        completionHandler(.allow)
        caller.resume(returning: self.response(http, body: .stream(stream)))
    }

    /// Bytes of `dataTask`'s response body arrived.
    func received(_ data: Data, from dataTask: URLSessionDataTask) {
        let stream = state.withLock { state -> ResponseStream.Continuation? in
            switch state.phase {
            case .streaming(let stream): return stream
            case .waiting:
                state.early.append(data)
                return nil
            case .idle, .ended: return nil
            }
        }
        guard let stream, !stream.yield(data) else { return }
        #if !canImport(FoundationNetworking) || COURIER_APPLE_PATHS
            // The reader is behind: stop reading from the network until it catches up.
            flow.async { dataTask.suspend() }
            stream.whenDrained { [flow] in flow.async { dataTask.resume() } }
        #endif
    }

    /// The task sent `totalBytesSent` bytes of the body so far, of `totalBytesExpectedToSend` (0 when unknown).
    func sentBody(_ totalBytesSent: Int64, of totalBytesExpectedToSend: Int64) {
        // The body knows its size; FoundationNetworking says 0 for a body it reads from a stream.
        let expected =
            hop.body.count.map(Int64.init) ?? (totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil)
        hop.progress?.reportSent(totalBytesSent, expected: expected)
        if let recorder = hop.recorder, recorder.recordsEvents, let expected, totalBytesSent == expected {
            recorder.record(.requestSent, bytes: Int(totalBytesSent))
        }
    }

    /// The task's metrics, once it ended.
    func collected(_ metrics: URLSessionTaskMetrics) {
        // Apple platforms; FoundationNetworking does not collect metrics (the timeline has the head and the end).
        guard let recorder = hop.recorder, recorder.recordsEvents, let last = metrics.transactionMetrics.last
        else { return }
        var detail = last.networkProtocolName ?? "unknown protocol"
        detail += last.isReusedConnection ? ", reused connection" : ", new connection"
        recorder.record(.connection, detail: detail)
    }

    /// A new stream over the request's body, for a request URLSession sends again with its body (an
    /// authentication challenge): a replayable body is read again from its start; a one-shot stream gets none, and
    /// URLSession sends a body in memory again itself.
    func newBodyStream(_ completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        guard hop.body.isReplayable, !hop.body.isInMemory else { return completionHandler(nil) }
        completionHandler(
            Self.inputStream(reading: BodyReader(hop.body)) { [weak self] error in self?.bodyFailed(error) })
    }

    /// `task` got an authentication challenge.
    func challenged(
        _ task: URLSessionTask, by challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if !canImport(FoundationNetworking) || COURIER_APPLE_PATHS
            if let answer = TrustChallenge.answer(challenge, trust: trust) {
                if let refusal = answer.refusal {
                    // Cancelling the challenge ends the task as cancelled: the hop fails with the refusal instead.
                    fail(
                        APIError(.transport(.secureConnectionFailed), endpoint: hop.endpoint, request: hop)
                            .refusing(refusal))
                }
                return completionHandler(answer.disposition, answer.credential)
            }
        #endif
        if challenge.protectionSpace.isProxy() {
            // The proxy's own challenge: its credentials, once; a second challenge means it refused them, and its
            // 407 comes back as the response (URLSessionExecutor types it).
            guard let proxy, let username = proxy.username, challenge.previousFailureCount == 0 else {
                return completionHandler(.rejectProtectionSpace, nil)
            }
            let credential = URLCredential(user: username, password: proxy.password ?? "", persistence: .forSession)
            return completionHandler(.useCredential, credential)
        }
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
            // answer. Declining cancels the task; its end then reports the 401.
            let response = (challenge.failureResponse ?? task.response) as? HTTPURLResponse
            state.withLock { $0.declined = response }
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
        ended(data: nil, response: nil, task: task, error: error)
    }
}
