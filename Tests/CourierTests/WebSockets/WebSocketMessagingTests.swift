import Courier
import CourierTesting
import Foundation
import Testing

/// Messages both ways above the executor (a scripted stub server): text, binary and typed messages, the size limit.
@Suite struct WebSocketMessagingTests {
    @Test(
        "A message from the server arrives as it was sent, and one from the client reaches the server",
        arguments: [
            WebSocketMessage.text("hello ✓"), .text(""), .binary(Data([0, 1, 0xFF, 0xFE])), .binary(Data()),
        ])
    func messagesBothWays(_ message: WebSocketMessage) async throws {
        // GIVEN a server that sends `message`, then waits for the client's and closes normally
        let server = StubWebSocket([.send(message), .waitForMessage, .close(code: 1000)])
        let configuration = socketConfiguration(await StubExecutor().stub(Chat.$lobby, with: .webSocket(server)))

        // WHEN the client sends the same message and reads to the end
        let socket = try await Chat.$lobby.connect(using: configuration)
        try await socket.send(message)
        let (messages, error) = await readAll(socket)

        // THEN each side got the other's message, once
        #expect(error == nil)
        #expect(messages == [message])
        #expect(server.received == [message])
    }

    @Test("send(_:) of a String sends it as text, of Data as binary, as they are")
    func stringAndDataAsTheyAre() async throws {
        let server = StubWebSocket([])
        let configuration = socketConfiguration(await StubExecutor().stub(Chat.$lobby, with: .webSocket(server)))

        let socket = try await Chat.$lobby.connect(using: configuration)
        try await socket.send("plain \"text\"")
        try await socket.send(Data([0, 0xFF]))
        await socket.close()

        #expect(server.received == [.text("plain \"text\""), .binary(Data([0, 0xFF]))])
    }

    @Test("send(_:) of an Encodable sends JSON text with the configuration's encoder")
    func typedSendUsesTheConfigurationsEncoder() async throws {
        // GIVEN a configuration whose encoder writes snake_case keys
        let server = StubWebSocket([])
        var configuration = socketConfiguration(await StubExecutor().stub(Chat.$lobby, with: .webSocket(server)))
        configuration.encoder.keyEncodingStrategy = .convertToSnakeCase

        // WHEN a model is sent
        let socket = try await Chat.$lobby.connect(using: configuration)
        try await socket.send(ChatMessage(sentBy: "ann", text: "hi"))
        await socket.close()

        // THEN the server got it as one text message, keys converted (and sorted, as the default encoder does)
        #expect(server.received == [.text(#"{"sent_by":"ann","text":"hi"}"#)])
    }

    @Test("messages(as:) decodes text and binary messages with the configuration's decoder")
    func typedMessagesUseTheConfigurationsDecoder() async throws {
        // GIVEN a configuration that decodes snake_case keys, and a server that sends a text and a binary message
        let server = StubWebSocket([
            .send(.text(#"{"sent_by":"ann","text":"one"}"#)),
            .send(.binary(Data(#"{"sent_by":"bob","text":"two"}"#.utf8))),
            .close(code: 1000),
        ])
        var configuration = socketConfiguration(await StubExecutor().stub(Chat.$lobby, with: .webSocket(server)))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        configuration.responseDecoder = .json(decoder)

        // WHEN the messages are read as models
        let socket = try await Chat.$lobby.connect(using: configuration)
        var decoded: [ChatMessage] = []
        for try await message in socket.messages(as: ChatMessage.self) { decoded.append(message) }

        // THEN both decoded, in order
        #expect(decoded == [ChatMessage(sentBy: "ann", text: "one"), ChatMessage(sentBy: "bob", text: "two")])
    }

    @Test("messages(as:) decodes with the endpoint's decoder when it names one")
    func typedMessagesUseTheEndpointsDecoder() async throws {
        let server = StubWebSocket([.send(.text(#"{"data":{"sentBy":"ann","text":"one"}}"#)), .close(code: 1000)])
        let configuration = socketConfiguration(await StubExecutor().stub(Chat.$wrapped, with: .webSocket(server)))

        let socket = try await Chat.$wrapped.connect(using: configuration)
        var decoded: [ChatMessage] = []
        for try await message in socket.messages(as: ChatMessage.self) { decoded.append(message) }

        #expect(decoded == [ChatMessage(sentBy: "ann", text: "one")])
    }

    @Test("A message that does not decode fails the loop with decodingFailed and closes the socket (1003)")
    func undecodableMessage() async throws {
        // GIVEN a server whose second message is not a ChatMessage
        let server = StubWebSocket([
            .send(.text(#"{"sentBy":"ann","text":"one"}"#)), .send(.text("not json")), .send(.text("never read")),
        ])
        let configuration = socketConfiguration(await StubExecutor().stub(Chat.$lobby, with: .webSocket(server)))

        // WHEN the messages are read as models
        let socket = try await Chat.$lobby.connect(using: configuration)
        var decoded: [ChatMessage] = []
        let error = await #expect(throws: APIError.self) {
            for try await message in socket.messages(as: ChatMessage.self) { decoded.append(message) }
        }

        // THEN the first one decoded, the second failed the loop, and the server saw the close
        #expect(decoded == [ChatMessage(sentBy: "ann", text: "one")])
        #expect(error?.reason == .decodingFailed)
        #expect(error?.underlyingError is DecodingError)
        #expect(error?.endpoint.path == "/lobby")
        #expect(server.closes.map(\.code) == [1003])
        await #expect(throws: APIError.self) { try await socket.send(.text("after")) }
    }

    /// The endpoint's limit is 10 bytes: a message of 10 passes, one of 11 fails, whatever its kind.
    @Test(
        "A message over maxResponseBytes fails with responseTooLarge and closes with 1009; one at the limit passes",
        arguments: [
            (WebSocketMessage.text("0123456789"), true), (.binary(Data(count: 10)), true),
            (.text("01234567890"), false), (.binary(Data(count: 11)), false),
            (.text("é123456789"), false),  // 10 characters, 11 bytes of UTF-8: bytes count
        ] as [(WebSocketMessage, Bool)])
    func sizeLimit(_ message: WebSocketMessage, passes: Bool) async throws {
        // GIVEN a server that sends the message
        let server = StubWebSocket([.send(message), .close(code: 1000)])
        let configuration = socketConfiguration(await StubExecutor().stub(Chat.$small, with: .webSocket(server)))

        // WHEN the client reads
        let socket = try await Chat.$small.connect(using: configuration)
        let (messages, error) = await readAll(socket)

        // THEN a message at the limit arrives; one over it fails, and the client closed with 1009
        if passes {
            #expect(messages == [message])
            #expect(error == nil)
            #expect(server.closes.map(\.code) == [1000])
        } else {
            #expect(messages.isEmpty)
            #expect(error?.reason == .transport(.responseTooLarge))
            #expect(server.closes.map(\.code) == [1009])
        }
    }
}
