import Courier
import CourierTesting
import Foundation
import Testing

/// The WebSocket endpoints of the WebSocket tests, declared as a user would.
@MainActor
enum Chat {
    /// A room's socket: the room fills the path, `since` the query (dropped when `nil`), the client's name a header.
    @WebSocket("/rooms/{room}/socket", headers: ["X-Client": "tests"])
    static var room: APIParameterBuilder<(room: String, since: Int?)>? = .init { ["room": $0.room, "since": $0.since] }

    /// A socket without parameters.
    @WebSocket("/lobby")
    static var lobby: APIParameterBuilder<Void>? = nil

    /// A socket whose messages are at most 10 bytes.
    @WebSocket("/small", maxResponseBytes: 10)
    static var small: APIParameterBuilder<Void>? = nil

    /// A socket whose messages are JSON envelopes `{"data": …}`.
    @WebSocket("/wrapped", decoder: KeyPathResponseDecoder.at("data"))
    static var wrapped: APIParameterBuilder<Void>? = nil

    /// A socket that takes a token in its query.
    @WebSocket("/feed")
    static var feed: APIParameterBuilder<String>? = .init { ["token": $0] }
}

/// A chat message as the typed sends and reads carry it.
struct ChatMessage: Codable, Sendable, Equatable {
    var sentBy: String
    var text: String
}

/// A configuration with `executor`, a base URL and `observers`.
func socketConfiguration(
    _ executor: some APIExecutor, observers: [any CallObserver] = [], plugins: [any APIPlugin] = []
) -> APIConfiguration {
    testConfiguration.with {
        $0.executor = executor
        $0.observers = observers
        $0.plugins = plugins
    }
}

/// Waits until `condition` holds, for at most `limit` (a generous hard limit, never a timing assertion); records an
/// issue when it never does.
func eventually(
    within limit: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("the condition did not hold within \(limit)", sourceLocation: sourceLocation)
            return
        }
        try? await Task.sleep(for: .milliseconds(10))
    }
}

/// Reads `socket` to its end: the messages, and the error that ended it, if one did.
func readAll(_ socket: WebSocketConnection) async -> (messages: [WebSocketMessage], error: APIError?) {
    var messages: [WebSocketMessage] = []
    do {
        for try await message in socket { messages.append(message) }
        return (messages, nil)
    } catch {
        return (messages, error)
    }
}
