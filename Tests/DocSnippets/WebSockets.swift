// The context of WebSockets.md's ```swift blocks (scripts/check-doc-snippets): what they use without declaring it.
import Courier
import Foundation

/// Where the app keeps its access token, refreshed when the server rejects it.
actor TokenStore {
    var accessToken: String? = "token"
    func refresh(_ expired: String?) async throws -> String { "fresh" }
}

let tokens = TokenStore()
let snapshot = Data([0x01, 0x02, 0x03])

/// The other kind of message on the chat socket.
struct Presence: Decodable, Sendable {
    let online: [String]
}

func show(_ message: ChatMessage) {}
func show(_ text: String) {}

/// The transport of `socket` below: a socket whose peer closes at once.
struct ClosingTransport: WebSocketTransport {
    func receive() async throws -> WebSocketEvent { .close(WebSocketClose(code: 1000)) }
    func send(_ message: WebSocketMessage) async throws {}
    func ping() async throws {}
    func close(_ close: WebSocketClose) async {}
}

/// The socket of the blocks that use one without connecting it.
let socket = WebSocketConnection(
    request: APIRequest(
        method: .get, url: URL(fileURLWithPath: "/rooms/lobby/socket"),
        endpoint: APIEndpoint(method: .get, path: "/rooms/{room}/socket")),
    transport: ClosingTransport())
