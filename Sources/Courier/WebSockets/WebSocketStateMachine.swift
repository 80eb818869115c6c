import Foundation

/// The bytes of a WebSocket frame or message, as a transport holds them (SwiftNIO's `ByteBuffer`, `Data`): what
/// ``WebSocketStateMachine`` counts and joins.
@_spi(CourierInternals)
public protocol WebSocketPayload: Sendable {
    /// The number of bytes.
    var byteCount: Int { get }
    /// Appends `other`'s bytes (a continuation frame joined to its message).
    mutating func append(_ other: Self)
}

@_spi(CourierInternals)
extension Data: WebSocketPayload {
    /// The number of bytes.
    public var byteCount: Int { count }
    /// Appends `other`'s bytes.
    @inlinable
    public mutating func append(_ other: Data) { append(contentsOf: other) }
}

/// The wire state of one open WebSocket (RFC 6455), after its handshake: a value changed only by events (a frame
/// arrived, the reader asks for more, a ping or a close is requested, the connection ended), each returning the
/// action the transport performs (deliver a message, write a frame, answer the peer's close, fail the reader,
/// close the connection, read from the socket). It knows no sockets,
/// timers or locks: `AsyncHTTPClientExecutor`'s frame handler feeds it the frames it decodes, and
/// `URLSessionExecutor`'s task transport the messages and the close its task reads.
///
/// ```
///            ping, pong, data ─┐                      peer's close: answer it, hand it to the reader
///                              ▼
///   ┌──────────────────────► open ──────────────────────────────────────────────► closeReceived
///   │                          │ close requested: send ours
///   │                          ▼                      peer's close: the wait ends
///   │                      closeSent ────────────────────────────────────────────► closeReceived
///   │                                                                                    │
///   │   a broken frame, a message over the limit, text not UTF-8: send 1002/1009/1007    │
///   └── open, closeSent ─────────────────────────────────────────────► failed            │
///                                                                          │             │
///                                    the connection ended (TCP) ──────────►└──► closed ◄─┘
/// ```
///
/// - **The close handshake.** The peer's close is answered at once with a close frame echoing its code (empty when
///   it sent none), once, and handed to the reader after the messages before it; a close of ours waits for the
///   peer's answer (the transport bounds that wait), except when the peer is known not to answer (a pong it never
///   sent), and a close requested after the peer's closes the connection at once.
/// - **Messages before the end.** Frames are handed on in order; the connection's end is an event after them, so
///   the messages that arrived before a drop or a close are read before the end.
/// - **Limits.** A message longer than `maxMessageBytes` (inclusive) is refused while its frames arrive (`1009`);
///   a fragment out of place or an unknown opcode fails with `1002`.
/// - **Backpressure.** The reader's demand drives reads (``ReadDemand``); while a pong or the peer's close is
///   awaited the socket is read on past that demand, one read at a time, within ``pongReadAllowance`` bytes of data.
@_spi(CourierInternals)
public struct WebSocketStateMachine<Payload: WebSocketPayload>: Sendable {
    /// The bytes of data messages read past the reader's demand while a pong is awaited.
    @inlinable
    public static var pongReadAllowance: Int { 1 << 20 }

    /// The kind of a data message.
    public enum MessageKind: Sendable, Hashable {
        case text, binary
    }

    /// A frame that arrived (its payload unmasked).
    public enum Frame: Sendable {
        /// The first (or only, when `fin`) frame of a data message.
        case data(MessageKind, Payload, fin: Bool)
        /// A continuation of a fragmented message.
        case continuation(Payload, fin: Bool)
        case ping(Payload)
        case pong
        /// A close frame: its code (`nil` when the frame has none) and reason.
        case close(code: Int?, reason: String)
        /// A frame of an opcode RFC 6455 does not define.
        case unknown(opcode: Int)
    }

    /// A frame the transport writes.
    public enum Outbound: Sendable {
        case pong(Payload)
        case ping
        /// A close frame with `code` and `reason`; no code (and no reason) when `code` is `nil`.
        case close(code: Int?, reason: String)
    }

    /// Why the machine failed the connection.
    public enum Violation: Sendable, Hashable {
        /// A message over `maxMessageBytes`: close code `1009`.
        case messageTooLarge(limit: Int)
        /// A text message that is not UTF-8: close code `1007`.
        case invalidText
        /// A broken frame or a frame out of place: close code `1002`.
        case protocolError(String)

        /// The close code RFC 6455 gives the violation.
        @inlinable
        public var closeCode: Int {
            switch self {
            case .messageTooLarge: 1009
            case .invalidText: 1007
            case .protocolError: 1002
            }
        }
    }

    /// What the transport does after an event.
    public enum Action: Sendable {
        /// Nothing.
        case none
        /// Hands a whole message on to the reader.
        case deliver(MessageKind, Payload)
        /// Writes a frame.
        case write(Outbound)
        /// Completes the pings waiting for a pong.
        case completePings
        /// Fails the pings waiting for a pong: the connection gave up on it, or ended.
        case failPings
        /// The connection ended: fails the pings waiting for a pong and ends a wait for the peer's close.
        case ended
        /// Writes the answer to the peer's close, then hands the close on to the reader; a wait for the peer's
        /// close ends.
        case answerClose(Outbound, WebSocketClose)
        /// The peer answered our close: a wait for it ends (the reader was told of the end already).
        case peerClosed
        /// Writes `close` (when there is one to send), fails the reader with `violation` and closes the connection.
        case fail(Violation, close: Outbound?)
    }

    /// What the transport does for a close requested by the connection.
    public enum CloseAction: Sendable, Hashable {
        /// Writes a close frame with `code` and `reason`, then waits (bounded) for the peer's before it closes the
        /// connection; `readOn`: reads past the reader's demand, so that the peer's close arrives.
        case sendAndWait(code: Int, reason: String, readOn: Bool)
        /// Writes a close frame with `code` and `reason` and closes the connection at once: the peer is known not
        /// to answer.
        case sendAndClose(code: Int, reason: String)
        /// Closes the connection at once, without a frame (both closes were sent, it failed, or the code says the
        /// connection failed).
        case close
        /// Waits (bounded) for the peer's answer to the close sent already.
        case wait
        /// Nothing: the connection ended already.
        case none
    }

    /// What the transport reads after an event of the reader's demand.
    public enum ReadAction: Sendable, Hashable {
        /// Nothing.
        case none
        /// Reads from the socket.
        case read
        /// Asks ``readOnRequested()`` once the reader had its turn to read: a pong or the peer's close is awaited,
        /// and the reader may hold reads back.
        case askToReadOn
    }

    /// Whether a pong is awaited.
    public enum Pong: Sendable, Hashable {
        /// No ping waits for one.
        case none
        /// Pings wait for one.
        case awaited
        /// Pings wait for one, and the connection gave up on it: the peer does not answer.
        case overdue
    }

    /// The reader's demand for reads, and the reads past it.
    public enum ReadDemand: Sendable, Hashable {
        /// The reader asked for a read since the last read completed: reads follow its demand.
        case reader
        /// The reader holds reads back; `pastDemand` bytes of data messages were read past its demand since it last
        /// asked.
        case held(pastDemand: Int)
        /// A read past the reader's demand is under way; `pastDemand` as in ``held(pastDemand:)``.
        case readingOn(pastDemand: Int)
    }

    /// Where the close handshake stands.
    public enum State: Sendable, Hashable {
        /// Messages flow both ways.
        case open
        /// Our close was sent; the peer's answer is awaited. Data that arrives is dropped.
        case closeSent
        /// The peer's close arrived and was answered (or answered ours): the connection waits for its end.
        case closeReceived
        /// A violation failed the connection; it is being closed.
        case failed
        /// The connection ended.
        case closed
    }

    /// The state of the close handshake.
    @inlinable
    public var state: State { _state }
    @usableFromInline
    var _state: State = .open
    /// The largest message, in bytes (inclusive).
    public let maxMessageBytes: Int
    /// The message being joined from its fragments.
    @usableFromInline
    var partial: (kind: MessageKind, payload: Payload)?
    /// Whether the pings sent wait for a pong.
    @inlinable
    public var pong: Pong { _pong }
    @usableFromInline
    var _pong: Pong = .none
    /// The reader's demand and the reads past it.
    @inlinable
    public var demand: ReadDemand { _demand }
    @usableFromInline
    var _demand: ReadDemand = .reader

    /// A machine for a socket whose messages are at most `maxMessageBytes` long.
    @inlinable
    public init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    // MARK: Inbound

    /// A frame arrived.
    @inlinable
    public mutating func received(_ frame: Frame) -> Action {
        switch frame {
        case .ping(let payload):
            return _state == .open ? .write(.pong(payload)) : .none
        case .pong:
            guard _pong != .none else { return .none }
            _pong = .none
            return .completePings
        case .close(let code, let reason):
            return receivedClose(code: code, reason: reason)
        case .data(let kind, let payload, let fin):
            guard _state == .open else { return .none }
            guard partial == nil else { return fail(.protocolError("a new message began inside a fragmented one")) }
            countPastDemand(payload.byteCount)
            guard payload.byteCount <= maxMessageBytes else { return fail(.messageTooLarge(limit: maxMessageBytes)) }
            if fin { return .deliver(kind, payload) }
            partial = (kind, payload)
            return .none
        case .continuation(let payload, let fin):
            guard _state == .open else { return .none }
            guard var message = partial else {
                return fail(.protocolError("a continuation frame outside a fragmented message"))
            }
            countPastDemand(payload.byteCount)
            guard message.payload.byteCount + payload.byteCount <= maxMessageBytes else {
                return fail(.messageTooLarge(limit: maxMessageBytes))
            }
            partial = nil
            message.payload.append(payload)
            if fin { return .deliver(message.kind, message.payload) }
            partial = message
            return .none
        case .unknown(let opcode):
            guard _state == .open || _state == .closeSent else { return .none }
            return fail(.protocolError("an unknown opcode \(opcode)"))
        }
    }

    @inlinable

    mutating func receivedClose(code: Int?, reason: String) -> Action {
        switch _state {
        case .open:
            if let code, !Self.isReceivable(code) {
                return fail(.protocolError("a close frame with the code \(code)"))
            }
            _state = .closeReceived
            partial = nil
            let close = WebSocketClose(code: code ?? 1005, reason: reason)
            return .answerClose(.close(code: code, reason: ""), close)
        case .closeSent:
            _state = .closeReceived
            return .peerClosed
        case .closeReceived, .failed, .closed:
            return .none
        }
    }

    /// Whether a peer may send `code` in a close frame (RFC 6455 §7.4: the defined codes a frame may carry,
    /// and `3000`–`4999` for libraries and applications).
    @inlinable
    static func isReceivable(_ code: Int) -> Bool {
        (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code)
    }

    /// A text message's bytes were not UTF-8 (the transport checks as it hands the message on).
    @inlinable
    public mutating func receivedInvalidText() -> Action {
        fail(.invalidText)
    }

    /// The frame decoder refused a frame: over the size limit (`tooLarge`), or broken.
    @inlinable
    public mutating func frameRefused(tooLarge: Bool, _ description: String) -> Action {
        fail(tooLarge ? .messageTooLarge(limit: maxMessageBytes) : .protocolError(description))
    }

    @inlinable

    mutating func fail(_ violation: Violation) -> Action {
        partial = nil
        let close: Outbound? = _state == .open ? .close(code: violation.closeCode, reason: "") : nil
        if _state != .closed { _state = .failed }
        return .fail(violation, close: close)
    }

    /// The connection ended (the TCP connection closed, or failed): the pings waiting for a pong and a wait for the
    /// peer's close end with it, once. The messages handed on before stay the reader's.
    @inlinable
    public mutating func connectionEnded() -> Action {
        guard _state != .closed else { return .none }
        _state = .closed
        partial = nil
        _pong = .none
        return .ended
    }

    // MARK: Requests

    /// The connection asks for a ping: `.write(.ping)` (a pong is then awaited), or `.none` when the socket is
    /// closing or closed (the ping fails).
    @inlinable
    public mutating func pingRequested() -> Action {
        guard _state == .open else { return .none }
        if _pong == .none { _pong = .awaited }
        return .write(.ping)
    }

    /// The connection gave up waiting for a pong: the peer does not answer, so a close of ours does not wait for
    /// its answer, and the pings waiting fail.
    @inlinable
    public mutating func pongAbandoned() -> Action {
        guard _pong != .none else { return .none }
        _pong = .overdue
        return .failPings
    }

    /// The connection closes the socket with `code` and `reason` (`1006`: the connection failed, no frame).
    @inlinable
    public mutating func closeRequested(code: Int, reason: String) -> CloseAction {
        switch _state {
        case .open:
            guard code != 1006 else {
                _state = .failed
                return .close
            }
            _state = .closeSent
            if _pong == .overdue { return .sendAndClose(code: code, reason: reason) }
            return .sendAndWait(code: code, reason: reason, readOn: readOnRequested() == .read)
        case .closeSent:
            return code == 1006 ? .close : .wait
        case .closeReceived, .failed:
            return .close
        case .closed:
            return .none
        }
    }

    // MARK: Reads

    /// The reader asked for a read: `.read`, the read passed on.
    @inlinable
    public mutating func readerAskedForRead() -> ReadAction {
        _demand = .reader
        return .read
    }

    /// A read completed: the reader's demand is met, and `.askToReadOn` when a pong or the peer's close is awaited.
    @inlinable
    public mutating func readCompleted() -> ReadAction {
        switch _demand {
        case .reader: _demand = .held(pastDemand: 0)
        case .held(let bytes), .readingOn(let bytes): _demand = .held(pastDemand: bytes)
        }
        return _pong != .none || _state == .closeSent ? .askToReadOn : .none
    }

    /// Whether to read past the reader's demand now: `.read` when it holds reads back, no such read is under way,
    /// and a pong (within ``pongReadAllowance``) or the peer's close is awaited; the read is then under way.
    @inlinable
    public mutating func readOnRequested() -> ReadAction {
        guard case .held(let bytes) = _demand else { return .none }
        guard _state == .closeSent || (_state == .open && _pong != .none && bytes < Self.pongReadAllowance) else {
            return .none
        }
        _demand = .readingOn(pastDemand: bytes)
        return .read
    }

    @inlinable

    mutating func countPastDemand(_ bytes: Int) {
        if case .readingOn(let past) = _demand { _demand = .readingOn(pastDemand: past + bytes) }
    }
}

/// Frames compare by kind and contents, so that a test asserts the whole frame a transport is told to write.
extension WebSocketStateMachine.Outbound: Equatable where Payload: Equatable {}

/// Actions compare with everything they carry (the message, the frame, the close, the violation).
extension WebSocketStateMachine.Action: Equatable where Payload: Equatable {}
