import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One call of ``URLSessionExecutor``: the task's own delegate, which enforces the call's deadline, redirect
/// policy and size limit, and resumes the caller exactly once — when the task completes, or at once when
/// Courier stops the call (cancellation, deadline, size limit, refused redirect).
final class URLSessionCall: NSObject, URLSessionDataDelegate, DeadlineClock.Client, Sendable {
    /// Why Courier stopped a call before its task completed.
    private enum Stop {
        case cancelled
        case timedOut
        case tooLarge
        case redirectRefused(RedirectRefusal, APIResponse)
        /// The body could not be read while it was sent (a file changed, a stream failed or was read before).
        case unreadableBody(any Error)
    }

    private struct State {
        var task: URLSessionDataTask?
        var continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>?
        var stop: Stop?
        var finished = false
        var body = Data()
        var received = 0
        var redirects = 0
        /// The `401` whose challenge was declined (Linux): the task is then cancelled, and this is its response.
        var declinedChallenge: HTTPURLResponse?
    }

    private let request: APIRequest
    /// Whether the session reports the body as it arrives (its delegate is ``URLSessionExecutor``'s own);
    /// otherwise the task's completion handler hands it over at the end.
    private let reportsEvents: Bool
    private let state = LockedBox(State())

    init(request: APIRequest, reportsEvents: Bool) {
        self.request = request
        self.reportsEvents = reportsEvents
    }

    /// Sends `urlRequest` on `session` and returns the body and the response.
    func run(_ urlRequest: URLRequest, on session: URLSession) async throws -> (Data, HTTPURLResponse) {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                #if canImport(FoundationNetworking)
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
    }

    /// Creates and resumes the task.
    private func start(
        _ urlRequest: URLRequest,
        on session: URLSession,
        _ continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
    ) {
        var handler: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?
        if !reportsEvents {
            handler = { data, response, error in self.complete(data: data, response: response, error: error) }
        }
        let task = makeTask(urlRequest, body: request.body, on: session, complete: handler)
        task.delegate = self
        let started = state.withLock { state -> Bool in
            guard state.stop == nil else { return false }
            state.task = task
            state.continuation = continuation
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
        stop(.unreadableBody(error))
    }

    /// The call's deadline passed.
    func deadlinePassed() {
        stop(.timedOut)
    }

    /// Ends the call with `reason` unless it already ended: resumes the caller at once, then cancels the task.
    private func stop(_ reason: Stop, cancellingTask: Bool = true) {
        let ended = state.withLock {
            state -> (URLSessionDataTask?, CheckedContinuation<(Data, HTTPURLResponse), any Error>?)? in
            guard !state.finished, state.stop == nil else { return nil }
            state.stop = reason
            state.finished = true
            state.body = Data()
            defer {
                state.task = nil
                state.continuation = nil
            }
            return (state.task, state.continuation)
        }
        guard let (task, continuation) = ended else { return }
        DeadlineClock.shared.remove(self)
        continuation?.resume(throwing: error(for: reason))
        // Not from here: a stop may come from inside a task callback, which runs on the queue that
        // `cancel()` waits for (see InlineOperationQueue).
        guard cancellingTask, let task else { return }
        #if canImport(FoundationNetworking)
            if StreamUploads.inFlight {
                StreamUploads.control.run { task.cancel() }
                return
            }
        #endif
        DispatchQueue.global().async { task.cancel() }
    }

    private func error(for reason: Stop) -> APIError {
        switch reason {
        case .cancelled:
            APIError(
                .transport(.cancelled), endpoint: request.endpoint, request: request,
                underlyingError: CancellationError())
        case .timedOut:
            APIError(
                .transport(.timedOut), endpoint: request.endpoint, request: request,
                underlyingError: URLError(.timedOut))
        case .tooLarge:
            APIError(.transport(.responseTooLarge), endpoint: request.endpoint, request: request)
        case .redirectRefused(let refusal, let response):
            APIError(
                .transport(.redirectRefused(refusal)), endpoint: request.endpoint, request: request, response: response)
        case .unreadableBody(let error):
            APIError(
                .invalidRequest(.unreadableBody), endpoint: request.endpoint, request: request, underlyingError: error)
        }
    }

    // MARK: - Completion

    /// The task ended: resumes the caller with the response, unless Courier stopped the call before.
    private func complete(data: Data?, response: URLResponse?, error: (any Error)?) {
        let ended = state.withLock {
            state -> (CheckedContinuation<(Data, HTTPURLResponse), any Error>, Data, HTTPURLResponse?)? in
            guard !state.finished, let continuation = state.continuation else { return nil }
            state.finished = true
            defer {
                state.task = nil
                state.continuation = nil
                state.body = Data()
            }
            return (continuation, data ?? state.body, state.declinedChallenge)
        }
        guard let (continuation, body, declined) = ended else { return }
        DeadlineClock.shared.remove(self)
        continuation.resume(with: outcome(body: body, response: response, error: error, declined: declined))
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
            return .failure(self.error(for: .tooLarge))
        }
        return .success((body, response))
    }

    // MARK: - Task events

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // A declared length over the limit fails at once, unless the body is content-encoded (then the
        // length is that of the encoded bytes, and the decoded bytes are counted as they arrive).
        if let http = response as? HTTPURLResponse, http.expectedContentLength > request.maxResponseBytes {
            let encoding = http.value(forHTTPHeaderField: "Content-Encoding")?.lowercased()
            if encoding == nil || encoding == "identity" {
                stop(.tooLarge)
                completionHandler(.cancel)
                return
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let limit = request.maxResponseBytes
        let tooLarge = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.received += data.count
            if state.received > limit { return true }
            if state.body.isEmpty {
                state.body = data
            } else {
                state.body.append(data)
            }
            return false
        }
        if tooLarge { stop(.tooLarge) }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let number = state.withLock { state -> Int in
            state.redirects += 1
            return state.redirects
        }
        guard let from = response.url ?? task.currentRequest?.url, let to = newRequest.url else {
            completionHandler(nil)
            return
        }
        let headers = HTTPHeaders(response)
        let hop = RedirectHop(statusCode: response.statusCode, headers: headers, from: from, to: to, number: number)
        switch request.redirectPolicy.decision(for: hop) {
        case .follow:
            var next = newRequest
            if hop.isCrossOrigin { removeCredentials(from: &next) }
            state.withLock { state in
                // A redirect's own body is not part of the response.
                state.body = Data()
                state.received = 0
            }
            completionHandler(next)
        case .stop:
            completionHandler(nil)
        case .fail(let refusal):
            let redirect = APIResponse(statusCode: response.statusCode, headers: headers, url: from, request: request)
            // The task finishes on its own with the redirect response, which nobody waits for any more.
            stop(.redirectRefused(refusal, redirect), cancellingTask: false)
            completionHandler(nil)
        }
    }

    /// Removes every credential from a request about to leave for another origin.
    private func removeCredentials(from urlRequest: inout URLRequest) {
        for (name, _) in urlRequest.allHTTPHeaderFields ?? [:]
        where SensitiveData.isSensitive(HTTPHeaderName(rawValue: name), in: request) {
            urlRequest.setValue(nil, forHTTPHeaderField: name)
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
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
        #if canImport(FoundationNetworking)
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

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        // With a completion handler, the handler reports the end (with the body).
        guard reportsEvents else { return }
        complete(data: nil, response: task.response, error: error)
    }
}
