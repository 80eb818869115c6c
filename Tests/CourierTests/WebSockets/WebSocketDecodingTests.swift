import Courier
import CourierTesting
import Foundation
import Testing

/// `WebSocketConnection.decode(_:from:)`: one message decoded with the call's decoder, the socket left open when it
/// does not decode.
@Suite struct WebSocketDecodingTests {
    /// A message of the other kind on the same socket.
    struct Presence: Decodable, Equatable {
        var online: [String]
    }

    @Test("decode(_:from:) decodes with the endpoint's decoder, over the configuration's")
    func decodesWithTheEndpointsDecoder() async throws {
        // GIVEN an endpoint whose decoder reads inside {"data": …}, a configuration decoder that would not, and a
        // server that sends two kinds of messages
        let server = StubWebSocket([
            .send(.text(#"{"data":{"sentBy":"ann","text":"one"}}"#)),
            .send(.binary(Data(#"{"data":{"online":["ann","bob"]}}"#.utf8))),
            .close(code: 1000),
        ])
        var configuration = socketConfiguration(await StubExecutor().stub(Chat.$wrapped, with: .webSocket(server)))
        let snakeCase = JSONDecoder()
        snakeCase.keyDecodingStrategy = .convertFromSnakeCase
        configuration.responseDecoder = .json(snakeCase)

        // WHEN each message is decoded as the kind it is
        let socket = try await Chat.$wrapped.connect(using: configuration)
        var chats: [ChatMessage] = []
        var presences: [Presence] = []
        for try await message in socket {
            if let chat = try? socket.decode(ChatMessage.self, from: message) {
                chats.append(chat)
            } else {
                presences.append(try socket.decode(Presence.self, from: message))
            }
        }

        // THEN both decoded with the endpoint's decoder, text and binary alike
        #expect(chats == [ChatMessage(sentBy: "ann", text: "one")])
        #expect(presences == [Presence(online: ["ann", "bob"])])
    }

    @Test("decode(_:from:) decodes with the configuration's decoder when the endpoint names none")
    func decodesWithTheConfigurationsDecoder() async throws {
        let server = StubWebSocket([.send(.text(#"{"sent_by":"ann","text":"one"}"#)), .close(code: 1000)])
        var configuration = socketConfiguration(await StubExecutor().stub(Chat.$lobby, with: .webSocket(server)))
        let snakeCase = JSONDecoder()
        snakeCase.keyDecodingStrategy = .convertFromSnakeCase
        configuration.responseDecoder = .json(snakeCase)

        let socket = try await Chat.$lobby.connect(using: configuration)
        var chats: [ChatMessage] = []
        for try await message in socket { chats.append(try socket.decode(from: message)) }

        #expect(chats == [ChatMessage(sentBy: "ann", text: "one")])
    }

    @Test("A message that does not decode fails decode(_:from:) with decodingFailed; the socket stays open")
    func undecodableMessageLeavesTheSocketOpen() async throws {
        // GIVEN a server that sends a message that is no ChatMessage, then one that is
        let server = StubWebSocket([
            .send(.text("not json")), .send(.text(#"{"sentBy":"ann","text":"one"}"#)), .close(code: 1000),
        ])
        let configuration = socketConfiguration(await StubExecutor().stub(Chat.$lobby, with: .webSocket(server)))

        // WHEN each message is decoded
        let socket = try await Chat.$lobby.connect(using: configuration)
        var outcomes: [Result<ChatMessage, APIError>] = []
        for try await message in socket {
            outcomes.append(Result { () throws(APIError) in try socket.decode(ChatMessage.self, from: message) })
        }

        // THEN the first failed with decodingFailed naming the endpoint, the second decoded, and the socket ended
        // with the server's close, not a 1003 of its own
        #expect(outcomes.count == 2)
        guard case .failure(let error) = outcomes.first else {
            Issue.record("the first message decoded")
            return
        }
        #expect(error.reason == .decodingFailed)
        #expect(error.underlyingError is DecodingError)
        #expect(error.endpoint.path == "/lobby")
        #expect(try outcomes[1].get() == ChatMessage(sentBy: "ann", text: "one"))
        #expect(server.closes.map(\.code) == [1000])
    }
}
