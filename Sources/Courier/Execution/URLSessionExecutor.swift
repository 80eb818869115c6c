import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default executor: sends requests with a `URLSession`, on Apple platforms and on Linux
/// (`FoundationNetworking`).
///
/// Redirects are followed as the session's delegate decides (by default: followed). Cancelling the
/// calling Swift task cancels the underlying `URLSessionTask` at once, and the call fails with
/// ``APIError/TransportProblem/cancelled``.
public struct URLSessionExecutor: APIExecutor {
    /// The session that sends requests.
    public let session: URLSession

    /// An executor over `session`.
    public init(session: URLSession) {
        self.session = session
    }

    /// An executor over a new session with the default configuration and `timeout` as the session's
    /// request timeout (each request's own timeout still applies).
    public init(timeout: Duration = .seconds(60)) {
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = timeout.timeInterval
        self.session = URLSession(configuration: configuration)
    }

    /// The executor that ``APIConfiguration`` uses unless told otherwise; its session is created once.
    public static let shared = URLSessionExecutor()

    /// Sends `request` and returns the response, whatever its status code.
    public func execute(_ request: APIRequest) async throws -> APIResponse {
        let urlRequest = request.urlRequest
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

    private func load(_ urlRequest: URLRequest, for request: APIRequest) async throws -> (Data, URLResponse) {
        let state = LockedBox<TaskState>(.notStarted)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        continuation.resume(throwing: APIError.wrapping(error, request: request))
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(
                            throwing: APIError(.transport(.other), endpoint: request.endpoint, request: request)
                        )
                    }
                }
                let cancelledAlready = state.withLock { current in
                    if case .cancelled = current { return true }
                    current = .running(task)
                    return false
                }
                if cancelledAlready { task.cancel() }
                task.resume()
            }
        } onCancel: {
            let task = state.withLock { current -> URLSessionDataTask? in
                defer { current = .cancelled }
                if case .running(let task) = current { return task }
                return nil
            }
            task?.cancel()
        }
    }

    private enum TaskState {
        case notStarted
        case running(URLSessionDataTask)
        case cancelled
    }
}
