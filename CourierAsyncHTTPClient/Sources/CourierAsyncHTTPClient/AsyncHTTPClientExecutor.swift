import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOHTTP1
import Tracing

/// An executor that sends requests with swift-server's `HTTPClient` (AsyncHTTPClient, on SwiftNIO): the
/// executor for Linux servers (Vapor, Hummingbird, workers), and for any platform where you already run an
/// `HTTPClient`.
///
/// ```swift
/// import CourierAsyncHTTPClient
///
/// APIConfiguration.default = APIConfiguration(baseURL: apiURL, executor: AsyncHTTPClientExecutor())
/// ```
///
/// It keeps the same contracts as ``Courier/URLSessionExecutor``, and passes the same
/// `ExecutorConformance` suite (in `CourierTesting`):
/// - **A timeout is a deadline.** A request's `timeout` bounds the whole call: connect, send, wait for the
///   head, and receive the whole body. A call that runs out of it fails with `.transport(.timedOut)`.
/// - **Redirects follow the request's `redirectPolicy`,** hop by hop, here and not in the client: before
///   a hop that changes the origin (scheme, host or port) every credential is removed (the headers
///   `SensitiveData` names and the request's `sensitiveHeaders`); `https` → `http` is refused unless the
///   policy allows it; `303` (and `301`/`302` after a `POST`) continue as a `GET` without the body.
/// - **Memory is bounded.** The body is counted as it arrives (after content decoding, when the client
///   decompresses); the call fails with `.transport(.responseTooLarge)` the moment it crosses
///   `maxResponseBytes`, or at once when `Content-Length` already says so.
/// - **Cancellation is prompt.** Cancelling the calling task cancels the HTTP request at once, and the call
///   fails with `.transport(.cancelled)`.
/// - **Every transport failure has a typed reason**: a refused connection is `.cannotConnect`, a connection
///   that breaks (a truncated body, a server that sends a bare status line and closes) is
///   `.connectionLost`, a malformed response is `.other` with the parser's error, TLS failures are
///   `.secureConnectionFailed`. The underlying SwiftNIO or AsyncHTTPClient error is the
///   `APIError.underlyingError`.
///
/// Repeated header fields keep their order and stay separate, in requests and in responses.
///
/// Transfers (``supportedTransfers``): `$endpoint.stream(with:)` hands the body over as it arrives, paced by
/// the reader (AsyncHTTPClient stops reading from the socket while the stream's window is full), with the
/// timeout bounding the wait for the head and the idle timeout after it; `$endpoint.download(with:to:)`
/// writes the body to a file, one chunk in memory at a time, and continues a partial file on a matching `206`;
/// progress reports bytes received as they arrive, and bytes sent as the client takes each chunk of a file, stream
/// or form body (a body held in memory counts as sent, in one step, when the response's head arrives).
/// File, stream and multipart request bodies are sent chunk by chunk (with `Content-Length` when their size is
/// known, chunked otherwise); a one-shot body is not sent twice: a `307`/`308` after it is the response.
///
/// ## The client
///
/// ``init()`` uses ``sharedClient``: one process-wide client on `HTTPClient.shared`'s event loops, with
/// `HTTPClient.shared`'s settings but redirects off, because Courier follows them itself. To pass a client
/// of your own (``init(client:)``), create it with `redirectConfiguration: .disallow`: a client that
/// follows redirects on its own would send credentials where the policy would not. If such a client
/// follows one anyway, the call fails with `.transport(.other)` and ``ClientFollowsRedirects`` as the
/// underlying error. Shut down your own client when you no longer need it (``sharedClient`` never is).
public struct AsyncHTTPClientExecutor: APIExecutor {
    /// The client that sends requests.
    public let client: HTTPClient

    /// An executor over ``sharedClient``.
    public init() {
        self.client = Self.sharedClient
    }

    /// An executor over `client`, which must not follow redirects itself (`redirectConfiguration:
    /// .disallow`); see "The client" above.
    public init(client: HTTPClient) {
        self.client = client
    }

    /// The client ``init()`` uses: created on first use, on `HTTPClient.defaultEventLoopGroup` (the event
    /// loops of `HTTPClient.shared`), with ``clientConfiguration(_:)`` of
    /// `HTTPClient.Configuration.singletonConfiguration`. It lives as long as the process and is never shut
    /// down.
    public static let sharedClient = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: clientConfiguration()
    )

    /// `configuration` with what this executor needs: redirects off (Courier follows them), and a refused
    /// connection fails the call at once (`.cannotConnect`) instead of being retried until the deadline, as
    /// with `URLSession`. A no-op tracer (what `InstrumentationSystem.tracer` is until a tracer is bootstrapped)
    /// becomes no tracer: the spans would record nothing, and the client skips their per-request work; a real
    /// tracer stays, and AsyncHTTPClient's spans are then children of ``TracingPlugin``'s. Use it when you
    /// create a client for this executor.
    public static func clientConfiguration(
        _ configuration: HTTPClient.Configuration = .singletonConfiguration
    ) -> HTTPClient.Configuration {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        // A no-op tracer records nothing, but AsyncHTTPClient would still start (and cast, and fill) a span for
        // every request: without one it skips that work. A real tracer stays.
        if configuration.tracing.tracer is NoOpTracer { configuration.tracing.tracer = nil }
        return configuration
    }

    /// Every transfer: streamed responses, downloads to files, file and streamed request bodies, and progress
    /// (for a body held in memory, upload progress in one step, once it is sent).
    public var supportedTransfers: TransferFeatures { .all }

    /// Sends `request`, following redirects as its policy says, and returns the final response, whatever
    /// its status code.
    public func execute(_ request: APIRequest) async throws -> APIResponse {
        let call = AsyncHTTPClientCall(request: request, client: client)
        return try await call.run()
    }
}

/// Why a call failed when the injected `HTTPClient` followed a redirect itself, bypassing Courier's
/// redirect policy: create the client with `redirectConfiguration: .disallow` (or
/// ``AsyncHTTPClientExecutor/clientConfiguration(_:)``).
public struct ClientFollowsRedirects: Error, Sendable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// A short English description with the fix.
    public var description: String {
        "the HTTPClient followed a redirect itself; create it with redirectConfiguration: .disallow so that "
            + "Courier's redirect policy decides (AsyncHTTPClientExecutor.clientConfiguration(_:))"
    }
}
