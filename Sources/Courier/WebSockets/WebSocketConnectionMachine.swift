import Foundation

/// The state of a ``WebSocketConnection`` across the transports it reads (one per reconnection): how it ended, which
/// transport is current, the reconnection attempts, the counts of messages and bytes. A value changed only by events
/// (what a read of the transport gave, an end requested, a missed pong, a reconnection), each returning what the
/// connection does; it knows no transports, tasks or locks, and is tested without any network.
///
/// ```
///        message (within the size limit): deliver       peer's close 1000/1001: end, the loop ends
///        ┌─────┐                                        peer's other close: end, the loop fails (closedByPeer)
///        ▼     │                                        a failed read, a missed pong: end (connectionLost, timedOut)
///   ┌─► open ──┴──────────────────────────────────────────────────────────────────────────────► ended
///   │     │  a drop, a missed pong, a peer's 1001/1006/1011–1014,                                   ▲
///   │     │  while the policy allows an attempt: wait, then open again        close(), cancel,      │
///   │     ▼                                                                   a reader that left ───┘
///   └── reconnecting ── attempts used up, or cancelled ───────────────────────────────────────────► ended
/// ```
///
/// - **The end wins.** Once ended (by ``WebSocketConnection/close(code:reason:)``, a cancellation, a missed pong),
///   a read reports that end, whatever the transport saw after it.
/// - **Attempts.** Reconnections in a row are counted from the last message: a message resets the count, and with
///   it the doubling wait.
struct WebSocketConnectionMachine: Sendable {
    /// How the connection stands.
    enum Phase: Sendable {
        case open
        /// Waiting to open the socket again after `failure` (the wait is the connection's).
        case reconnecting(after: APIError)
        /// Ended: `.success` closed (by us, or cleanly by the peer), `.failure` failed.
        case ended(Result<Void, APIError>)
    }

    /// What one read of the current transport gave.
    enum Read: Sendable {
        case event(WebSocketEvent)
        /// The transport failed (its error as the request's ``APIError``), `cancelled` when the reading task was.
        case failed(APIError, cancelled: Bool)
    }

    /// What the connection does after a read.
    enum ReadAction: Sendable {
        /// Hands the message to the loop.
        case deliver(WebSocketMessage)
        /// The connection had ended: the loop ends (`.success`) or fails, once the transport is closed.
        case ended(Result<Void, APIError>)
        /// Ends the connection with `outcome`, closing the transport with `close`; the loop then ends or fails with
        /// the end that won.
        case end(Result<Void, APIError>, close: WebSocketClose, detail: String)
        /// Waits `wait`, then opens the socket again (``reopened()``, ``reopenFailed()``).
        case reconnect(after: APIError, wait: Duration)
    }

    /// What the pings do after a pong went missing.
    enum PongAction: Sendable {
        /// Nothing: the connection ended, or the transport pinged was replaced.
        case none
        /// Closes the transport (`1006`): the reader sees it fail with ``APIError/TransportProblem/timedOut`` and
        /// reconnects.
        case closeForReconnection
        /// Ends the connection with ``APIError/TransportProblem/timedOut``, closing with `1011` "ping timeout".
        case fail(APIError)
    }

    /// Messages and bytes, one direction.
    struct Count: Sendable, Equatable {
        var messages = 0
        var bytes = 0
    }

    /// Messages and bytes both ways, as the end records them.
    struct Counts: Sendable, Equatable {
        var sent = Count()
        var received = Count()
    }

    /// What the connection does once the call that opened it configured it.
    enum ConfigureAction: Sendable, Equatable {
        /// Starts the pings (when the call asked for them).
        case startPings
        /// Nothing: the connection ended before.
        case none
    }

    /// Whether a loop that starts reads the connection.
    enum ClaimAction: Sendable, Equatable {
        /// It reads: the first loop.
        case read
        /// It reads nothing (ends at once): another loop reads.
        case readNothing
    }

    /// What a send does.
    enum SendAction: Sendable {
        /// Hands the message to the current transport (counted as sent).
        case send
        /// Fails with the error: the connection ended.
        case refuse(APIError)
    }

    /// What the connection does after an end was asked for.
    enum EndAction: Sendable {
        /// Closes the transport, stops the pings and records the end with `counts`: this end is the first.
        case close(Counts)
        /// Waits for the transport's close: the connection had ended, with that outcome, which wins.
        case ended(Result<Void, APIError>)
    }

    /// What the connection does with a socket opened again.
    enum ReopenAction: Sendable {
        /// Puts its transport in place of the current one, which it closes unless `currentIsClosed` (closed for a
        /// missed pong).
        case replace(currentIsClosed: Bool)
        /// Closes it (`1001`): the connection ended meanwhile, with that outcome.
        case discard(Result<Void, APIError>)
    }

    let request: APIRequest
    /// When to reconnect; `canReopen` false never does (a request whose body cannot be sent again).
    private(set) var policy: ServerSentEvent.ReconnectPolicy = .never
    private(set) var canReopen = false
    private(set) var phase: Phase = .open
    /// Counts the transports: a reconnection makes the next.
    private(set) var generation = 0
    /// The generation of a transport closed for a missed pong: its failure reads as a timeout.
    private var missedPong: Int?
    /// The close the peer sent on the current transport.
    private(set) var receivedClose: WebSocketClose?
    private var readerClaimed = false
    private(set) var counts = Counts()
    /// The reconnection attempts since the last message.
    private(set) var attempts = 0

    init(request: APIRequest) {
        self.request = request
    }

    /// Whether the connection has not ended.
    var isOpen: Bool {
        if case .ended = phase { return false }
        return true
    }

    /// How the connection ended, `nil` while it has not.
    var end: Result<Void, APIError>? {
        if case .ended(let outcome) = phase { return outcome }
        return nil
    }

    /// The error of a send or a read after the end: the failure that ended the connection, else
    /// ``APIError/TransportProblem/connectionLost``.
    private var endedError: APIError {
        if case .ended(.failure(let error)) = phase { return error }
        return failure(.connectionLost)
    }

    /// The call that opened the connection chose its reconnect `policy`; `canReopen`: whether its request can be sent
    /// again.
    mutating func configure(policy: ServerSentEvent.ReconnectPolicy, canReopen: Bool) -> ConfigureAction {
        self.policy = policy
        self.canReopen = canReopen
        return isOpen ? .startPings : .none
    }

    /// A loop starts reading.
    mutating func claimReader() -> ClaimAction {
        defer { readerClaimed = true }
        return readerClaimed ? .readNothing : .read
    }

    /// A message of `bytes` bytes is to be sent.
    mutating func send(bytes: Int) -> SendAction {
        guard isOpen else { return .refuse(endedError) }
        counts.sent.messages += 1
        counts.sent.bytes += bytes
        return .send
    }

    // MARK: Reads

    /// A read of the transport of `generation` gave `read`.
    mutating func read(_ read: Read, generation: Int) -> ReadAction {
        if case .ended(let outcome) = phase { return .ended(outcome) }
        switch read {
        case .event(.message(let message)):
            guard message.byteCount <= request.maxResponseBytes else {
                let error = failure(.responseTooLarge)
                return .end(.failure(error), close: WebSocketClose(code: 1009), detail: "\(error.reason)")
            }
            counts.received.messages += 1
            counts.received.bytes += message.byteCount
            attempts = 0
            return .deliver(message)
        case .event(.close(let close)):
            receivedClose = close
            if close.isTransient, let wait = startReconnection() {
                return reconnection(after: failure(.connectionLost, underlying: close), wait: wait)
            }
            if close.isClean { return .end(.success(()), close: close, detail: "closed by peer \(close)") }
            let error = failure(.closedByPeer, underlying: close)
            return .end(.failure(error), close: close, detail: "closed by peer \(close)")
        case .failed(let error, let cancelled):
            if cancelled {
                return .end(
                    .failure(ExecutorStop.cancelled.error(for: request)), close: WebSocketClose(code: 1001),
                    detail: "cancelled")
            }
            let error = missedPong == generation ? ExecutorStop.timedOut.error(for: request) : error
            let reconnectable = error.reason.isTransient
            if reconnectable, let wait = startReconnection() { return reconnection(after: error, wait: wait) }
            return .end(.failure(error), close: WebSocketClose(code: 1006), detail: "\(error.reason)")
        }
    }

    /// The wait before the next attempt when the policy allows one (counted), `nil` when it does not.
    private mutating func startReconnection() -> Duration? {
        guard canReopen, attempts < policy.attempts else { return nil }
        attempts += 1
        var wait = policy.delay
        for _ in 1..<attempts where wait < policy.maxDelay { wait = wait * 2 }
        return Swift.min(wait, policy.maxDelay)
    }

    private mutating func reconnection(after failure: APIError, wait: Duration) -> ReadAction {
        phase = .reconnecting(after: failure)
        return .reconnect(after: failure, wait: wait)
    }

    /// A new socket opened for the connection: when the connection did not end meanwhile, it replaces the current
    /// transport and starts the next generation.
    mutating func reopened() -> ReopenAction {
        guard case .reconnecting = phase else { return .discard(end ?? .success(())) }
        let currentIsClosed = missedPong == generation
        phase = .open
        generation += 1
        receivedClose = nil
        return .replace(currentIsClosed: currentIsClosed)
    }

    /// An attempt to open the socket again failed: the next attempt's wait, or the end with the failure that
    /// started the reconnection.
    mutating func reopenFailed() -> ReadAction {
        switch phase {
        case .open: return .ended(.success(()))
        case .ended(let outcome): return .ended(outcome)
        case .reconnecting(let failure):
            if let wait = startReconnection() { return .reconnect(after: failure, wait: wait) }
            return .end(.failure(failure), close: WebSocketClose(code: 1006), detail: "\(failure.reason)")
        }
    }

    // MARK: Ends, pings

    /// An end with `outcome` was asked for (the first end wins).
    mutating func end(_ outcome: Result<Void, APIError>) -> EndAction {
        if case .ended(let first) = phase { return .ended(first) }
        phase = .ended(outcome)
        return .close(counts)
    }

    /// The pong of a ping sent on the transport of `generation` did not come back in time.
    mutating func pongMissed(generation: Int) -> PongAction {
        guard case .open = phase, generation == self.generation else { return .none }
        if canReopen, policy.attempts > 0 {
            missedPong = generation
            return .closeForReconnection
        }
        return .fail(ExecutorStop.timedOut.error(for: request))
    }

    private func failure(_ problem: APIError.TransportProblem, underlying: (any Error)? = nil) -> APIError {
        APIError(.transport(problem), endpoint: request.endpoint, request: request, underlyingError: underlying)
    }
}

// MARK: - Equatable, for the machine's tests

/// Actions compare whole; their errors by what a caller reads of them (``APIError/reason`` and the description, which
/// names the endpoint, the cause and the underlying error).
extension WebSocketConnectionMachine.ReadAction: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.deliver(let left), .deliver(let right)): left == right
        case (.ended(let left), .ended(let right)): left.readsAsTheSame(as: right)
        case (.end(let left, let leftClose, let leftDetail), .end(let right, let rightClose, let rightDetail)):
            left.readsAsTheSame(as: right) && leftClose == rightClose && leftDetail == rightDetail
        case (.reconnect(let left, let leftWait), .reconnect(let right, let rightWait)):
            left.readsAsTheSame(as: right) && leftWait == rightWait
        default: false
        }
    }
}

extension WebSocketConnectionMachine.PongAction: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none), (.closeForReconnection, .closeForReconnection): true
        case (.fail(let left), .fail(let right)): left.readsAsTheSame(as: right)
        default: false
        }
    }
}

extension WebSocketConnectionMachine.SendAction: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.send, .send): true
        case (.refuse(let left), .refuse(let right)): left.readsAsTheSame(as: right)
        default: false
        }
    }
}

extension WebSocketConnectionMachine.EndAction: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.close(let left), .close(let right)): left == right
        case (.ended(let left), .ended(let right)): left.readsAsTheSame(as: right)
        default: false
        }
    }
}

extension WebSocketConnectionMachine.ReopenAction: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.replace(let left), .replace(let right)): left == right
        case (.discard(let left), .discard(let right)): left.readsAsTheSame(as: right)
        default: false
        }
    }
}

extension APIError {
    fileprivate func readsAsTheSame(as other: APIError) -> Bool {
        reason == other.reason && description == other.description
    }
}

extension Result<Void, APIError> {
    fileprivate func readsAsTheSame(as other: Self) -> Bool {
        switch (self, other) {
        case (.success, .success): true
        case (.failure(let left), .failure(let right)): left.readsAsTheSame(as: right)
        default: false
        }
    }
}
