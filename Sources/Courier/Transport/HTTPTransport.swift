/// Moves one hop of HTTP: sends one request and returns its response head with the body as it arrives. Courier's
/// HTTP policy runs above it, once, for every transport: an `HTTPTransport` is an ``APIExecutor`` whose
/// ``APIExecutor/execute(_:)`` is that policy.
///
/// What the policy does, so that a transport does not:
/// - **The deadline.** The request's ``APIRequest/timeout`` bounds the whole call (every hop, the whole body);
///   Courier cancels the task that awaits ``send(_:)`` or reads the body when it passes, and fails the call with
///   ``APIError/TransportProblem/timedOut``. A download's or a stream's idle timeout is kept the same way.
/// - **Redirects.** A `3xx` is a response like any other: Courier asks the request's ``APIRequest/redirectPolicy``,
///   rewrites the method (`303`, and `301`/`302` after a `POST`, continue as a `GET` without the body), sends a
///   `307`/`308` body again (a one-shot stream is never sent twice: the redirect is then the response), removes
///   every credential before a hop to another origin, and sends the next hop through ``send(_:)``.
/// - **The size limit**, counted on the bytes the transport hands over (decoded: a transport decodes any
///   `Content-Encoding` it asked for), and the declared `Content-Length`, which counts only without a
///   `Content-Encoding`: more bytes than ``APIRequest/maxResponseBytes`` fail with
///   ``APIError/TransportProblem/responseTooLarge``; a body that ends before its declared length lost its
///   connection (``APIError/TransportProblem/connectionLost``).
/// - **Delivery** to memory, to a file (a resumed download's `206` checked against its `Content-Range`) or to a
///   ``ResponseStream``, with the bytes received reported to ``APIRequest/progress``.
///
/// What the transport does: it opens connections (its pool, TLS with its own trust, proxies), sends the hop's
/// ``APIRequest/method``, ``APIRequest/url``, ``APIRequest/headers`` and ``APIRequest/body`` (any kind: read a body
/// that is not in memory with ``RequestBody/chunks()``), follows no redirect, and returns every response whatever its
/// status. It keeps the cookies of its stack, if any (stores each hop's `Set-Cookie`, adds its `Cookie` field to each
/// hop). It may report the bytes it sends to the hop's ``APIRequest/progress``, and use the hop's
/// ``APIRequest/timeout`` (what is left of the call's deadline, or the idle timeout when that is longer) for timeouts
/// of its own. It stops promptly when the calling task is cancelled, and when the reader of the body it returned
/// stops. Of the request's settings it reads only ``ResponseDelivery/isWebSocket`` (a handshake, for a transport that
/// declares ``TransferFeatures/webSockets``): the
/// redirect policy, the size limit and the rest of the delivery are Courier's.
///
/// ```swift
/// struct LoopbackTransport: HTTPTransport {
///     func send(_ hop: APIRequest) async throws -> APIResponse {
///         let (stream, continuation) = ResponseStream.makeStream(for: hop) {}
///         continuation.yield(Data("pong".utf8))
///         continuation.finish()
///         return APIResponse(statusCode: 200, headers: ["Content-Length": "4"], body: .stream(stream), url: hop.url,
///                            request: hop)
///     }
/// }
/// ```
///
/// The body is a ``ResponseStream`` the transport feeds through its ``ResponseStream/Continuation`` (pausing while
/// ``ResponseStream/Continuation/yield(_:)`` says the reader is a window behind, and cancelling its transfer in
/// `onCancel`), or ``ResponseBody/data(_:)`` when the transport only ever has the whole body. A transport declares
/// ``TransferFeatures/webSockets`` in ``APIExecutor/supportedTransfers`` when it answers a handshake with `101` and a
/// ``WebSocketConnection``; every other transfer is Courier's (the default is ``TransferFeatures/all``). Errors:
/// throw an ``APIError`` (its reason typed) or an error Courier classifies (a `URLError`, a `CancellationError`).
/// The <doc:WritingAnExecutor> article writes one over a client of your choice, and `ExecutorConformance` (in
/// CourierTesting) checks it.
public protocol HTTPTransport: APIExecutor {
    /// Sends `hop` (one request, no redirect followed) and returns its response, whatever its status, with the body
    /// as it arrives.
    func send(_ hop: APIRequest) async throws -> APIResponse
}

extension HTTPTransport {
    /// Sends `request` with Courier's HTTP policy over ``send(_:)``: the deadline, redirects, the size limit and the
    /// delivery of the body.
    public func execute(_ request: APIRequest) async throws -> APIResponse {
        try await executeByPolicy(request)
    }

    /// Every transfer beyond in-memory bodies (Courier carries them out over ``send(_:)``); not
    /// ``TransferFeatures/webSockets``, which a transport that opens them declares.
    public var supportedTransfers: TransferFeatures { .all }
}

/// A transport that verifies servers with a ``TLSTrust`` of its own: Courier's policy warns about its roots and pins
/// past their rotation date (``TLSPin/rotating(by:)``), before every hop.
@_spi(CourierInternals)
public protocol TLSTrustHolding {
    /// The trust the transport verifies servers with.
    var heldTrust: TLSTrust { get }
}

@_spi(CourierInternals)
extension HTTPTransport {
    /// What ``execute(_:)`` does, for a transport of this repository whose 1.0 API declares `execute(_:)` itself.
    public func executeByPolicy(_ request: APIRequest) async throws -> APIResponse {
        try checkSupport(for: request)
        return try await TransportCall(request: request, transport: self).run()
    }
}
