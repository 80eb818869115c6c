import Courier
import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import Testing

/// WebSockets on `AsyncHTTPClientExecutor` against PyPI `websockets` (scripts/servers/wsechoserver.py, an
/// implementation independent of SwiftNIO's and of the fault server's), which `scripts/test-ahc` starts.
@Suite(
    "AsyncHTTPClientExecutor: WebSockets against PyPI websockets",
    .testEnvironment("COURIER_WS_ECHO_URL", setBy: "scripts/test-ahc"))
struct WebSocketEchoTests {
    struct Note: Codable, Equatable {
        let id: Int
        let text: String
    }

    /// `count` bytes where byte i is i % 251 (as the fault server's `/ws/big` sends), made 251 bytes at a time.
    static func pattern(_ count: Int) -> Data {
        let block = Data((0..<251).map { UInt8($0) })
        var data = Data(capacity: count + 251)
        while data.count < count { data.append(block) }
        return data.prefix(count)
    }

    static func configuration() throws -> APIConfiguration {
        let url = try #require(ProcessInfo.processInfo.environment["COURIER_WS_ECHO_URL"].flatMap(URL.init(string:)))
        return APIConfiguration(baseURL: url, executor: AsyncHTTPClientExecutor())
    }

    @Test("Text, binary and typed messages come back in order, with their types")
    func echoes() async throws {
        let echo = WebSocket<Void>("/echo")
        let socket = try await echo.connect(using: Self.configuration())
        let bytes = Data((0..<1000).map { UInt8($0 % 256) })
        try await socket.send(.text("héllo"))
        try await socket.send(.binary(bytes))
        try await socket.send(Note(id: 7, text: "typed"))
        var received: [WebSocketMessage] = []
        for try await message in socket {
            received.append(message)
            if received.count == 3 { break }
        }
        #expect(received.count == 3)
        #expect(received.first == .text("héllo"))
        #expect(received.dropFirst().first == .binary(bytes))
        let note = try JSONDecoder().decode(Note.self, from: try #require(received.last).data)
        #expect(note == Note(id: 7, text: "typed"))

        let typed = try await echo.connect(using: Self.configuration())
        try await typed.send(Note(id: 1, text: "one"))
        try await typed.send(Note(id: 2, text: "two"))
        var notes: [Note] = []
        for try await note in typed.messages(as: Note.self) {
            notes.append(note)
            if notes.count == 2 { break }
        }
        #expect(notes == [Note(id: 1, text: "one"), Note(id: 2, text: "two")])
    }

    @Test("The server's choice of subprotocol, the first offered, is the connection's")
    func subprotocol() async throws {
        let chat = WebSocket<Void>("/chat", headers: ["Sec-WebSocket-Protocol": "chat.v2, chat.v1"])
        let socket = try await chat.connect(using: Self.configuration())
        #expect(socket.subprotocol == "chat.v2")
        await socket.close()
        let plain = try await WebSocket<Void>("/chat").connect(using: Self.configuration())
        #expect(plain.subprotocol == nil)
        await plain.close()
    }

    @Test("A 16 MiB message within a 32 MiB limit goes and comes back whole")
    func largeMessage() async throws {
        let big = WebSocket<Void>("/big", maxResponseBytes: 32 << 20)
        let socket = try await big.connect(using: Self.configuration())
        let payload = Self.pattern(16 << 20)
        try await socket.send(.binary(payload))
        var iterator = socket.makeAsyncIterator()
        let reply = try await iterator.next()
        #expect(reply == .binary(payload))
        await socket.close()
    }

    @Test("A close of ours ends the loop; sending after it fails with connectionLost")
    func closes() async throws {
        let socket = try await WebSocket<Void>("/close").connect(using: Self.configuration())
        try await socket.send(.text("one"))
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text("one"))
        await socket.close(code: 1000, reason: "bye")
        #expect(try await iterator.next() == nil)
        await #expect {
            try await socket.send(.text("late"))
        } throws: { error in
            (error as? APIError)?.reason.transportProblem == .connectionLost
        }
    }

    @Test("100 sockets at once, each echoing its own messages")
    func concurrentSockets() async throws {
        let configuration = try Self.configuration()
        let echo = WebSocket<Void>("/many")
        let matched = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<100 {
                group.addTask {
                    let socket = try await echo.connect(pingInterval: nil, using: configuration)
                    var iterator = socket.makeAsyncIterator()
                    var ok = true
                    for round in 0..<5 {
                        try await socket.send(.text("\(index).\(round)"))
                        ok = try await iterator.next() == .text("\(index).\(round)") && ok
                    }
                    await socket.close()
                    return ok
                }
            }
            var matched = 0
            for try await ok in group where ok { matched += 1 }
            return matched
        }
        #expect(matched == 100)
    }

    @Test("A refused connection fails with cannotConnect")
    func refused() async throws {
        // Port 1: nothing listens there (tcpmux, never served on loopback).
        let configuration = try Self.configuration().with { $0.baseURL = URL(string: "http://127.0.0.1:1") }
        await #expect {
            _ = try await WebSocket<Void>("/x").connect(using: configuration)
        } throws: { error in
            (error as? APIError)?.reason.transportProblem == .cannotConnect
        }
    }
}
