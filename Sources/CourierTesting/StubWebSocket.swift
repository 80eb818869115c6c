import Courier
import Foundation

/// A scripted WebSocket server for a ``StubExecutor``: what it sends, when it waits for the client, how it ends
/// (a close with a code, or a dropped connection), whether it answers pings; it records what the client sends and
/// how the client closes. Answer a WebSocket endpoint with it through ``StubResponse/webSocket(_:headers:)``:
///
/// ```swift
/// let server = StubWebSocket([
///     .send(.text("welcome")),
///     .waitForMessage,                                  // until the client has sent something
///     .send(.text(#"{"text":"hi back"}"#)),
///     .close(code: 1000, reason: "bye"),
/// ])
/// let stub = await StubExecutor().stub(Chat.$room, with: .webSocket(server))
///
/// try await stub.activate {
///     let socket = try await Chat.$room.connect(with: "lobby")
///     try await socket.send(.text("hi"))
///     for try await message in socket { print(message.text ?? "") }   // "welcome", then the reply
/// }
/// #expect(server.received == [.text("hi")])
/// #expect(server.closes == [WebSocketClose(code: 1000, reason: "bye")])  // the client answered the close
/// #expect(await stub.requests(to: Chat.$room).count == 1)                // the handshakes
/// ```
///
/// - **The script runs as the client reads.** Each read of the client runs the steps up to the next message, the
///   close or the drop; a ``Step/waitForMessage`` holds the read until the client has sent a message.
/// - **After the last step** the server stays open: it records the client's messages and answers its pings until
///   the client closes.
/// - **Reconnections.** Each connection goes on with the script where the previous one ended, so
///   `[.send(.text("1")), .drop, .send(.text("2"))]` sends `1` on the first connection and `2` on the next one.
/// - **A refused handshake** is an ordinary stub: `.status(401)` (answer the endpoint with a `respond` closure to
///   refuse only a handshake without a fresh credential).
public final class StubWebSocket: Sendable {
    /// One step of the server's script.
    ///
    /// ```swift
    /// StubWebSocket([.send(.binary(Data([1, 2]))), .waitForMessage, .close(code: 1008, reason: "policy"), .drop])
    /// ```
    public enum Step: Sendable, Hashable {
        /// Sends `message` to the client.
        case send(WebSocketMessage)
        /// Waits until the client has sent a message (one that an earlier `waitForMessage` did not wait for already:
        /// a message sent before this step counts).
        case waitForMessage
        /// Sends a close frame with `code` and `reason`; the connection ends when the client answers it.
        case close(code: Int, reason: String = "")
        /// Drops the connection without a close frame, as a network failure would: the client sees
        /// ``/Courier/APIError/TransportProblem/connectionLost``.
        case drop
    }

    private let steps: [Step]
    private let answersPings: Bool
    private let state = LockedBox(State())

    /// A server that plays `steps`.
    ///
    /// - Parameters:
    ///   - steps: What the server does, in order.
    ///   - answersPings: Whether the server answers the client's pings; `false` never answers them, so that the
    ///     client's keep-alive fails the connection with ``/Courier/APIError/TransportProblem/timedOut``.
    public init(_ steps: [Step], answersPings: Bool = true) {
        self.steps = steps
        self.answersPings = answersPings
    }

    /// The messages the client sent, in order, over every connection.
    public var received: [WebSocketMessage] { state.value.received }

    /// The close frames the client sent, in order, one per connection it closed (an answer to the server's close
    /// included); a connection that failed or was dropped ends without one.
    public var closes: [WebSocketClose] { state.value.closes }

    // MARK: - Connections

    private struct State {
        /// The next step to run, for whichever connection reads next.
        var next = 0
        var received: [WebSocketMessage] = []
        /// The messages the `waitForMessage` steps took.
        var awaited = 0
        var closes: [WebSocketClose] = []
        var links: [Int: Link] = [:]
        var nextLink = 0
        /// Counts the changes a waiting read waits for (a message, a close).
        var version = 0
    }

    private struct Link {
        /// Whether the client closed the connection or the server dropped it.
        var ended = false
        var dropped = false
        var waiter: CheckedContinuation<Void, any Error>?
    }

    /// What a read does next.
    private enum Action {
        case deliver(WebSocketEvent)
        case again
        case wait(version: Int)
        case lost
    }

    /// A transport for one more connection.
    func connect(_ request: APIRequest) -> some WebSocketTransport {
        let id = state.withLock { state in
            defer { state.nextLink += 1 }
            state.links[state.nextLink] = Link()
            return state.nextLink
        }
        return Transport(server: self, id: id, request: request)
    }

    private struct Transport: WebSocketTransport {
        let server: StubWebSocket
        let id: Int
        let request: APIRequest

        func receive() async throws -> WebSocketEvent {
            try await server.receive(on: id, request: request)
        }

        func send(_ message: WebSocketMessage) async throws {
            try server.send(message, on: id, request: request)
        }

        func ping() async throws {
            try server.ping(on: id, request: request)
            // A server that never answers: the ping waits until the client gives up on it.
            if !server.answersPings {
                while true { try await Task.sleep(for: .seconds(3600)) }
            }
        }

        func close(_ close: WebSocketClose) async {
            server.close(id, with: close)
        }
    }

    private func lost(_ request: APIRequest) -> APIError {
        APIError.wrapping(URLError(.networkConnectionLost), request: request)
    }

    private func receive(on id: Int, request: APIRequest) async throws -> WebSocketEvent {
        while true {
            let action = state.withLock { state -> Action in
                guard let link = state.links[id], !link.ended else { return .lost }
                guard state.next < steps.count else { return .wait(version: state.version) }
                switch steps[state.next] {
                case .send(let message):
                    state.next += 1
                    return .deliver(.message(message))
                case .waitForMessage:
                    guard state.received.count > state.awaited else { return .wait(version: state.version) }
                    state.awaited += 1
                    state.next += 1
                    return .again
                case .close(let code, let reason):
                    state.next += 1
                    return .deliver(.close(WebSocketClose(code: code, reason: reason)))
                case .drop:
                    state.next += 1
                    state.links[id]?.ended = true
                    state.links[id]?.dropped = true
                    return .lost
                }
            }
            switch action {
            case .deliver(let event): return event
            case .again: continue
            case .lost: throw lost(request)
            case .wait(let version): try await wait(on: id, after: version)
            }
        }
    }

    /// Waits until something changed since `version`, or the task is cancelled.
    private func wait(on id: Int, after version: Int) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.version != version || state.links[id] == nil { return .success(()) }
                    state.links[id]?.waiter = waiter
                    return nil
                }
                if let outcome { waiter.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.links[id]?.waiter = nil }
                return state.links[id]?.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Wakes every waiting read; called with the state changed under the lock.
    private static func wake(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        state.version += 1
        var waiters: [CheckedContinuation<Void, any Error>] = []
        for id in state.links.keys {
            if let waiter = state.links[id]?.waiter { waiters.append(waiter) }
            state.links[id]?.waiter = nil
        }
        return waiters
    }

    private func send(_ message: WebSocketMessage, on id: Int, request: APIRequest) throws {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>]? in
            guard let link = state.links[id], !link.ended else { return nil }
            state.received.append(message)
            return Self.wake(&state)
        }
        guard let waiters else { throw lost(request) }
        for waiter in waiters { waiter.resume() }
    }

    private func ping(on id: Int, request: APIRequest) throws {
        guard state.withLock({ $0.links[id].map { !$0.ended } ?? false }) else { throw lost(request) }
    }

    private func close(_ id: Int, with close: WebSocketClose) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard let link = state.links[id], !link.ended else { return [] }
            // 1006 is the code of a failed connection: it is never sent in a frame.
            if close.code != 1006 { state.closes.append(close) }
            state.links[id]?.ended = true
            return Self.wake(&state)
        }
        for waiter in waiters { waiter.resume() }
    }
}
