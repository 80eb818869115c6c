import Foundation

extension WebSocketConnection {
    /// Decodes `message`, text or binary, as `Value` with the decoder of the call that opened the socket (the
    /// endpoint's `decoder:`, else the configuration's ``APIConfiguration/responseDecoder``): the decoding
    /// ``messages(as:)`` does, for one message at a time.
    ///
    /// For a socket whose messages are of several kinds: a message that does not decode fails this call only, and
    /// the socket stays open.
    ///
    /// ```swift
    /// for try await message in socket {
    ///     if let chat = try? socket.decode(ChatMessage.self, from: message) {
    ///         show(chat)
    ///     } else {
    ///         let presence = try socket.decode(Presence.self, from: message)
    ///         show(presence)
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: ``APIError`` with ``APIError/Reason/decodingFailed`` (the decoder's error is its
    ///   ``APIError/underlyingError``) when the message does not decode.
    public func decode<Value: Decodable>(
        _ type: Value.Type = Value.self, from message: WebSocketMessage
    ) throws(APIError) -> Value {
        do {
            return try state.value.settings.decoder.decode(Value.self, from: message.data)
        } catch {
            throw APIError(.decodingFailed, endpoint: request.endpoint, request: request, underlyingError: error)
        }
    }
}
