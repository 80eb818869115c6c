import Courier
import Foundation

// The WebSocket check: sockets opened through Courier's `connect` (as a user would), with the executor under test
// behind a probe, against the fault server's /ws/ routes. An executor that does not declare `.webSockets` must fail
// `connect` with `.transport(.unsupportedByExecutor)` before any request reaches it.
extension ExecutorConformance.Context {
    func webSockets() async {
        let probe = Probe(base: executor)
        var configuration = APIConfiguration(baseURL: servers.faultServer)
        configuration.executor = probe
        configuration.timeout = .seconds(10)
        guard executor.supportedTransfers.contains(.webSockets) else {
            return await webSocketsUnsupported(configuration, probe: probe)
        }
        await webSocketEcho(configuration)
        await webSocketFragments(configuration)
        await webSocketHandshakeHeaders(configuration)
        await webSocketCloseFromTheServer(configuration)
        await webSocketDrop(configuration)
        await webSocketRefusedHandshake(configuration)
        await webSocketSizeLimit(configuration)
    }

    /// `connect` fails with unsupportedByExecutor, and no request reaches the executor.
    private func webSocketsUnsupported(_ configuration: APIConfiguration, probe: Probe) async {
        let label = "connect to /ws/echo (the executor does not declare webSockets)"
        do {
            let socket = try await Self.webSocketEcho.connect(with: nil, pingInterval: nil, using: configuration)
            await socket.close()
            fail("\(label): opened without declaring webSockets; expected unsupportedByExecutor")
        } catch {
            expect(
                error.reason == .transport(.unsupportedByExecutor),
                "\(label): \(error.reason), expected unsupportedByExecutor")
            expect(
                (error.underlyingError as? ExecutorLimitation)?.missing == .webSockets,
                "\(label): the underlying error is \(error.underlyingError.map { "\($0)" } ?? "nil"), expected an ExecutorLimitation missing webSockets"
            )
        }
        expect(probe.requests.isEmpty, "\(label): \(probe.requests.count) request(s) reached the executor")
    }

    /// Opens a socket with `open`; `nil` (after recording a failure) when it does not open.
    private func socket(
        _ label: String, _ open: () async throws(APIError) -> WebSocketConnection
    ) async -> WebSocketConnection? {
        do {
            return try await open()
        } catch {
            fail("\(label): did not open: \(error.reason) (\(error))")
            return nil
        }
    }

    /// The next message of `iterator`; `nil` (after recording a failure) when the socket ended or failed instead.
    private func next(
        _ iterator: inout WebSocketConnection.AsyncIterator, _ label: String
    ) async -> WebSocketMessage? {
        do {
            guard let message = try await iterator.next() else {
                fail("\(label): the socket ended before the message")
                return nil
            }
            return message
        } catch {
            fail("\(label): \((error as? APIError)?.reason.description ?? "") \(error)")
            return nil
        }
    }

    /// Reads `socket` to its end: the messages, and the error that ended it, if one did.
    private static func readAll(_ socket: WebSocketConnection) async -> ([WebSocketMessage], APIError?) {
        var messages: [WebSocketMessage] = []
        do {
            for try await message in socket { messages.append(message) }
            return (messages, nil)
        } catch {
            return (messages, APIError.wrapping(error, request: socket.request))
        }
    }

    /// Text and binary messages echoed whole and in order; the subprotocol the server picked; the client's close
    /// ends the loop.
    private func webSocketEcho(_ configuration: APIConfiguration) async {
        let label = "/ws/echo"
        var configuration = configuration
        configuration.headers["Sec-WebSocket-Protocol"] = "chat.v2, chat.v1"
        guard
            let socket = await socket(
                label,
                { () throws(APIError) in
                    try await Self.webSocketEcho.connect(with: nil, pingInterval: .seconds(1), using: configuration)
                })
        else { return }
        expect(
            socket.subprotocol == "chat.v2", "\(label): subprotocol \(socket.subprotocol ?? "nil"), expected chat.v2")
        let sent: [WebSocketMessage] = [
            .text("hello ✓"), .binary(Self.socketBytes(1_000)), .text(""), .binary(Data()),
            .text(String(repeating: "Zoë ", count: 20_000)),
        ]
        var iterator = socket.makeAsyncIterator()
        for message in sent {
            do {
                try await socket.send(message)
            } catch {
                fail("\(label): sending \(Self.describe(message)) failed: \(error.reason) (\(error))")
                break
            }
            guard let echo = await next(&iterator, "\(label): the echo of \(Self.describe(message))") else { break }
            expect(echo == message, "\(label): sent \(Self.describe(message)), the echo is \(Self.describe(echo))")
        }
        await socket.close(code: 1000, reason: "done")
        do {
            let after = try await iterator.next()
            expect(after == nil, "\(label): after close(), the loop went on with \(after.map(Self.describe) ?? "")")
        } catch {
            fail("\(label): after close(), the loop failed: \(error)")
        }
    }

    /// Messages the server sends in frames of 7 bytes (splitting UTF-8 characters) arrive whole.
    private func webSocketFragments(_ configuration: APIConfiguration) async {
        let label = "/ws/echo?fragment=7"
        guard
            let socket = await socket(
                label,
                { () throws(APIError) in
                    try await Self.webSocketEcho.connect(with: 7, pingInterval: nil, using: configuration)
                })
        else { return }
        var iterator = socket.makeAsyncIterator()
        for message in [WebSocketMessage.text(String(repeating: "añ✓𝄞", count: 50)), .binary(Self.socketBytes(1_001))] {
            do {
                try await socket.send(message)
            } catch {
                fail("\(label): sending \(Self.describe(message)) failed: \(error.reason) (\(error))")
                break
            }
            guard let echo = await next(&iterator, "\(label): the echo of \(Self.describe(message))") else { break }
            expect(echo == message, "\(label): sent \(Self.describe(message)), the echo is \(Self.describe(echo))")
        }
        await socket.close()
    }

    /// The handshake carries the request's headers and query (the fault server's `/ws/headers` reports them).
    private func webSocketHandshakeHeaders(_ configuration: APIConfiguration) async {
        let label = "/ws/headers"
        guard
            let socket = await socket(
                label,
                { () throws(APIError) in
                    try await Self.webSocketHeaders.connect(with: "x-1", pingInterval: nil, using: configuration)
                })
        else { return }
        var iterator = socket.makeAsyncIterator()
        let received = await next(&iterator, "\(label): the report of the handshake")
        await socket.close()
        guard let report = received else { return }
        guard let data = report.text.map({ Data($0.utf8) }),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return fail("\(label): the report is not JSON: \(Self.describe(report))") }
        expect(
            Self.header("X-Conformance", in: object) == "socket-check",
            "\(label): X-Conformance arrived as \(Self.header("X-Conformance", in: object) ?? "nothing")")
        expect(
            Self.header("Authorization", in: object) == "Bearer fresh-token",
            "\(label): Authorization arrived as \(Self.header("Authorization", in: object) ?? "nothing")")
        expect(object["path"] as? String == "/ws/headers", "\(label): the path arrived as \(object["path"] ?? "nil")")
        let query = (object["query"] as? String) ?? ""
        let items = URLComponents(string: "?" + query)?.queryItems ?? []
        expect(
            items.map { "\($0.name)=\($0.value ?? "")" } == ["q=x-1", "n=2"],
            "\(label): the query arrived as \(query), expected q=x-1&n=2")
    }

    /// A close frame from the server: `1008` fails the loop with closedByPeer, naming the close, and the client answers
    /// it with a close frame of its own (the server records its code).
    private func webSocketCloseFromTheServer(_ configuration: APIConfiguration) async {
        let key = UUID().uuidString
        let label = "/ws/close?code=1008&reason=policy&after=1"
        guard
            let socket = await socket(
                label,
                { () throws(APIError) in
                    try await Self.webSocketClose.connect(
                        with: (1008, "policy", key), pingInterval: nil, using: configuration)
                })
        else { return }
        do {
            try await socket.send(.text("one"))
        } catch {
            return fail("\(label): sending failed: \(error.reason) (\(error))")
        }
        let (messages, error) = await Self.readAll(socket)
        expect(messages == [.text("one")], "\(label): read \(messages.map(Self.describe)), expected the echo of one")
        expect(
            error?.reason == .transport(.closedByPeer),
            "\(label): the loop ended with \(error.map { "\($0.reason)" } ?? "no error"), expected closedByPeer")
        let close = error?.underlyingError as? WebSocketClose
        expect(
            close == WebSocketClose(code: 1008, reason: "policy"),
            "\(label): the underlying error is \(error?.underlyingError.map { "\($0)" } ?? "nil"), expected the close 1008 policy"
        )
        expect(
            socket.receivedClose == WebSocketClose(code: 1008, reason: "policy"),
            "\(label): receivedClose \(socket.receivedClose.map { "\($0)" } ?? "nil"), expected 1008 policy")
        // RFC 6455 §5.5.1: the server's close is answered with a close frame (echoing its code), once.
        let closes = await answeredCloses(key, configuration)
        expect(
            closes == [1008],
            "\(label): the server received the client's close codes \(closes) (1006: no close frame), expected [1008]")
    }

    /// The codes of the client's close frames the fault server recorded under `key` (`/count-stats`), once its
    /// `/ws/close` route recorded one (it waits up to 2 s for the client's answer, then records `1006`).
    private func answeredCloses(_ key: String, _ configuration: APIConfiguration) async -> [Int] {
        struct Stats: Decodable {
            var closes: [Int]?
        }
        let stats = GET<String>("/count-stats") { ["key": "ws-close:" + $0] }
        for _ in 0..<100 {
            do {
                let recorded: Stats = try await stats.request(with: key, using: configuration)
                if let closes = recorded.closes, !closes.isEmpty { return closes }
            } catch {
                fail("/count-stats?key=ws-close:\(key): \(error.reason)")
                return []
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return []
    }

    /// A connection closed without a close frame fails the loop with connectionLost.
    private func webSocketDrop(_ configuration: APIConfiguration) async {
        let label = "/ws/drop?after=1"
        guard
            let socket = await socket(
                label,
                { () throws(APIError) in
                    try await Self.webSocketDrop.connect(with: 1, pingInterval: nil, using: configuration)
                })
        else { return }
        do {
            try await socket.send(.text("one"))
        } catch {
            return fail("\(label): sending failed: \(error.reason) (\(error))")
        }
        let (messages, error) = await Self.readAll(socket)
        expect(messages == [.text("one")], "\(label): read \(messages.map(Self.describe)), expected the echo of one")
        expect(
            error?.reason == .transport(.connectionLost),
            "\(label): the loop ended with \(error.map { "\($0.reason)" } ?? "no error"), expected connectionLost")
    }

    /// A handshake answered with `401` comes back as a response: status validation fails it with unauthorized, the
    /// server's body kept; with the credential the server wants, the socket opens.
    private func webSocketRefusedHandshake(_ configuration: APIConfiguration) async {
        let label = "/ws/auth without a credential"
        do {
            let socket = try await Self.webSocketAuth.connect(with: nil, pingInterval: nil, using: configuration)
            await socket.close()
            fail("\(label): opened; expected a 401")
        } catch {
            expect(
                error.reason == .unacceptableStatus(.unauthorized),
                "\(label): \(error.reason), expected unacceptableStatus(unauthorized) (the 401 returned as a response)")
            expect(error.statusCode == 401, "\(label): status \(error.statusCode.map(String.init) ?? "none")")
            let body = error.response?.body.data.map { String(decoding: $0, as: UTF8.self) } ?? ""
            expect(body.contains("unauthorized"), "\(label): the response body is \(body.debugDescription)")
        }

        let freshLabel = "/ws/auth with Authorization: Bearer fresh-token"
        guard
            let socket = await socket(
                freshLabel,
                { () throws(APIError) in
                    try await Self.webSocketAuth.connect(with: "fresh-token", pingInterval: nil, using: configuration)
                })
        else { return }
        var iterator = socket.makeAsyncIterator()
        do {
            try await socket.send(.text("in"))
            let echo = await next(&iterator, "\(freshLabel): the echo")
            expect(echo == .text("in"), "\(freshLabel): the echo is \(echo.map(Self.describe) ?? "nothing")")
        } catch {
            fail("\(freshLabel): sending failed: \(error.reason) (\(error))")
        }
        await socket.close()
    }

    /// A message at the request's ``/Courier/APIRequest/maxResponseBytes`` arrives whole; one over it fails with
    /// responseTooLarge.
    private func webSocketSizeLimit(_ configuration: APIConfiguration) async {
        let limit = 64 * 1024
        var limited = configuration
        limited.maxResponseBytes = limit
        for (size, fragment) in [(limit, 0), (limit, 1_000), (limit + 1, 0), (1024 * 1024, 0), (limit + 1, 1_000)] {
            let label = "/ws/big?bytes=\(size)&fragment=\(fragment) with a limit of \(limit) bytes"
            guard
                let socket = await socket(
                    label,
                    { () throws(APIError) in
                        try await Self.webSocketBig.connect(with: (size, fragment), pingInterval: nil, using: limited)
                    })
            else { continue }
            var iterator = socket.makeAsyncIterator()
            do {
                let message = try await iterator.next()
                if size <= limit {
                    expect(
                        message == .binary(Self.socketBytes(size)),
                        "\(label): received \(message.map(Self.describe) ?? "nothing"), expected \(size) bytes i % 251")
                } else {
                    fail("\(label): received \(message.map(Self.describe) ?? "the end"), expected responseTooLarge")
                }
            } catch {
                let reason = (error as? APIError)?.reason
                expect(
                    size > limit && reason == .transport(.responseTooLarge),
                    "\(label): failed with \(reason.map { "\($0)" } ?? "\(error)")\(size > limit ? ", expected responseTooLarge" : "")"
                )
            }
            await socket.close()
        }
    }

    // MARK: - Endpoints (the fault server)

    /// `/ws/echo`, in frames of the parameter's size when it is given.
    static let webSocketEcho = WebSocket<Int?>("/ws/echo") { ["fragment": $0] }
    /// `/ws/headers`: reports the handshake's headers, path and query.
    static let webSocketHeaders = WebSocket<String>(
        "/ws/headers", headers: ["X-Conformance": "socket-check", "Authorization": "Bearer fresh-token"]
    ) { ["q": $0, "n": 2] }
    /// `/ws/close`: closes with the code and reason after one echoed message; records the client's answer under the
    /// key.
    static let webSocketClose = WebSocket<(code: Int, reason: String, key: String)>("/ws/close") {
        ["code": $0.code, "reason": $0.reason, "after": 1, "key": $0.key]
    }
    /// `/ws/drop`: drops the connection after the given number of echoed messages.
    static let webSocketDrop = WebSocket<Int>("/ws/drop") { ["after": $0] }
    /// `/ws/auth`: `401` unless the bearer token is `fresh-token`.
    static let webSocketAuth = WebSocket<String?>(
        "/ws/auth", headerBuilder: { token in token.map { ["Authorization": "Bearer \($0)"] } ?? [:] })
    /// `/ws/big`: one binary message of `bytes` bytes (byte i is i % 251), in frames of `fragment` bytes (0: one).
    static let webSocketBig = WebSocket<(bytes: Int, fragment: Int)>("/ws/big") {
        ["bytes": $0.bytes, "fragment": $0.fragment == 0 ? nil : $0.fragment]
    }

    /// `count` bytes, byte i being i % 251, as `/ws/big` sends them.
    static func socketBytes(_ count: Int) -> Data {
        let block = Data((0..<251).map { UInt8($0) })
        var data = Data(capacity: count + block.count)
        while data.count < count { data.append(block) }
        return data.prefix(count)
    }

    /// A message for failure messages: its kind and size, and a short text.
    static func describe(_ message: WebSocketMessage) -> String {
        switch message {
        case .text(let text):
            "text of \(text.utf8.count) bytes" + (text.count <= 20 ? " \(text.debugDescription)" : "")
        case .binary(let data): "binary of \(data.count) bytes"
        }
    }
}
