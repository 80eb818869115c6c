import Courier
import CourierTesting
import Foundation
import Testing

/// How a socket ends above the executor (a scripted stub server): the peer's close, a drop, a missed pong,
/// cancellation, leaving the loop, the app's close, and reconnection.
@Suite struct WebSocketLifecycleTests {
    /// Opens the lobby's socket on a stub that plays `server`.
    func open(
        _ server: StubWebSocket, pingInterval: Duration? = nil, reconnect: ServerSentEvent.ReconnectPolicy? = nil,
        observers: [any CallObserver] = []
    ) async throws -> (WebSocketConnection, StubExecutor) {
        let stub = await StubExecutor().stub(Chat.$lobby, with: .webSocket(server))
        let configuration = socketConfiguration(stub, observers: observers)
        let socket = try await Chat.$lobby.connect(
            pingInterval: pingInterval, reconnect: reconnect, using: configuration)
        return (socket, stub)
    }

    @Test(
        "A close from the peer with 1000 or 1001 ends the loop; any other fails it with closedByPeer",
        arguments: [
            (1000, "bye", true), (1001, "going away", true), (1008, "policy", false), (1011, "oops", false),
            (4000, "", false),
        ])
    func peerClose(code: Int, reason: String, ends: Bool) async throws {
        // GIVEN a server that sends one message, then closes with `code`
        let server = StubWebSocket([.send(.text("one")), .close(code: code, reason: reason)])
        let (socket, _) = try await open(server)

        // WHEN the client reads to the end
        let (messages, error) = await readAll(socket)

        // THEN the message arrived; a clean close ends the loop, another fails it naming the close
        let close = WebSocketClose(code: code, reason: reason)
        #expect(messages == [.text("one")])
        #expect(socket.receivedClose == close)
        if ends {
            #expect(error == nil)
        } else {
            #expect(error?.reason == .transport(.closedByPeer))
            #expect(error?.underlyingError as? WebSocketClose == close)
            #expect(error?.endpoint.path == "/lobby")
        }
        // The client answered the close with the same code, and sending fails from then on.
        #expect(server.closes == [close])
        let sendError = await #expect(throws: APIError.self) { try await socket.send(.text("late")) }
        #expect(sendError?.reason == (ends ? .transport(.connectionLost) : .transport(.closedByPeer)))
    }

    @Test("A connection dropped without a close fails the loop with connectionLost")
    func drop() async throws {
        let server = StubWebSocket([.send(.text("one")), .drop])
        let (socket, _) = try await open(server)

        let (messages, error) = await readAll(socket)

        #expect(messages == [.text("one")])
        #expect(error?.reason == .transport(.connectionLost))
        #expect(socket.receivedClose == nil)
        #expect(server.closes.isEmpty)  // no close frame on a dropped connection
    }

    @Test("A server that never answers pings fails the connection with timedOut (pings every 200 ms)")
    func missedPong() async throws {
        // GIVEN a server that sends nothing and never answers a ping, and pings every 200 ms
        let server = StubWebSocket([], answersPings: false)
        let (socket, _) = try await open(server, pingInterval: .milliseconds(200))

        // WHEN the client waits for a message
        let start = ContinuousClock.now
        let (messages, error) = await readAll(socket)

        // THEN the loop fails with timedOut (within twice the interval; a generous hard limit here), and the client
        // closed with 1011
        #expect(messages.isEmpty)
        #expect(error?.reason == .transport(.timedOut))
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(server.closes.map(\.code) == [1011])
    }

    @Test("A missed pong reconnects when a policy is set; the loop fails with timedOut once the policy runs out")
    func missedPongReconnects() async throws {
        // GIVEN a server that never answers a ping, pings every 100 ms, and one reconnection allowed
        let server = StubWebSocket([], answersPings: false)
        let (socket, stub) = try await open(
            server, pingInterval: .milliseconds(100), reconnect: .upTo(1, delay: .milliseconds(1)))

        // WHEN the client waits for a message
        let (messages, error) = await readAll(socket)

        // THEN the first connection's missed pong opened a second one, whose missed pong ended the loop
        #expect(messages.isEmpty)
        #expect(error?.reason == .transport(.timedOut))
        #expect(stub.requests.count == 2)
    }

    @Test("A server that answers pings keeps the connection open across many intervals")
    func answeredPings() async throws {
        // GIVEN a server that answers only after the client sent something, and pings every 50 ms
        let server = StubWebSocket([.waitForMessage, .send(.text("late")), .close(code: 1000)])
        let (socket, _) = try await open(server, pingInterval: .milliseconds(50))
        let reader = Task { await readAll(socket) }

        // WHEN the client sends after several intervals
        try await Task.sleep(for: .milliseconds(400))
        try await socket.send(.text("now"))

        // THEN the connection was still open: the reply arrives and the loop ends cleanly
        let (messages, error) = await reader.value
        #expect(messages == [.text("late")])
        #expect(error == nil)
    }

    @Test("Cancelling the reading task fails the loop with cancelled and closes the socket")
    func cancellation() async throws {
        // GIVEN a reader waiting on a server that sends nothing
        let server = StubWebSocket([])
        let (socket, _) = try await open(server)
        let reader = Task { await readAll(socket) }

        // WHEN its task is cancelled
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        let (messages, error) = await reader.value

        // THEN the loop failed with cancelled, the server saw a close (1001), and sending fails
        #expect(messages.isEmpty)
        #expect(error?.reason == .transport(.cancelled))
        #expect(server.closes.map(\.code) == [1001])  // closed by the time the loop failed
        await #expect(throws: APIError.self) { try await socket.send(.text("after")) }
    }

    @Test("isOpen is true until either side closes")
    func isOpen() async throws {
        let server = StubWebSocket([.send(.text("one")), .close(code: 1000)])
        let (socket, _) = try await open(server)
        #expect(socket.isOpen)

        var iterator = socket.makeAsyncIterator()
        _ = try await iterator.next()
        #expect(socket.isOpen)
        _ = try await iterator.next()

        #expect(!socket.isOpen)
    }

    @Test("Leaving the loop early (break) closes the socket with 1001")
    func breakCloses() async throws {
        // GIVEN a server with three messages to send
        let server = StubWebSocket([.send(.text("1")), .send(.text("2")), .send(.text("3"))])
        let (socket, _) = try await open(server)

        // WHEN the loop leaves after the first
        var seen: [WebSocketMessage] = []
        for try await message in socket {
            seen.append(message)
            break
        }

        // THEN the socket closes (going away); nothing more is read
        #expect(seen == [.text("1")])
        await eventually { server.closes == [WebSocketClose(code: 1001)] }
        await #expect(throws: APIError.self) { try await socket.send(.text("after")) }
    }

    @Test("close(code:reason:) ends the loop, sends the close, and makes later sends fail")
    func closeByTheApp() async throws {
        // GIVEN a reader waiting on a server that sends nothing
        let server = StubWebSocket([])
        let (socket, _) = try await open(server)
        let reader = Task { await readAll(socket) }
        try await socket.send(.text("before"))

        // WHEN the app closes the socket
        await socket.close(code: 4000, reason: "done")

        // THEN the loop ends without an error, the server got the close, and sending fails
        let (messages, error) = await reader.value
        #expect(messages.isEmpty)
        #expect(error == nil)
        #expect(server.closes == [WebSocketClose(code: 4000, reason: "done")])
        #expect(server.received == [.text("before")])
        #expect(socket.receivedClose == nil)
        let sendError = await #expect(throws: APIError.self) { try await socket.send(.text("after")) }
        #expect(sendError?.reason == .transport(.connectionLost))
        // Closing again changes nothing.
        await socket.close(code: 1000)
        #expect(server.closes.count == 1)
    }

    @Test("A second loop over a socket that a loop reads ends at once; the first goes on")
    func secondLoopEndsAtOnce() async throws {
        let server = StubWebSocket([.send(.text("a")), .send(.text("b")), .close(code: 1000)])
        let (socket, _) = try await open(server)

        var first = socket.makeAsyncIterator()
        let a = try await first.next()
        var second: [WebSocketMessage] = []
        for try await message in socket { second.append(message) }
        let b = try await first.next()
        let end = try await first.next()

        #expect(a == .text("a"))
        #expect(second.isEmpty)
        #expect(b == .text("b"))
        #expect(end == nil)
    }

    @Test("After a drop, reconnect opens the socket again and the loop goes on with the next connection")
    func reconnectAfterADrop() async throws {
        // GIVEN a server whose first connection drops after one message, and a policy of two reconnections
        let server = StubWebSocket([.send(.text("one")), .drop, .send(.text("two")), .close(code: 1000)])
        let observer = CallTimelineTests.Recorder()
        let (socket, stub) = try await open(
            server, reconnect: .upTo(2, delay: .milliseconds(10)), observers: [observer])

        // WHEN the client reads to the end
        let (messages, error) = await readAll(socket)

        // THEN it read both connections' messages, made two handshakes, and recorded the wait before the second
        #expect(messages == [.text("one"), .text("two")])
        #expect(error == nil)
        #expect(stub.requests.count == 2)
        #expect(socket.receivedClose == WebSocketClose(code: 1000))
        let retries = observer.seen.value.map(\.0).filter { $0.kind == .retryScheduled }
        #expect(retries.count == 1)
        #expect(retries.first?.delay == .milliseconds(10))
        #expect(retries.first?.detail?.contains("reconnect") == true)
    }

    @Test("When every reconnection drops too, the loop fails with connectionLost after the policy's attempts")
    func reconnectGivesUp() async throws {
        let server = StubWebSocket([.drop, .drop, .drop, .send(.text("never"))])
        let (socket, stub) = try await open(server, reconnect: .upTo(2, delay: .milliseconds(1)))

        let (messages, error) = await readAll(socket)

        #expect(messages.isEmpty)
        #expect(error?.reason == .transport(.connectionLost))
        #expect(stub.requests.count == 3)  // the first handshake and two reconnections
    }

    @Test("A peer that goes away (1001) is reconnected to when a policy is set")
    func reconnectAfterGoingAway() async throws {
        let server = StubWebSocket([.close(code: 1001, reason: "restart"), .send(.text("back")), .close(code: 1000)])
        let (socket, stub) = try await open(server, reconnect: .upTo(1, delay: .milliseconds(1)))

        let (messages, error) = await readAll(socket)

        // THEN the loop went on with the second connection; the first one's close was answered when it was replaced
        #expect(messages == [.text("back")])
        #expect(error == nil)
        #expect(stub.requests.count == 2)
        #expect(server.closes == [WebSocketClose(code: 1001, reason: "restart"), WebSocketClose(code: 1000)])
    }
}
