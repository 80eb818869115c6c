import Foundation

/// An open WebSocket from ``API/connect(with:pingInterval:reconnect:using:)``: its incoming messages are an
/// `AsyncSequence`, and it sends text, binary and `Encodable` messages.
///
/// ```swift
/// let socket = try await Chat.$room.connect(with: "lobby")
/// try await socket.send("hello")                          // a text message
/// try await socket.send(ChatMessage(text: "hi"))          // JSON, with the configuration's encoder
/// for try await message in socket.messages(as: ChatMessage.self) {
///     print(message.text)
/// }
/// ```
///
/// - **The end.** The messages end (`nil`) when the peer closes with `1000` (normal) or `1001` (going away), or
///   after ``close(code:reason:)``; the peer's close is then ``receivedClose``. Any other close from the peer fails
///   with ``APIError/TransportProblem/closedByPeer``, a connection dropped without a close with
///   ``APIError/TransportProblem/connectionLost``. The peer's close is answered at once with a close frame echoing
///   its code, and the messages that arrived before a close or a drop are read before the end.
/// - **Leaving the loop closes the socket.** Leaving a loop over the messages early (`break`, `return`, a thrown
///   error), an iterator of your own that goes away before the end, or cancelling the reading task closes the socket
///   (code `1001`); cancelling fails the loop with ``APIError/TransportProblem/cancelled``.
/// - **Keep-alive.** A ping every `pingInterval`; when a pong has not come back by the next ping, the connection
///   fails with ``APIError/TransportProblem/timedOut`` (so within twice the interval) and closes with `1011`
///   ("ping timeout") without waiting for the unresponsive peer.
/// - **Bounded memory.** Messages are read from the network as the loop asks for them: a slow reader holds the
///   peer back rather than filling memory. A message over the request's ``APIRequest/maxResponseBytes`` closes the
///   socket (`1009`) and fails with ``APIError/TransportProblem/responseTooLarge``.
///
/// Only one loop reads a socket at a time; sending is safe from any task, alongside it. Errors are ``APIError``s
/// naming the endpoint.
public final class WebSocketConnection: AsyncSequence, Sendable, Hashable {
    /// The element type: a message as it arrived.
    public typealias Element = WebSocketMessage

    /// The request that opened the socket (its handshake).
    public let request: APIRequest
    /// The subprotocol the server chose (its `Sec-WebSocket-Protocol`); `nil` when it chose none.
    public let subprotocol: String?
    let state: LockedBox<State>

    /// A connection over `transport`, opened by `request`: what an executor answers a WebSocket request with (as
    /// ``ResponseBody/webSocket(_:)``).
    ///
    /// - Parameters:
    ///   - request: The handshake request; errors name its endpoint.
    ///   - transport: The open socket.
    ///   - subprotocol: The subprotocol the server chose in its handshake response, if any.
    public init(request: APIRequest, transport: some WebSocketTransport, subprotocol: String? = nil) {
        self.request = request
        self.subprotocol = subprotocol
        self.state = LockedBox(State(machine: WebSocketConnectionMachine(request: request), transport: transport))
    }

    /// The close the peer sent, once it arrived; `nil` before, and when the connection ended without one.
    public var receivedClose: WebSocketClose? { state.value.machine.receivedClose }

    /// Whether the socket is open: it has not been closed, by either side, nor failed.
    public var isOpen: Bool { state.value.machine.isOpen }

    /// Two connections are equal when they are the same connection.
    public static func == (lhs: WebSocketConnection, rhs: WebSocketConnection) -> Bool { lhs === rhs }

    /// Hashes the connection's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: Sending

    /// Sends `message`.
    /// - Throws: ``APIError``: ``APIError/TransportProblem/connectionLost`` once the socket is closed.
    public func send(_ message: WebSocketMessage) async throws(APIError) {
        let (action, transport) = state.withLock { ($0.machine.send(bytes: message.byteCount), $0.transport) }
        if case .refuse(let error) = action { throw error }
        do {
            try await transport.send(message)
        } catch {
            throw APIError.wrapping(error, request: request)
        }
    }

    /// Sends `text` as a text message, as it is.
    /// - Throws: ``APIError``: ``APIError/TransportProblem/connectionLost`` once the socket is closed.
    public func send(_ text: String) async throws(APIError) {
        try await send(.text(text))
    }

    /// Sends `data` as a binary message.
    /// - Throws: ``APIError``: ``APIError/TransportProblem/connectionLost`` once the socket is closed.
    public func send(_ data: Data) async throws(APIError) {
        try await send(.binary(data))
    }

    /// Sends `value` encoded as JSON, with the configuration's ``APIConfiguration/encoder``, in a text message (a
    /// `String` or `Data` value is sent as it is: see ``send(_:)-(String)`` and ``send(_:)-(Data)``).
    /// - Throws: ``APIError``: ``APIError/RequestProblem/unencodableParameters`` when `value` cannot be encoded.
    public func send(_ value: some Encodable) async throws(APIError) {
        let text: String
        do {
            let data = try state.value.settings.encoder.encode(value)
            text = String(decoding: data, as: UTF8.self)
        } catch {
            throw APIError(
                .invalidRequest(.unencodableParameters), endpoint: request.endpoint, request: request,
                underlyingError: error)
        }
        try await send(.text(text))
    }

    // MARK: Closing

    /// Closes the socket with `code` and `reason`: the loop over its messages ends (`nil`), and sending fails.
    /// Nothing happens when it is closed already.
    ///
    /// - Parameters:
    ///   - code: The close code: `1000` (normal), or `4000`–`4999` for the application's own.
    ///   - reason: A reason for people (at most 123 bytes of UTF-8 are sent).
    public func close(code: Int = 1000, reason: String = "") async {
        // The reason cut once here to what a close frame holds: every transport sends it as it is.
        let close = WebSocketClose(code: code, reason: WebSocketClose(code: code, reason: reason).sendableReason)
        await end(.success(()), close: close, detail: "closed \(code)")
    }

    /// Ends the connection with `outcome` (when it has not ended) and sends `close` on its transport; returns once the
    /// transport is closed, whoever ended the connection.
    func end(_ outcome: Result<Void, APIError>, close: WebSocketClose, detail: String) async {
        _ = await finish(outcome, close: close, detail: detail)
    }

    /// Ends the connection as ``end(_:close:detail:)`` does and returns the end that won: `outcome`, or the end
    /// that came first.
    private func finish(
        _ outcome: Result<Void, APIError>, close: WebSocketClose, detail: String
    ) async -> Result<Void, APIError> {
        typealias Ending = (
            action: WebSocketConnectionMachine.EndAction, closing: Task<Void, Never>?, pinger: Task<Void, Never>?
        )
        let (action, closing, pinger) = state.withLock { state -> Ending in
            let action = state.machine.end(outcome)
            guard case .close = action else { return (action, state.closing, nil) }
            // In a task of its own: an end from a cancelled task (a cancelled reader, the pinger, which this
            // cancels) still closes the transport uncancelled.
            let transport = state.transport
            let closing = Task { await transport.close(close) }
            state.closing = closing
            defer { state.pinger = nil }
            return (action, closing, state.pinger)
        }
        pinger?.cancel()
        let winner: Result<Void, APIError>
        switch action {
        case .close(let counts):
            record(detail, counts)
            winner = outcome
        case .ended(let first):
            winner = first
        }
        await closing?.value
        return winner
    }

    /// Ends the connection from a place that cannot wait (a dropped iterator, a cancellation handler).
    func endSoon(_ outcome: Result<Void, APIError>, close: WebSocketClose, detail: String) {
        Task { await end(outcome, close: close, detail: detail) }
    }

    /// Records the end in the call's timeline with the counts of messages and bytes.
    private func record(_ detail: String, _ counts: WebSocketConnectionMachine.Counts) {
        guard request.recordsTimeline else { return }
        request.record(
            .webSocketClosed, bytes: counts.sent.bytes + counts.received.bytes,
            detail:
                "\(detail); sent \(counts.sent.messages) messages (\(counts.sent.bytes) bytes), "
                + "received \(counts.received.messages) messages (\(counts.received.bytes) bytes)")
    }

    // MARK: Reading

    /// The messages decoded as `Value` with the decoder of the call (the endpoint's, else the configuration's
    /// ``APIConfiguration/responseDecoder``), from text and binary messages alike.
    ///
    /// A message that does not decode fails the loop with ``APIError/Reason/decodingFailed`` (and closes the
    /// socket, as leaving the loop does). When messages of several kinds arrive, loop over the socket itself and
    /// decode each message with ``decode(_:from:)``.
    public func messages<Value: Decodable & SendableMetatype>(as type: Value.Type = Value.self) -> APISequence<Value> {
        APISequence { TypedMessages<Value>(iterator: self.makeAsyncIterator(), connection: self) }
    }

    /// Reads the messages.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: Reader(connection: self))
    }

    /// Reads a socket's messages in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// What a loop over the messages throws: `catch` around `for try await` gets an ``APIError``
        /// (in a closure, under `do throws(APIError)`).
        public typealias Failure = APIError

        let reader: Reader

        /// The next message, or `nil` at the end.
        /// - Throws: ``APIError``.
        public mutating func next() async throws -> WebSocketMessage? {
            try await reader.next()
        }
    }

    /// One loop over the messages; closes the socket when it is dropped before the end.
    final class Reader: Sendable {
        let connection: WebSocketConnection
        let claimed: Bool

        init(connection: WebSocketConnection) {
            self.connection = connection
            self.claimed = connection.state.withLock { $0.machine.claimReader() } == .read
        }

        deinit {
            guard claimed, connection.state.value.machine.isOpen else { return }
            connection.endSoon(.success(()), close: WebSocketClose(code: 1001), detail: "reader left")
        }

        func next() async throws(APIError) -> WebSocketMessage? {
            guard claimed else { return nil }
            return try await connection.receive()
        }
    }

    /// The next message from the transport, reconnecting as the settings say: what each read gave goes to the
    /// connection's machine, which says what to do.
    func receive() async throws(APIError) -> WebSocketMessage? {
        reading: while true {
            let (transport, generation) = state.withLock { ($0.transport, $0.machine.generation) }
            let read: WebSocketConnectionMachine.Read
            do {
                let event = try await withTaskCancellationHandler {
                    try await transport.receive()
                } onCancel: {
                    self.endSoon(
                        .failure(ExecutorStop.cancelled.error(for: self.request)), close: WebSocketClose(code: 1001),
                        detail: "cancelled")
                }
                read = .event(event)
            } catch {
                read = .failed(APIError.wrapping(error, request: request), cancelled: Task.isCancelled)
            }
            var action = state.withLock { $0.machine.read(read, generation: generation) }
            while true {
                switch action {
                case .deliver(let message):
                    return message
                case .ended(let outcome):
                    await closed()
                    return try outcome.map { nil }.get()
                case .end(let outcome, let close, let detail):
                    return try await finish(outcome, close: close, detail: detail).map { nil }.get()
                case .reconnect(let failure, let wait):
                    // A transport the peer closed is answered with its close; a failed one closes without a frame.
                    var close = WebSocketClose(code: 1006)
                    if case .event(.close(let received)) = read { close = received }
                    guard let next = await reconnect(after: failure, wait: wait, closing: close) else {
                        continue reading
                    }
                    action = next
                }
            }
        }
    }

    /// Returns once the transport is closed, after an end.
    private func closed() async {
        await state.value.closing?.value
    }

    // MARK: Settings, keep-alive and reconnection

    /// What ``API/connect(with:pingInterval:reconnect:using:)`` sets on the connection it opened.
    struct Settings: Sendable {
        var encoder = JSONEncoder()
        var decoder: any ResponseDecoder = JSONResponseDecoder()
        var reconnect: ServerSentEvent.ReconnectPolicy = .never
        /// Opens a new connection for the same request, through the plugins.
        var reopen: (@Sendable () async throws(APIError) -> WebSocketConnection)?
    }

    /// Sets what the call that opened the connection decided, and starts the pings.
    func configure(_ settings: Settings, pingInterval: Duration?) {
        let action = state.withLock { state in
            state.settings = settings
            state.pingInterval = pingInterval
            return state.machine.configure(policy: settings.reconnect, canReopen: settings.reopen != nil)
        }
        if action == .startPings { startPings(every: pingInterval) }
    }

    /// Starts the pings of the current transport, every `interval` (none when `nil`), in place of any before.
    private func startPings(every interval: Duration?) {
        var pinger: Task<Void, Never>?
        if let interval, interval > .zero {
            // Holds the connection only while it pings: a connection nobody holds ends with its transport.
            pinger = Task { [weak self] in
                while !Task.isCancelled {
                    do { try await Task.sleep(for: interval) } catch { return }
                    guard let self, await self.ping(waiting: interval) else { return }
                }
            }
        }
        let stale = state.withLock { state in
            defer { state.pinger = pinger }
            return state.pinger
        }
        stale?.cancel()
    }

    /// Sends a ping and waits `interval` for its pong; when none came back, tells the machine, which ends the
    /// connection (``APIError/TransportProblem/timedOut``, closed with `1011` "ping timeout" without waiting for
    /// the unresponsive peer) or has it reconnect. `false` when the pings stop.
    private func ping(waiting interval: Duration) async -> Bool {
        guard
            let (transport, generation) = state.withLock({
                $0.machine.isOpen ? ($0.transport, $0.machine.generation) : nil
            })
        else { return false }
        // The pong within the interval, or not: a ping given up is cancelled (the transport then knows its peer does
        // not answer). A ping that fails waits out the interval, as a missing pong does.
        let pong = LockedBox(false)
        let ping = Task {
            do {
                try await transport.ping()
                pong.value = true
            } catch {}
        }
        do { try await Task.sleep(for: interval) } catch {
            ping.cancel()
            return false
        }
        if pong.value { return true }
        ping.cancel()
        switch state.withLock({ $0.machine.pongMissed(generation: generation) }) {
        case .none:
            return true
        case .closeForReconnection:
            // The reader sees its transport fail with `timedOut` and reconnects; the new transport's pings start
            // with it.
            await transport.close(WebSocketClose(code: 1006))
            return false
        case .fail(let error):
            await end(.failure(error), close: WebSocketClose(code: 1011, reason: "ping timeout"), detail: "no pong")
            return false
        }
    }

    /// One attempt to open the socket again after `failure`: waits `wait` (a `retryScheduled` event), opens it
    /// through the plugins and puts its transport in place of the current one, which it closes with `close` (`1006`
    /// for a failed one, the peer's close answered). `nil` once the socket is open again; else what the machine says
    /// next: another attempt, or the end.
    private func reconnect(
        after failure: APIError, wait: Duration, closing close: WebSocketClose
    ) async -> WebSocketConnectionMachine.ReadAction? {
        request.recorder?.record(.retryScheduled, delay: wait, detail: "reconnect: \(failure.reason)")
        do {
            try await Task.sleep(for: wait)
        } catch {
            let cancelled = ExecutorStop.cancelled.error(for: request)
            return .end(.failure(cancelled), close: WebSocketClose(code: 1001), detail: "cancelled")
        }
        let (reopen, ended) = state.withLock { ($0.settings.reopen, $0.machine.end) }
        if let ended { return .ended(ended) }
        guard let reopen else { return state.withLock { $0.machine.reopenFailed() } }
        let next: WebSocketConnection
        do {
            next = try await reopen()
        } catch {
            if Self.isCancellation(error) {
                return .end(.failure(error), close: WebSocketClose(code: 1001), detail: "cancelled")
            }
            return state.withLock { $0.machine.reopenFailed() }
        }
        let (transport, pinger) = next.state.withLock { state in
            defer { state.pinger = nil }
            return (state.transport, state.pinger)
        }
        pinger?.cancel()
        let (action, current) = state.withLock { state in
            let action = state.machine.reopened()
            guard case .replace = action else { return (action, state.transport) }
            defer { state.transport = transport }
            state.pinger?.cancel()
            state.pinger = nil
            return (action, state.transport)
        }
        switch action {
        case .replace(let currentIsClosed):
            if !currentIsClosed { await current.close(close) }
            startPings(every: state.value.pingInterval)
            return nil
        case .discard(let outcome):
            await transport.close(WebSocketClose(code: 1001))
            return .ended(outcome)
        }
    }

    /// Whether `error` is a cancellation. A function of its own, not inlined: swiftc 6.3.1 crashes on
    /// `error.reason.transportProblem == .cancelled` inlined in ``reconnect(after:wait:closing:)`` in an optimized
    /// build ("Found ownership error?!" in CopyPropagation: a `load_borrow` of the reason's kind used after its end).
    @inline(never)
    private static func isCancellation(_ error: APIError) -> Bool {
        error.reason.transportProblem == .cancelled
    }

    // MARK: State

    /// Everything the connection changes, behind its one lock: the machine and what it acts on.
    struct State: Sendable {
        var machine: WebSocketConnectionMachine
        var transport: any WebSocketTransport
        var settings = Settings()
        var pingInterval: Duration?
        var pinger: Task<Void, Never>?
        /// Closes the transport, once the connection ended.
        var closing: Task<Void, Never>?
    }
}

/// The messages of a connection decoded as `Value`.
private struct TypedMessages<Value: Decodable>: APISequenceSource {
    var iterator: WebSocketConnection.AsyncIterator
    let connection: WebSocketConnection

    mutating func next() async throws(APIError) -> Value? {
        guard let message = try await iterator.reader.next() else { return nil }
        do {
            return try connection.decode(Value.self, from: message)
        } catch let failure {
            await connection.end(
                .failure(failure), close: WebSocketClose(code: 1003, reason: "undecodable message"),
                detail: "\(failure.reason)")
            throw failure
        }
    }
}
