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
///   ``APIError/TransportProblem/connectionLost``.
/// - **Leaving the loop closes the socket.** Leaving a loop over the messages early (`break`, `return`, a thrown
///   error) or cancelling the reading task closes the socket (code `1001`); cancelling fails the loop with
///   ``APIError/TransportProblem/cancelled``.
/// - **Keep-alive.** A ping every `pingInterval`; when a pong has not come back by the next ping, the connection
///   fails with ``APIError/TransportProblem/timedOut`` (so within twice the interval).
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
        self.state = LockedBox(State(transport: transport))
    }

    /// The close the peer sent, once it arrived; `nil` before, and when the connection ended without one.
    public var receivedClose: WebSocketClose? { state.value.receivedClose }

    /// Whether the socket is open: it has not been closed, by either side, nor failed.
    public var isOpen: Bool { state.value.end == nil }

    /// Two connections are equal when they are the same connection.
    public static func == (lhs: WebSocketConnection, rhs: WebSocketConnection) -> Bool { lhs === rhs }

    /// Hashes the connection's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: Sending

    /// Sends `message`.
    /// - Throws: ``APIError``: ``APIError/TransportProblem/connectionLost`` once the socket is closed.
    public func send(_ message: WebSocketMessage) async throws(APIError) {
        guard let transport = state.withLock({ $0.end == nil ? $0.transport : nil }) else {
            throw endedError()
        }
        do {
            try await transport.send(message)
        } catch {
            throw APIError.wrapping(error, request: request)
        }
        state.withLock {
            $0.sent.messages += 1
            $0.sent.bytes += message.byteCount
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
        let ended = state.withLock { state -> (closing: Task<Void, Never>?, pinger: Task<Void, Never>?, first: Bool) in
            guard state.end == nil else { return (state.closing, nil, false) }
            state.end = outcome
            // In a task of its own: an end from a cancelled task (a cancelled reader, the pinger, which this
            // cancels) still closes the transport uncancelled.
            let transport = state.transport
            let closing = Task { await transport.close(close) }
            state.closing = closing
            defer { state.pinger = nil }
            return (closing, state.pinger, true)
        }
        if ended.first {
            ended.pinger?.cancel()
            recordEnd(detail)
        }
        await ended.closing?.value
    }

    /// Returns once the transport is closed, after an end.
    private func closed() async {
        await state.value.closing?.value
    }

    /// Ends the connection from a place that cannot wait (a dropped iterator, a cancellation handler).
    func endSoon(_ outcome: Result<Void, APIError>, close: WebSocketClose, detail: String) {
        Task { await end(outcome, close: close, detail: detail) }
    }

    /// The error of a send or a read after the end: the failure that ended the connection, else
    /// ``APIError/TransportProblem/connectionLost``.
    private func endedError() -> APIError {
        if case .failure(let error) = state.value.end { return error }
        return APIError(.transport(.connectionLost), endpoint: request.endpoint, request: request)
    }

    /// Records the end in the call's timeline with the counts of messages and bytes, once.
    private func recordEnd(_ detail: String) {
        guard request.recordsTimeline else { return }
        let counts = state.withLock { state -> (sent: Count, received: Count)? in
            guard !state.endRecorded else { return nil }
            state.endRecorded = true
            return (state.sent, state.received)
        }
        guard let counts else { return }
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
        /// What a loop over the messages throws: `catch` around `for try await` gets an ``APIError``.
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
            self.claimed = connection.state.withLock { state in
                defer { state.claimed = true }
                return !state.claimed
            }
        }

        deinit {
            guard claimed, connection.state.value.end == nil else { return }
            connection.endSoon(.success(()), close: WebSocketClose(code: 1001), detail: "reader left")
        }

        func next() async throws(APIError) -> WebSocketMessage? {
            guard claimed else { return nil }
            return try await connection.receive()
        }
    }

    /// The next message from the transport, reconnecting as the settings say.
    func receive() async throws(APIError) -> WebSocketMessage? {
        var failures = 0
        while true {
            let current = state.withLock { state -> Result<(any WebSocketTransport, Int), APIError>? in
                switch state.end {
                case nil: .success((state.transport, state.generation))
                case .success: nil
                case .failure(let error): .failure(error)
                }
            }
            guard let current else { return nil }
            let (transport, generation) = try current.get()
            let event: WebSocketEvent
            do {
                event = try await withTaskCancellationHandler {
                    try await transport.receive()
                } onCancel: {
                    self.endSoon(
                        .failure(ExecutorStop.cancelled.error(for: self.request)), close: WebSocketClose(code: 1001),
                        detail: "cancelled")
                }
            } catch {
                // An end of ours (a close, a missed pong, a cancellation) wins over what the transport saw.
                switch state.value.end {
                case .success:
                    await closed()
                    return nil
                case .failure(let error):
                    await closed()
                    throw error
                case nil: break
                }
                // A transport closed for a missed pong, so that a reconnection replaces it.
                let missedPong = state.withLock { $0.missedPong == generation }
                let failure =
                    missedPong ? ExecutorStop.timedOut.error(for: request) : APIError.wrapping(error, request: request)
                if Task.isCancelled {
                    let cancelled = ExecutorStop.cancelled.error(for: request)
                    await end(.failure(cancelled), close: WebSocketClose(code: 1001), detail: "cancelled")
                    throw cancelled
                }
                let reconnectable = [.connectionLost, .timedOut, .cannotConnect].contains(
                    failure.reason.transportProblem)
                if reconnectable,
                    try await reconnect(after: failure, closing: WebSocketClose(code: 1006), failures: &failures)
                {
                    continue
                }
                await end(.failure(failure), close: WebSocketClose(code: 1006), detail: "\(failure.reason)")
                throw failure
            }
            switch event {
            case .message(let message):
                guard message.byteCount <= request.maxResponseBytes else {
                    let error = APIError(.transport(.responseTooLarge), endpoint: request.endpoint, request: request)
                    await end(.failure(error), close: WebSocketClose(code: 1009), detail: "\(error.reason)")
                    throw error
                }
                state.withLock {
                    $0.received.messages += 1
                    $0.received.bytes += message.byteCount
                }
                return message
            case .close(let close):
                state.withLock { $0.receivedClose = close }
                if close.isTransient {
                    let lost = APIError(
                        .transport(.connectionLost), endpoint: request.endpoint, request: request,
                        underlyingError: close)
                    if try await reconnect(after: lost, closing: close, failures: &failures) { continue }
                }
                if close.isClean {
                    await end(.success(()), close: close, detail: "closed by peer \(close)")
                    return nil
                }
                let error = APIError(
                    .transport(.closedByPeer), endpoint: request.endpoint, request: request, underlyingError: close)
                await end(.failure(error), close: close, detail: "closed by peer \(close)")
                throw error
            }
        }
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
        var pinger: Task<Void, Never>?
        if let interval = pingInterval, interval > .zero {
            // Holds the connection only while it pings: a connection nobody holds ends with its transport.
            pinger = Task { [weak self] in
                while !Task.isCancelled {
                    do { try await Task.sleep(for: interval) } catch { return }
                    guard let self, await self.ping(waiting: interval) else { return }
                }
            }
        }
        let stale = state.withLock { state in
            state.settings = settings
            state.pingInterval = pingInterval
            defer { state.pinger = pinger }
            return state.pinger
        }
        stale?.cancel()
    }

    /// Sends a ping and waits `interval` for its pong; when none came back, ends the connection with
    /// ``APIError/TransportProblem/timedOut`` and returns `false` (as it does once the connection ended).
    private func ping(waiting interval: Duration) async -> Bool {
        guard let (transport, generation) = state.withLock({ $0.end == nil ? ($0.transport, $0.generation) : nil })
        else { return false }
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
        // A reconnection in between replaced the transport: the new one has not been pinged yet.
        let (current, reconnects) = state.withLock { state in
            let current = state.end == nil && state.generation == generation
            let reconnects = current && state.settings.reopen != nil && state.settings.reconnect.attempts > 0
            if reconnects { state.missedPong = generation }
            return (current, reconnects)
        }
        guard current else { return true }
        if reconnects {
            // The reader sees its transport fail with `timedOut` and reconnects; the new transport's pings start
            // with it.
            await transport.close(WebSocketClose(code: 1006))
            return false
        }
        let error = ExecutorStop.timedOut.error(for: request)
        await end(.failure(error), close: WebSocketClose(code: 1011, reason: "ping timeout"), detail: "no pong")
        return false
    }

    /// Opens the socket again after `failure` when the reconnect policy allows another attempt, after its wait, and
    /// closes the transport it replaces with `close` (`1006` for a failed one, the peer's close answered); `false`
    /// when it does not (or the connection ended meanwhile).
    private func reconnect(
        after failure: APIError, closing close: WebSocketClose, failures: inout Int
    ) async throws(APIError) -> Bool {
        let settings = state.value.settings
        guard let reopen = settings.reopen else { return false }
        while failures < settings.reconnect.attempts {
            failures += 1
            var wait = settings.reconnect.delay
            for _ in 1..<failures where wait < settings.reconnect.maxDelay { wait = wait * 2 }
            wait = Swift.min(wait, settings.reconnect.maxDelay)
            request.recorder?.record(.retryScheduled, delay: wait, detail: "reconnect: \(failure.reason)")
            do {
                try await Task.sleep(for: wait)
            } catch {
                let cancelled = ExecutorStop.cancelled.error(for: request)
                await end(.failure(cancelled), close: WebSocketClose(code: 1001), detail: "cancelled")
                throw cancelled
            }
            guard state.value.end == nil else { return false }
            let next: WebSocketConnection
            do {
                next = try await reopen()
            } catch {
                if Self.isCancellation(error) {
                    await end(.failure(error), close: WebSocketClose(code: 1001), detail: "cancelled")
                    throw error
                }
                continue
            }
            let (transport, pinger) = next.state.withLock { state in
                defer { state.pinger = nil }
                return (state.transport, state.pinger)
            }
            let replaced = state.withLock { state -> (transport: any WebSocketTransport, isClosed: Bool)? in
                guard state.end == nil else { return nil }
                defer { state.transport = transport }
                // A transport closed for a missed pong is closed already.
                let isClosed = state.missedPong == state.generation
                state.generation += 1
                state.receivedClose = nil
                state.pinger?.cancel()
                state.pinger = nil
                return (state.transport, isClosed)
            }
            pinger?.cancel()
            guard let replaced else {
                await transport.close(WebSocketClose(code: 1001))
                return false
            }
            if !replaced.isClosed { await replaced.transport.close(close) }
            if let interval = state.value.pingInterval { configure(settings, pingInterval: interval) }
            return true
        }
        return false
    }

    /// Whether `error` is a cancellation. A function of its own, not inlined: swiftc 6.3.1 crashes on
    /// `error.reason.transportProblem == .cancelled` inlined in ``reconnect(after:closing:failures:)`` in an optimized
    /// build ("Found ownership error?!" in CopyPropagation: a `load_borrow` of the reason's kind used after its end).
    @inline(never)
    private static func isCancellation(_ error: APIError) -> Bool {
        error.reason.transportProblem == .cancelled
    }

    // MARK: State

    struct Count: Sendable {
        var messages = 0
        var bytes = 0
    }

    struct State: Sendable {
        var transport: any WebSocketTransport
        var settings = Settings()
        var pingInterval: Duration?
        /// Counts the transports: a reconnection makes the next.
        var generation = 0
        /// The generation of a transport the pings closed (its pong missing), to be reconnected.
        var missedPong: Int?
        var pinger: Task<Void, Never>?
        /// Closes the transport, once the connection ended.
        var closing: Task<Void, Never>?
        /// How the connection ended: `.success` closed (by us, or cleanly by the peer), `.failure` failed.
        var end: Result<Void, APIError>?
        var receivedClose: WebSocketClose?
        var claimed = false
        var sent = Count()
        var received = Count()
        var endRecorded = false
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
