// WebSockets: declare a socket as an endpoint, open it on AsyncHTTPClientExecutor, send text and JSON, read the
// replies as they come (text, or decoded into your types), and close it. Runs against the fault server's
// `/ws/echo`, which echoes each message with its type.
import Courier
import CourierAsyncHTTPClient
import Foundation

/// A socket is declared like any endpoint: `@WebSocket` and a path, with a parameter that fills its path, its
/// query and its headers as a `GET`'s would.
@MainActor
enum Echo {
    @WebSocket("/ws/echo")
    static var socket: APIParameterBuilder<String>? = .init { ["room": $0] }
}

/// A message of the chat, sent and read as JSON.
struct ChatMessage: Codable, Sendable {
    let author: String
    let text: String
}

enum WebSocketsPage {
    static func run(baseURL: URL) async throws {
        print("== WebSockets: \(baseURL)/ws/echo on AsyncHTTPClientExecutor")
        let configuration = APIConfiguration(baseURL: baseURL, executor: AsyncHTTPClientExecutor())

        // Open: a handshake through the plugins; `101 Switching Protocols` gives the open socket.
        let socket = try await Echo.$socket.connect(with: "lobby", pingInterval: .seconds(5), using: configuration)
        print("opened \(socket.request.url.path)?\(socket.request.url.query ?? "")")

        // Send a text message and a typed one (JSON, with the configuration's encoder).
        try await socket.send("hello")  // a String goes as a text message, as it is
        try await socket.send(ChatMessage(author: "ann", text: "hi, JSON"))

        // Read the replies as they come: the socket is an AsyncSequence of messages (`.text` / `.binary`). An
        // iterator reads a few; a `for try await` loop reads them all (leaving it early closes the socket).
        var replies = socket.makeAsyncIterator()
        var count = 0
        while count < 2, let message = try await replies.next() {
            count += 1
            switch message {
            case .text(let text): print("← text: \(text)")
            case .binary(let data): print("← binary: \(data.count) bytes")
            }
        }

        // Or decode each message into a type (one reader per socket: this one is another socket).
        let typed = try await Echo.$socket.connect(with: "lobby", using: configuration)
        try await typed.send(ChatMessage(author: "bob", text: "typed both ways"))
        for try await message in typed.messages(as: ChatMessage.self) {
            print("← ChatMessage from \(message.author): \(message.text)")
            break  // leaving the loop closes `typed` (code 1001)
        }

        // Close: the close frame goes with its code and reason; a loop over the socket then ends.
        await socket.close(code: 1000, reason: "bye")
        print(
            "closed: open \(socket.isOpen); the server's close: \(socket.receivedClose.map { "\($0)" } ?? "none read")")
        guard count == 2 else { throw PlaygroundFailure(description: "expected 2 replies, got \(count)") }
    }
}

struct PlaygroundFailure: Error, CustomStringConvertible {
    let description: String
}
