import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why an executor ended a call before its transport did, and the one ``APIError`` each reason becomes, so that
/// every executor of this repository (``URLSessionExecutor``, `AsyncHTTPClientExecutor`) fails a stopped call
/// alike: plumbing shared between this repository's packages (`@_spi(CourierInternals)`, see
/// `Sources/Courier/SPI.swift`).
@_spi(CourierInternals)
public enum ExecutorStop: Sendable {
    /// The calling task was cancelled: ``APIError/TransportProblem/cancelled``, over a `CancellationError`.
    case cancelled
    /// The call's deadline, or a download's idle timeout, passed: ``APIError/TransportProblem/timedOut``.
    case timedOut
    /// The body grew past the request's ``APIRequest/maxResponseBytes``:
    /// ``APIError/TransportProblem/responseTooLarge``.
    case responseTooLarge
    /// The redirect policy refused a hop; `response` is the redirect:
    /// ``APIError/TransportProblem/redirectRefused(_:)``.
    case redirectRefused(RedirectRefusal, response: APIResponse)
    /// The executor failed the call with an error of its own (a file it could not write, a bad `206`).
    case failed(APIError)

    /// The error that ends the call of `request` stopped for this reason.
    /// - Parameter timeoutError: The executor's own word for a passed deadline, kept as the underlying error.
    public func error(for request: APIRequest, timeoutError: any Error = URLError(.timedOut)) -> APIError {
        switch self {
        case .cancelled:
            APIError(
                .transport(.cancelled), endpoint: request.endpoint, request: request,
                underlyingError: CancellationError())
        case .timedOut:
            APIError(
                .transport(.timedOut), endpoint: request.endpoint, request: request, underlyingError: timeoutError)
        case .responseTooLarge:
            APIError(.transport(.responseTooLarge), endpoint: request.endpoint, request: request)
        case .redirectRefused(let refusal, let response):
            APIError(
                .transport(.redirectRefused(refusal)), endpoint: request.endpoint, request: request, response: response)
        case .failed(let error):
            error
        }
    }
}
