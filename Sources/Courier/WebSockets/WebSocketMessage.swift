import Foundation

/// One message of a WebSocket, in either direction: text or binary.
///
/// ```swift
/// try await socket.send(.text("hello"))
/// try await socket.send(.binary(Data([1, 2, 3])))
/// for try await message in socket {
///     if case .text(let text) = message { print(text) }
/// }
/// ```
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (UTF-8 on the wire).
    case text(String)
    /// A binary message.
    case binary(Data)

    /// The message's bytes: the UTF-8 of a text, the data of a binary message.
    public var data: Data {
        switch self {
        case .text(let text): Data(text.utf8)
        case .binary(let data): data
        }
    }

    /// The message as text: a text message's text, a binary message's bytes read as UTF-8 (`nil` when they are not).
    public var text: String? {
        switch self {
        case .text(let text): text
        case .binary(let data): String(data: data, encoding: .utf8)
        }
    }

    /// The size of the message on the wire, in bytes.
    var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}

/// The close of a WebSocket: its code and reason (RFC 6455 §7.4), as sent with
/// ``WebSocketConnection/close(code:reason:)`` or received from the peer (``WebSocketConnection/receivedClose``).
public struct WebSocketClose: Error, Sendable, Hashable, CustomStringConvertible {
    /// The close code: `1000` a normal close, `1001` going away, `1008` a policy violation, `1009` a message too
    /// big, `1011` a server error; `4000`–`4999` for applications.
    public let code: Int
    /// The reason, for people; at most 123 bytes of UTF-8 are sent.
    public let reason: String

    /// A close with `code` and `reason`.
    public init(code: Int, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// The code and the reason.
    public var description: String { reason.isEmpty ? "\(code)" : "\(code) \(reason)" }

    /// Whether the close ends a connection without an error: `1000` (normal) or `1001` (going away).
    var isClean: Bool { code == 1000 || code == 1001 }

    /// Whether a reconnection may help: the peer went away or restarts (`1001`, `1012`, `1013`), or failed
    /// (`1011`, `1014`), or the connection dropped without a close (`1006`).
    var isTransient: Bool { [1001, 1006, 1011, 1012, 1013, 1014].contains(code) }

    /// The reason cut to the 123 bytes a close frame holds, at a character boundary.
    var sendableReason: String {
        var reason = reason
        while reason.utf8.count > 123 { reason.removeLast() }
        return reason
    }
}

/// What a ``WebSocketTransport`` received: a message, or the peer's close.
public enum WebSocketEvent: Sendable, Hashable {
    /// A whole message (fragments joined).
    case message(WebSocketMessage)
    /// The peer's close frame; nothing follows it.
    case close(WebSocketClose)
}

/// One open WebSocket as an executor carries it: what ``WebSocketConnection`` reads from and writes to.
///
/// An executor that declares ``TransferFeatures/webSockets`` answers a request whose
/// ``APIRequest/responseDelivery`` is ``ResponseDelivery/webSocket`` with the handshake: on `101 Switching Protocols`
/// a response whose body is ``ResponseBody/webSocket(_:)``, a connection made with
/// ``WebSocketConnection/init(request:transport:subprotocol:)``; on any other status that response with its body in
/// memory (a `401` then goes back through the plugins like any other). The connection runs the pings, the size
/// limit, the typed messages, the close and the timeline above the transport.
///
/// ## Implementing
///
/// Over a client whose socket receives with an `async` method (as `URLSessionWebSocketTask` does):
///
/// ```swift
/// struct TaskTransport: WebSocketTransport {
///     let task: URLSessionWebSocketTask
///
///     func receive() async throws -> WebSocketEvent {
///         switch try await task.receive() {
///         case .string(let text): .message(.text(text))
///         case .data(let data): .message(.binary(data))
///         @unknown default: throw URLError(.cannotParseResponse)
///         }
///     }
///     func send(_ message: WebSocketMessage) async throws {
///         switch message {
///         case .text(let text): try await task.send(.string(text))
///         case .binary(let data): try await task.send(.data(data))
///         }
///     }
///     func ping() async throws {
///         try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
///             task.sendPing { error in
///                 if let error { done.resume(throwing: error) } else { done.resume() }
///             }
///         }
///     }
///     func close(_ close: WebSocketClose) async {
///         task.cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: close.code) ?? .normalClosure, reason: nil)
///     }
/// }
/// ```
///
/// - **Backpressure.** Read from the network only as ``receive()`` is called: hold at most a message or a few
///   frames beyond it, so a slow reader keeps memory bounded.
/// - **Size.** Refuse a message longer than the request's ``APIRequest/maxResponseBytes`` while its frames arrive
///   (throw ``APIError/TransportProblem/responseTooLarge``); the connection checks every message again.
/// - **Errors.** Throw an ``APIError`` or an error Courier classifies (a `URLError`, a `CancellationError`): a
///   connection that drops without a close frame is ``APIError/TransportProblem/connectionLost``.
public protocol WebSocketTransport: Sendable {
    /// The next message, or the peer's close; called by one reader at a time.
    func receive() async throws -> WebSocketEvent
    /// Sends `message` whole.
    func send(_ message: WebSocketMessage) async throws
    /// Sends a ping and returns when its pong arrives.
    func ping() async throws
    /// Sends the close frame `close` (when the connection is still open) and closes the connection; a pending
    /// ``receive()`` then ends. Called once. The reason fits a close frame (at most 123 bytes of UTF-8). Code `1006` means the connection failed (it was lost, or a message was
    /// too big to read): close it without sending a frame, which may not carry that code.
    func close(_ close: WebSocketClose) async
}
