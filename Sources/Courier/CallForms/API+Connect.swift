import Foundation

extension API where Method == HTTPMethodMarkers.WebSocket {
    /// Opens the endpoint's WebSocket with `parameter`, which fills the path, the query and the headers as for a
    /// `GET`:
    ///
    /// ```swift
    /// @MainActor enum Chat {
    ///     @WebSocket("/rooms/{room}/socket")
    ///     static var room: APIParameterBuilder<String>? = .init { ["room": $0] }
    /// }
    ///
    /// let socket = try await Chat.$room.connect(with: "lobby")
    /// try await socket.send(.text("hello"))
    /// for try await message in socket { print(message.text ?? "") }
    /// ```
    ///
    /// The URL is the endpoint's with `ws` for `http` and `wss` for `https` (a base URL may name either). The
    /// handshake is a call like any other: the configuration's and the endpoint's plugins run (an auth plugin adds
    /// its header, a refreshing one refreshes on a `401` and tries again, logging masks secrets), the request's
    /// ``APIRequest/timeout`` bounds it, and the call's timeline ends when the socket opens (then records its
    /// close, with the counts of messages and bytes). A handshake answered with anything but
    /// `101 Switching Protocols` fails with ``APIError/Reason/unacceptableStatus(_:)`` and the response's body. Ask
    /// for a subprotocol with a `Sec-WebSocket-Protocol` header; the server's choice is
    /// ``WebSocketConnection/subprotocol``. The largest message is the endpoint's `maxResponseBytes`.
    ///
    /// - Parameters:
    ///   - parameter: The call's parameter.
    ///   - pingInterval: How often a ping checks the connection; a pong missing by the next ping fails it with
    ///     ``APIError/TransportProblem/timedOut`` (and closes it with `1011` "ping timeout", without waiting for the
    ///     unresponsive peer to answer). `nil` sends no pings.
    ///   - reconnect: When the connection drops (lost, a missed pong, a peer that closes with `1001`, `1006` or
    ///     `1011`–`1014`), open it again through the plugins, up to
    ///     ``ServerSentEvent/ReconnectPolicy/upTo(_:delay:maxDelay:)`` times in a row, the wait doubling from its
    ///     `delay` to its `maxDelay` (a message starts the count and the wait again); the loop over the messages goes
    ///     on with the new socket (messages the server sent in between are lost). Each wait is a ``CallTimeline/Event/Kind/retryScheduled`` event. `nil` never
    ///     reconnects.
    ///   - configuration: The configuration for this call; `nil` for ``APIConfiguration/current``.
    /// - Throws: ``APIError``: ``APIError/TransportProblem/unsupportedByExecutor`` before any I/O when the executor
    ///   does not declare ``TransferFeatures/webSockets`` (``URLSessionExecutor`` on Linux).
    public func connect(
        with parameter: Parameter,
        pingInterval: Duration? = .seconds(30),
        reconnect: ReconnectPolicy? = nil,
        using configuration: APIConfiguration? = nil
    ) async throws(APIError) -> WebSocketConnection {
        let configuration = configuration ?? .current
        var request = try makeCall(with: parameter, using: configuration, progress: nil)
        request.responseDelivery = .webSocket
        let options = request.resolvedOptions(for: configuration)
        do {
            let opened = request
            let reopen: @Sendable () async throws(APIError) -> WebSocketConnection = { () throws(APIError) in
                try await WebSocketConnection.open(opened, configuration: configuration).connection
            }
            let (connection, head) = try await WebSocketConnection.open(request, configuration: configuration)
            let settings = WebSocketConnection.Settings(
                encoder: options.jsonEncoder(for: .json), decoder: options.decoder,
                reconnect: reconnect ?? .never, reopen: request.body.isReplayable ? reopen : nil)
            connection.configure(settings, pingInterval: pingInterval)
            request.recorder?.finish(head, request: request, detail: "socket opened")
            return connection
        } catch {
            throw request.recorder?.finished(error, request: request) ?? error
        }
    }
}

extension API where Method == HTTPMethodMarkers.WebSocket, Parameter == Void {
    /// Opens the endpoint's WebSocket; see ``connect(with:pingInterval:reconnect:using:)``.
    /// - Throws: ``APIError``.
    public func connect(
        pingInterval: Duration? = .seconds(30),
        reconnect: ReconnectPolicy? = nil,
        using configuration: APIConfiguration? = nil
    ) async throws(APIError) -> WebSocketConnection {
        try await connect(with: (), pingInterval: pingInterval, reconnect: reconnect, using: configuration)
    }
}

extension WebSocketConnection {
    /// Sends the handshake `request` through the plugins and returns its open socket and the response's head.
    static func open(
        _ request: APIRequest, configuration: APIConfiguration
    ) async throws(APIError)
        -> (connection: WebSocketConnection, head: APIResponse)
    {
        let response = try await CallExecution.execute(request, configuration: configuration)
        guard let connection = response.body.webSocket else {
            // A status the endpoint accepts, without a socket: a server that did not switch protocols.
            throw APIError(
                .unacceptableStatus(APIError.StatusCategory(statusCode: response.statusCode)),
                endpoint: request.endpoint, request: request, response: response)
        }
        var head = response
        head.body = .empty
        return (connection, head)
    }
}
