import Foundation

/// How an executor hands over a response body: in memory (the default), written to a file, or as a stream.
///
/// The call forms set it (`$endpoint.download(with:to:)`, `$endpoint.stream(with:)`); executors read it from
/// `APIRequest.responseDelivery`. Only bodies of `2xx` responses go to a file or a stream: any other status
/// is read into memory (bounded by ``APIRequest/maxResponseBytes``), so its error carries the body.
public struct ResponseDelivery: Sendable {
    enum Kind: Sendable, Hashable {
        case memory
        case file(URL, offset: Int64, idleTimeout: Duration?)
        case stream(idleTimeout: Duration)
        case webSocket
    }

    let kind: Kind
    /// Whether this is a hop's delivery whose body Courier's transport call reads before anyone else: its stream
    /// holds any number of unread bytes until the call hands it on (``HTTPTransport``'s policy).
    var relayed = false
    /// Told of a file download's response head before its first byte is written.
    public let willWrite: (@Sendable (APIResponse) -> Void)?

    init(kind: Kind, willWrite: (@Sendable (APIResponse) -> Void)? = nil) {
        self.kind = kind
        self.willWrite = willWrite
    }

    /// The body is held in memory, bounded by ``APIRequest/maxResponseBytes``.
    public static let memory = ResponseDelivery(kind: .memory)

    /// The body is written to the file at `url`, which the executor creates or replaces.
    ///
    /// With `offset` > 0 the request asks for the rest of a partial download (its `Range` header starts at
    /// `offset`): a `206` whose `Content-Range` starts at `offset` is appended after the file's first `offset`
    /// bytes; any other `2xx` replaces the whole file. Not bounded by ``APIRequest/maxResponseBytes``: the
    /// disk is the limit, and memory stays bounded by one chunk.
    ///
    /// With `idleTimeout`, the request's ``APIRequest/timeout`` bounds the wait for the response head only;
    /// after it the transfer fails with ``APIError/TransportProblem/timedOut`` when no byte arrives for
    /// `idleTimeout`, however long the whole body takes. Without it, the timeout is a deadline for the whole call.
    ///
    /// The executor calls `willWrite` with the response (status and headers, no body) before it writes the
    /// first byte: `$endpoint.download(with:to:)` records the validator it needs to resume there.
    public static func file(
        _ url: URL, resumingAt offset: Int64 = 0, idleTimeout: Duration? = nil,
        willWrite: (@Sendable (APIResponse) -> Void)? = nil
    ) -> ResponseDelivery {
        ResponseDelivery(kind: .file(url, offset: max(0, offset), idleTimeout: idleTimeout), willWrite: willWrite)
    }

    /// The body is handed over as it arrives, as a ``ResponseStream``; the call fails with
    /// ``APIError/TransportProblem/timedOut`` when no byte arrives for `idleTimeout`.
    ///
    /// The request's ``APIRequest/timeout`` bounds the wait for the response head only; after that, the idle
    /// timeout applies between chunks, however long the stream lasts. Not bounded by
    /// ``APIRequest/maxResponseBytes``: a stream holds at most a small window of unread bytes in memory.
    public static func stream(idleTimeout: Duration = .seconds(60)) -> ResponseDelivery {
        ResponseDelivery(kind: .stream(idleTimeout: idleTimeout))
    }

    /// The response is a WebSocket handshake: on `101 Switching Protocols` its body is the open socket
    /// (``ResponseBody/webSocket(_:)``); any other status is read into memory. Needs
    /// ``TransferFeatures/webSockets``; ``API/connect(with:pingInterval:reconnect:using:)`` sets it.
    public static let webSocket = ResponseDelivery(kind: .webSocket)

    /// Whether the response is a WebSocket handshake (``webSocket``).
    public var isWebSocket: Bool { kind == .webSocket }

    /// The file the body goes to, for ``file(_:resumingAt:idleTimeout:willWrite:)``.
    public var fileURL: URL? {
        if case .file(let url, _, _) = kind { return url }
        return nil
    }

    /// Where a resumed download starts (0 otherwise).
    public var resumeOffset: Int64 {
        if case .file(_, let offset, _) = kind { return offset }
        return 0
    }

    /// Whether the body is handed over as a stream.
    public var isStream: Bool {
        if case .stream = kind { return true }
        return false
    }

    /// The longest wait between two chunks of a stream, or of a file download that has an idle timeout instead
    /// of a deadline; `nil` when the request's ``APIRequest/timeout`` is a deadline for the whole call.
    public var idleTimeout: Duration? {
        switch kind {
        case .stream(let timeout): timeout
        case .file(_, _, let timeout): timeout
        case .memory, .webSocket: nil
        }
    }
}
