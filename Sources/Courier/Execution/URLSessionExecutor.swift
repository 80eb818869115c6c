import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default executor: sends requests with a `URLSession`, on Apple platforms and on Linux
/// (`FoundationNetworking`).
///
/// Redirects are followed as the session's delegate decides (by default: followed). Cancelling the
/// calling Swift task cancels the underlying `URLSessionTask` at once, and the call fails with
/// ``APIError/TransportProblem/cancelled``. A request's ``APIRequest/timeout`` always applies, and a call
/// that runs out of it fails with ``APIError/TransportProblem/timedOut``.
///
/// On Linux, `FoundationNetworking` (swift-corelibs-foundation over libcurl) needs help in three places,
/// which the executor gives it:
/// - it ignores a timeout passed to `URLRequest(url:cachePolicy:timeoutInterval:)` (only the property
///   setter counts), so the executor sets the property;
/// - it truncates timeouts to whole seconds (0.5 s fires at once, 1.5 s after 1 s), so the executor
///   hands it the next whole second and enforces a fractional timeout itself;
/// - it never completes a request whose response is a `401` with a `WWW-Authenticate` challenge it
///   cannot answer (swift-corelibs-foundation#5456). Sessions the executor creates itself
///   (``init(timeout:)`` and ``shared``) get a delegate that declines such challenges and returns the
///   `401` response, as Apple platforms do. A session passed to ``init(session:)`` keeps its own
///   delegate, so give it one that answers `urlSession(_:task:didReceive:completionHandler:)`; without
///   one such a call ends only at its timeout, as ``APIError/TransportProblem/timedOut``.
public struct URLSessionExecutor: APIExecutor {
    /// The session that sends requests.
    public let session: URLSession

    /// The delegate of a session this executor created, which reports the tasks' events; `nil` when
    /// tasks report through completion handlers.
    private let events: SessionEvents?

    /// An executor over `session`.
    public init(session: URLSession) {
        self.session = session
        self.events = nil
    }

    /// An executor over a new session with the default configuration and `timeout` as the session's
    /// request timeout (each request's own timeout still applies).
    public init(timeout: Duration = .seconds(60)) {
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = timeout.timeInterval
        #if canImport(FoundationNetworking)
            let events = SessionEvents()
            self.session = URLSession(configuration: configuration, delegate: events, delegateQueue: nil)
            self.events = events
        #else
            self.session = URLSession(configuration: configuration)
            self.events = nil
        #endif
    }

    /// The executor that ``APIConfiguration`` uses unless told otherwise; its session is created once.
    public static let shared = URLSessionExecutor()

    /// Sends `request` and returns the response, whatever its status code.
    public func execute(_ request: APIRequest) async throws -> APIResponse {
        var urlRequest = request.urlRequest
        // Assigned through the property: FoundationNetworking ignores the initializer's timeout.
        urlRequest.timeoutInterval = Self.transportTimeout(request.timeout)
        let (data, urlResponse) = try await load(urlRequest, for: request)
        guard let http = urlResponse as? HTTPURLResponse else {
            throw APIError(.transport(.other), endpoint: request.endpoint, request: request)
        }
        var headers = HTTPHeaders()
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String {
                headers.add(HTTPHeaderName(rawValue: name), value)
            }
        }
        return APIResponse(
            statusCode: http.statusCode,
            headers: headers,
            body: .data(data),
            url: http.url,
            request: request
        )
    }

    /// The timeout handed to URLSession. FoundationNetworking counts whole seconds only, rounding down,
    /// so it gets the next whole second and ``Call`` enforces the exact timeout.
    private static func transportTimeout(_ timeout: Duration) -> TimeInterval {
        #if canImport(FoundationNetworking)
            return max(1, timeout.timeInterval.rounded(.up))
        #else
            return timeout.timeInterval
        #endif
    }

    private func load(_ urlRequest: URLRequest, for request: APIRequest) async throws -> (Data, URLResponse) {
        let call = Call(request: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let started = call.start { () -> URLSessionDataTask in
                    let complete: TaskCompletion = { data, response, error in
                        continuation.resume(with: call.outcome(data: data, response: response, error: error))
                    }
                    guard let events else { return session.dataTask(with: urlRequest, completionHandler: complete) }
                    let task = session.dataTask(with: urlRequest)
                    events.register(task, completion: complete)
                    return task
                }
                guard let started else {
                    // Cancelled before the task existed: nothing was sent.
                    continuation.resume(throwing: APIError.wrapping(CancellationError(), request: request))
                    return
                }
                #if canImport(FoundationNetworking)
                    // libcurl enforces whole seconds exactly; only a fractional timeout needs a timer of ours.
                    if request.timeout.timeInterval.rounded(.up) != request.timeout.timeInterval {
                        call.scheduleTimeout(after: request.timeout)
                    }
                #endif
                started.resume()
            }
        } onCancel: {
            call.cancel()
        }
    }
}

/// What a data task reports when it ends: the body, the response, or the error.
private typealias TaskCompletion = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

/// One call's task and how it ended: the calling task's cancellation and the timeout both cancel the
/// `URLSessionTask`, and this records which one did so that the outcome says so.
private final class Call: Sendable {
    private enum State {
        case notStarted
        case running(URLSessionDataTask)
        case cancelled
        case timedOut
        case finished
    }

    private let state = LockedBox<State>(.notStarted)
    private let request: APIRequest

    init(request: APIRequest) {
        self.request = request
    }

    /// Creates the task with `makeTask` and returns it, or returns `nil` when the call was cancelled first.
    func start(_ makeTask: () -> URLSessionDataTask) -> URLSessionDataTask? {
        state.withLock { state in
            guard case .notStarted = state else { return nil }
            let task = makeTask()
            state = .running(task)
            return task
        }
    }

    /// The calling task was cancelled.
    func cancel() {
        stop(as: .cancelled)
    }

    /// Fails the call with a timeout after `timeout`, unless it ended before.
    func scheduleTimeout(after timeout: Duration) {
        // Weak: a call that ended is released at once rather than kept until its deadline.
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.timeInterval) { [weak self] in
            self?.stop(as: .timedOut)
        }
    }

    private func stop(as reason: State) {
        let task = state.withLock { state -> URLSessionDataTask? in
            switch state {
            case .notStarted:
                state = reason
                return nil
            case .running(let task):
                state = reason
                return task
            case .cancelled, .timedOut, .finished:
                return nil
            }
        }
        task?.cancel()
    }

    /// What the task's completion means for the call.
    func outcome(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<(Data, URLResponse), any Error> {
        let previous = state.withLock { state -> State in
            defer { state = .finished }
            return state
        }
        if let error {
            if case .timedOut = previous, (error as? URLError)?.code == .cancelled {
                // Cancelled by the timeout: report it as URLSession reports its own timeouts.
                return .failure(APIError.wrapping(URLError(.timedOut), request: request))
            }
            return .failure(APIError.wrapping(error, request: request))
        }
        guard let response else {
            return .failure(APIError(.transport(.other), endpoint: request.endpoint, request: request))
        }
        return .success((data ?? Data(), response))
    }
}

#if canImport(FoundationNetworking)
    /// The delegate of a session that ``URLSessionExecutor`` creates: collects each task's body and hands it,
    /// with the response or the error, to the completion registered for the task.
    ///
    /// It exists for FoundationNetworking, which asks only a session delegate about authentication
    /// challenges and, without one, never completes a `401` whose challenge it cannot answer.
    private final class SessionEvents: NSObject, URLSessionDataDelegate, Sendable {
        private struct Pending {
            var completion: TaskCompletion
            var body = Data()
            /// The `401` whose challenge was declined; the task is then cancelled and this is its response.
            var declinedChallenge: URLResponse?
        }

        private let pending = LockedBox<[Int: Pending]>([:])

        /// Routes the events of `task`, which must not have been resumed yet, to `completion`.
        func register(_ task: URLSessionTask, completion: @escaping TaskCompletion) {
            pending.withLock { $0[task.taskIdentifier] = Pending(completion: completion) }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            pending.withLock { $0[dataTask.taskIdentifier]?.body.append(data) }
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            // A 401 challenge: Courier sends credentials as headers (configuration, endpoint, plugins), so the
            // 401 itself is the answer. Declining cancels the task; its completion then reports the 401.
            let response = challenge.failureResponse ?? task.response
            pending.withLock { $0[task.taskIdentifier]?.declinedChallenge = response }
            completionHandler(.cancelAuthenticationChallenge, nil)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            if let declined = entry.declinedChallenge, (error as? URLError)?.code == .cancelled {
                entry.completion(entry.body, declined, nil)
            } else if let error {
                entry.completion(nil, nil, error)
            } else {
                entry.completion(entry.body, task.response, nil)
            }
        }
    }
#else
    /// Apple platforms answer authentication challenges without a session delegate, so executors there
    /// never create one and tasks report through completion handlers.
    private final class SessionEvents: Sendable {
        func register(_ task: URLSessionTask, completion: @escaping TaskCompletion) {}
    }
#endif
