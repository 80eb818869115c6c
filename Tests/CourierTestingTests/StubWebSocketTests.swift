import Courier
import CourierTesting
import Foundation
import Testing

@MainActor
private enum Chat {
    @WebSocket("/rooms/{room}/socket")
    static var room: APIParameterBuilder<String>? = .init { ["room": $0] }

    @GET("/rooms/{room}")
    static var info: APIParameterBuilder<String>? = .init { ["room": $0] }
}

/// The scripted WebSocket server of `StubExecutor`: how its script runs, what it records, and how it answers
/// requests that are not handshakes. (What the connection above it does with closes, drops, pings and
/// reconnections: Tests/CourierTests/WebSockets.)
@Suite struct StubWebSocketTests {
    @Test("With activate, a socket plays the script and the server records the client's messages and close")
    func activateAndRecord() async throws {
        // GIVEN a server that greets, waits for the client, replies and closes
        let server = StubWebSocket([
            .send(.text("welcome")), .waitForMessage, .send(.text("hi back")), .close(code: 1000, reason: "bye"),
        ])
        let stub = await StubExecutor().stub(Chat.$room, with: .webSocket(server))

        // WHEN a client in the activated scope talks to it
        let messages = try await stub.activate(in: blank) { () async throws(APIError) -> [WebSocketMessage] in
            let socket = try await Chat.$room.connect(with: "lobby")
            try await socket.send(.text("hi"))
            var messages: [WebSocketMessage] = []
            do {
                for try await message in socket { messages.append(message) }
            } catch {
                throw APIError.wrapping(error, request: socket.request)
            }
            return messages
        }

        // THEN the client read the script, the server recorded the client, and the stub the handshake
        #expect(messages == [.text("welcome"), .text("hi back")])
        #expect(server.received == [.text("hi")])
        #expect(server.closes == [WebSocketClose(code: 1000, reason: "bye")])
        let handshakes = await stub.requests(to: Chat.$room)
        #expect(handshakes.map(\.url.path) == ["/rooms/lobby/socket"])
        #expect(handshakes.first?.responseDelivery.isWebSocket == true)
    }

    @Test("waitForMessage counts a message the client sent before the step")
    func waitCountsEarlierMessages() async throws {
        let server = StubWebSocket([.waitForMessage, .send(.text("one")), .waitForMessage, .send(.text("two"))])
        let stub = await StubExecutor().stub(Chat.$room, with: .webSocket(server))
        let socket = try await stub.activate(in: blank) { () async throws(APIError) in
            try await Chat.$room.connect(with: "a")
        }

        // WHEN the client sends once before reading
        try await socket.send(.text("early"))
        var iterator = socket.makeAsyncIterator()
        let one = try await iterator.next()
        // THEN the first wait took it; the second waits for another message
        let reader = Task { try await iterator.next() }
        try await socket.send(.text("later"))
        let two = try await reader.value
        await socket.close()

        #expect(one == .text("one"))
        #expect(two == .text("two"))
        #expect(server.received == [.text("early"), .text("later")])
    }

    @Test("Each connection goes on with the script where the previous one ended")
    func scriptSpansConnections() async throws {
        // GIVEN a server whose script drops the first connection and closes the second
        let server = StubWebSocket([.send(.text("1")), .drop, .send(.text("2")), .close(code: 1000)])
        let stub = await StubExecutor().stub(Chat.$room, with: .webSocket(server))

        // WHEN two sockets open one after the other
        var first: [WebSocketMessage] = []
        var firstError: APIError?
        var second: [WebSocketMessage] = []
        try await stub.activate(in: blank) {
            let socket = try await Chat.$room.connect(with: "a")
            do {
                for try await message in socket { first.append(message) }
            } catch {
                firstError = error as? APIError
            }
            for try await message in try await Chat.$room.connect(with: "a") { second.append(message) }
        }

        // THEN the first got the script up to the drop, the second the rest
        #expect(first == [.text("1")])
        #expect(firstError?.reason == .transport(.connectionLost))
        #expect(second == [.text("2")])
        #expect(server.closes == [WebSocketClose(code: 1000)])
        #expect(stub.requests.count == 2)
    }

    @Test("After the last step the server stays open and records what the client sends until it closes")
    func openAfterTheScript() async throws {
        let server = StubWebSocket([.send(.text("only"))])
        let stub = await StubExecutor().stub(Chat.$room, with: .webSocket(server))
        let socket = try await stub.activate(in: blank) { () async throws(APIError) in
            try await Chat.$room.connect(with: "a")
        }
        var iterator = socket.makeAsyncIterator()
        let only = try await iterator.next()
        let rest = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()
        }

        for index in 1...3 { try await socket.send(.text("\(index)")) }
        await socket.close(code: 4001, reason: "done")

        #expect(only == .text("only"))
        #expect(try await rest.value == nil)
        #expect(server.received == [.text("1"), .text("2"), .text("3")])
        #expect(server.closes == [WebSocketClose(code: 4001, reason: "done")])
    }

    @Test("A request that is not a handshake gets 426 Upgrade Required")
    func notAHandshake() async throws {
        let stub = await StubExecutor().stub(Chat.$info, with: .webSocket(StubWebSocket([.send(.text("x"))])))

        let error = await #expect(throws: APIError.self) {
            try await stub.activate(in: blank) { () async throws(APIError) in
                let _: Data = try await Chat.$info.request(with: "a")
            }
        }

        #expect(error?.statusCode == 426)
        #expect(error?.response?.headers["Upgrade"] == "websocket")
    }

    @Test("A cassette refuses a socket before any I/O: its messages could not be replayed")
    func cassetteRefusesSockets() async throws {
        // GIVEN a cassette recording through a stub whose server would accept the socket
        let folder = CassetteFolder()
        defer { folder.remove() }
        let stub = await StubExecutor().stub(Chat.$room, with: .webSocket(StubWebSocket([])))
        let cassette = Cassette.local(folder.file(), recordingWith: stub)

        // WHEN a socket opens through it
        let error = await #expect(throws: APIError.self) {
            try await cassette.activate(in: APIConfiguration(baseURL: URL(string: "https://chat.example"))) {
                () async throws(APIError) in
                _ = try await Chat.$room.connect(with: "a")
            }
        }

        // THEN it fails before reaching the stub, naming the cassette and WebSockets
        #expect(error?.reason == .transport(.unsupportedByExecutor))
        let limitation = try #require(error?.underlyingError as? ExecutorLimitation)
        #expect(limitation.missing == .webSockets)
        #expect(limitation.executor == "Cassette")
        #expect(stub.requests.isEmpty)
        #expect(!cassette.supportedTransfers.contains(.webSockets))
    }

    @Test("The response's headers are the handshake's; its Sec-WebSocket-Protocol is the subprotocol")
    func handshakeHeaders() async throws {
        let response = StubResponse.webSocket(StubWebSocket([]), headers: ["Sec-WebSocket-Protocol": "v2"])
        #expect(response.statusCode == 101)
        #expect(response.headers["Sec-WebSocket-Protocol"] == "v2")

        let stub = await StubExecutor().stub(Chat.$room, with: response)
        let socket = try await stub.activate(in: blank) { () async throws(APIError) in
            try await Chat.$room.connect(with: "a")
        }
        await socket.close()
        #expect(socket.subprotocol == "v2")
    }

    @Test("A handshake refused with a status fails the connect; a delayed one opens after its delay")
    func refusedAndDelayed() async throws {
        let refused = await StubExecutor().stub(Chat.$room, with: .status(401))
        let error = await #expect(throws: APIError.self) {
            try await refused.activate(in: blank) { () async throws(APIError) in
                _ = try await Chat.$room.connect(with: "a")
            }
        }
        #expect(error?.reason == .unacceptableStatus(.unauthorized))

        let delayed = await StubExecutor().stub(
            Chat.$room, with: .webSocket(StubWebSocket([.send(.text("late"))])).delayed(by: .milliseconds(20)))
        let socket = try await delayed.activate(in: blank) { () async throws(APIError) in
            try await Chat.$room.connect(with: "a")
        }
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text("late"))
        await socket.close()
    }
}
