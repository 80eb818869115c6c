/// Sends a built ``APIRequest`` and returns the ``APIResponse``: the one place where a request meets the
/// network (or a stub).
///
/// ``URLSessionExecutor`` is the default. Swap executors per call (`using:`), per task
/// (``APIConfiguration/withCurrent(_:isolation:operation:)``) or globally (``APIConfiguration/default``)
/// without touching a single endpoint declaration.
///
/// An executor returns every response it receives, whatever its status: status validation and
/// decoding happen above it. It should throw ``APIError`` for transport failures (or a `URLError`,
/// which Courier classifies) and stop promptly when the calling task is cancelled.
///
/// ## Implementing
///
/// A logging wrapper around another executor:
///
/// ```swift
/// struct LoggingExecutor: APIExecutor {
///     let wrapped: any APIExecutor
///
///     func execute(_ request: APIRequest) async throws -> APIResponse {
///         let start = ContinuousClock.now
///         print("→ \(request.method) \(request.url)")
///         do {
///             let response = try await wrapped.execute(request)
///             print("← \(response.statusCode) in \(ContinuousClock.now - start)")
///             return response
///         } catch {
///             print("✗ \(error)")
///             throw error
///         }
///     }
/// }
///
/// var configuration = APIConfiguration.default
/// configuration.executor = LoggingExecutor(wrapped: URLSessionExecutor())
/// APIConfiguration.default = configuration
/// ```
///
/// ## Transfers
///
/// Beyond in-memory bodies, an executor declares what else it can do in ``supportedTransfers``: write a
/// response body to a file, hand it over as a ``ResponseStream``, report progress, send bodies from files or
/// streams. The default is none of it, so an executor that implements only ``execute(_:)`` keeps working for
/// every in-memory call, and a call that needs more fails with
/// ``APIError/TransportProblem/unsupportedByExecutor`` before any I/O. A wrapper forwards its wrapped
/// executor's features:
///
/// ```swift
/// extension LoggingExecutor {
///     var supportedTransfers: TransferFeatures { wrapped.supportedTransfers }
/// }
/// ```
///
/// An executor that carries out transfers itself reads ``APIRequest/responseDelivery`` and the
/// ``RequestBody``, feeds a ``ResponseStream`` through its ``ResponseStream/Continuation`` and reports to
/// ``APIRequest/progress`` (see "Transfers beyond memory" in <doc:WritingAnExecutor>).
public protocol APIExecutor: Sendable {
    /// Sends `request` and returns the response, whatever its status code.
    func execute(_ request: APIRequest) async throws -> APIResponse

    /// The transfers this executor carries out beyond in-memory bodies; none unless it says so.
    var supportedTransfers: TransferFeatures { get }
}
