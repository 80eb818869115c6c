import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Opening a socket above the executor: the handshake request a declaration builds, the plugins it goes through,
/// its refusal, the call's timeline, and secrets on every printable surface.
@Suite struct WebSocketConnectTests {
    // MARK: - The handshake request

    /// The parameter fills the path (one segment, percent-encoded), the query (`nil` dropped), as for a `GET`.
    @Test(
        "The parameter fills the path and the query as for a GET",
        arguments: [
            (("lobby", nil), "/v2/rooms/lobby/socket", nil),
            (("lobby", 5), "/v2/rooms/lobby/socket", "since=5"),
            (("a/b c", 0), "/v2/rooms/a%2Fb%20c/socket", "since=0"),
        ] as [((String, Int?), String, String?)])
    func handshakeRequest(parameter: (String, Int?), path: String, query: String?) async throws {
        // GIVEN a stub server for the room's socket
        let stub = await StubExecutor().stub(Chat.$room, with: .webSocket(StubWebSocket([])))

        // WHEN the socket opens with the parameter
        let socket = try await Chat.$room.connect(
            with: (room: parameter.0, since: parameter.1), using: socketConfiguration(stub))
        await socket.close()

        // THEN the handshake is a GET for a WebSocket, with the path, query and the endpoint's headers
        let request = try #require(stub.requests.first)
        #expect(stub.requests.count == 1)
        #expect(request.method == .get)
        #expect(request.responseDelivery.isWebSocket)
        #expect(request.url.path(percentEncoded: true) == path)
        #expect(request.rawQuery == query)
        #expect(request.headers["X-Client"] == "tests")
        #expect(request.endpoint.path == "/rooms/{room}/socket")
        #expect(socket.request.url == request.url)
    }

    @Test("A header builder fills the handshake's headers, and the server's subprotocol is the socket's")
    func headersAndSubprotocol() async throws {
        // GIVEN an endpoint that asks for a subprotocol from its parameter, and a server that picks one
        let endpoint = WebSocket<String>("/chat", headerBuilder: { ["Sec-WebSocket-Protocol": $0] })
        let server = StubWebSocket([])
        let stub = StubExecutor().stub(
            endpoint, with: .webSocket(server, headers: ["Sec-WebSocket-Protocol": "chat.v2"]))

        // WHEN it opens
        let socket = try await endpoint.connect(with: "chat.v2, chat.v1", using: socketConfiguration(stub))
        await socket.close()

        // THEN the handshake asked for both and the socket knows the server's choice
        #expect(stub.requests.first?.headers["Sec-WebSocket-Protocol"] == "chat.v2, chat.v1")
        #expect(socket.subprotocol == "chat.v2")
    }

    @Test("A server that does not name a subprotocol leaves it nil")
    func noSubprotocol() async throws {
        let stub = await StubExecutor().stub(Chat.$lobby, with: .webSocket(StubWebSocket([])))
        let socket = try await Chat.$lobby.connect(using: socketConfiguration(stub))
        await socket.close()
        #expect(socket.subprotocol == nil)
    }

    @Test("A parameter that cannot fill the path fails before any I/O")
    func invalidParameterFailsBeforeIO() async throws {
        let stub = await StubExecutor().stub(Chat.$room, with: .webSocket(StubWebSocket([])))

        let error = await #expect(throws: APIError.self) {
            try await Chat.$room.connect(with: (room: "..", since: nil), using: socketConfiguration(stub))
        }

        #expect(error?.reason == .invalidRequest(.invalidPathValue(name: "room")))
        #expect(stub.requests.isEmpty)
    }

    @Test(
        "A refused handshake fails with unacceptableStatus and the server's response",
        arguments: [
            (401, APIError.StatusCategory.unauthorized), (403, .forbidden), (404, .notFound), (500, .serverError),
        ]
    )
    func refusedHandshake(status: Int, category: APIError.StatusCategory) async throws {
        let stub = await StubExecutor().stub(Chat.$lobby, with: .json(#"{"error":"no"}"#, status: status))

        let error = await #expect(throws: APIError.self) {
            try await Chat.$lobby.connect(using: socketConfiguration(stub))
        }

        #expect(error?.reason == .unacceptableStatus(category))
        #expect(error?.statusCode == status)
        #expect(error?.response?.body.data == Data(#"{"error":"no"}"#.utf8))
    }

    @Test("A server that answers the handshake with 200 and no socket fails the call")
    func handshakeWithoutASocket() async throws {
        let stub = await StubExecutor().stub(Chat.$lobby, with: .text("hello"))

        let error = await #expect(throws: APIError.self) {
            try await Chat.$lobby.connect(using: socketConfiguration(stub))
        }

        #expect(error?.statusCode == 200)
        #expect(error?.reason == .unacceptableStatus(.unexpected))
    }

    // MARK: - Plugins

    @Test("An auth plugin's header is in the handshake")
    func authPluginOnTheHandshake() async throws {
        let stub = await StubExecutor().stub(Chat.$lobby, with: .webSocket(StubWebSocket([])))
        let configuration = socketConfiguration(stub, plugins: [AuthPlugin.bearer("t0ken")])

        let socket = try await Chat.$lobby.connect(using: configuration)
        await socket.close()

        #expect(stub.requests.first?.headers[.authorization] == "Bearer t0ken")
    }

    @Test("A refreshing auth plugin refreshes after a 401 handshake, and the socket opens with the fresh credential")
    func refreshAfterA401Handshake() async throws {
        // GIVEN a server that refuses every handshake without the fresh token, and a plugin holding a stale one
        let server = StubWebSocket([.send(.text("welcome")), .close(code: 1000)])
        let stub = await StubExecutor().stub(Chat.$lobby) { request in
            request.headers[.authorization] == "Bearer fresh-token"
                ? .webSocket(server) : .json(#"{"error":"unauthorized"}"#, status: 401)
        }
        let token = LockedBox("stale-token")
        let refreshes = LockedBox(0)
        let auth = RefreshingAuthPlugin<String>(
            credential: { token.value },
            refresh: { _ in
                refreshes.withLock { $0 += 1 }
                token.value = "fresh-token"
                return "fresh-token"
            },
            apply: { credential, request in request.headers[.authorization] = "Bearer \(credential)" })

        // WHEN the socket opens
        let socket = try await Chat.$lobby.connect(using: socketConfiguration(stub, plugins: [auth]))
        let (messages, error) = await readAll(socket)

        // THEN one refresh ran, the second handshake carried the fresh token, and the socket works
        #expect(refreshes.value == 1)
        #expect(stub.requests.map { $0.headers[.authorization] } == ["Bearer stale-token", "Bearer fresh-token"])
        #expect(messages == [.text("welcome")])
        #expect(error == nil)
    }

    // MARK: - Timeline

    @Test("The timeline has the handshake's attempt, finishes when the socket opens, then records its close")
    func timeline() async throws {
        // GIVEN an observer, and a server that sends one message and waits for the client's
        let observer = CallTimelineTests.Recorder()
        let server = StubWebSocket([.send(.text("hello")), .waitForMessage])
        let stub = await StubExecutor().stub(Chat.$lobby, with: .webSocket(server))

        // WHEN the client reads one message, answers it and closes
        let socket = try await Chat.$lobby.connect(using: socketConfiguration(stub, observers: [observer]))
        var iterator = socket.makeAsyncIterator()
        let hello = try await iterator.next()
        try await socket.send(.text("hi"))
        await socket.close(code: 1000, reason: "bye")

        // THEN the call ran start → handshake → finished (socket opened), and the close came with the counts
        #expect(hello == .text("hello"))
        #expect(
            observer.kinds == [.started, .built, .attemptStarted, .responseReceived, .finished, .webSocketClosed])
        let events = observer.seen.value.map(\.0)
        let finished = try #require(events.first { $0.kind == .finished })
        #expect(finished.statusCode == 101)
        #expect(finished.detail == "socket opened")
        let closed = try #require(events.last)
        #expect(closed.kind == .webSocketClosed)
        #expect(closed.bytes == 7)
        #expect(
            closed.detail
                == "closed 1000; sent 1 messages (2 bytes), received 1 messages (5 bytes)")
        #expect(observer.seen.value.last?.1.failure == nil)
    }

    @Test("A refused handshake's timeline ends with its failure")
    func timelineOfARefusal() async throws {
        let observer = CallTimelineTests.Recorder()
        let stub = await StubExecutor().stub(Chat.$lobby, with: .status(403))

        let error = await #expect(throws: APIError.self) {
            try await Chat.$lobby.connect(using: socketConfiguration(stub, observers: [observer]))
        }

        #expect(observer.kinds.last == .finished)
        #expect(error?.timeline?.failure == .unacceptableStatus(.forbidden))
    }

    // MARK: - Executors

    #if canImport(FoundationNetworking)
        @Test("URLSessionExecutor on Linux fails connect with unsupportedByExecutor before any I/O")
        func urlSessionOnLinux() async throws {
            // GIVEN a base URL on a port that refuses connections: any I/O would fail with cannotConnect
            let port = try #require(RefusingPort())
            let configuration = APIConfiguration(baseURL: URL(string: "http://127.0.0.1:\(port.number)"))
                .with { $0.executor = URLSessionExecutor.shared }

            // WHEN a socket opens
            let error = await #expect(throws: APIError.self) {
                try await Chat.$lobby.connect(using: configuration)
            }

            // THEN it fails before any I/O, naming the executor to use instead
            #expect(error?.reason == .transport(.unsupportedByExecutor))
            let limitation = try #require(error?.underlyingError as? ExecutorLimitation)
            #expect(limitation.missing == .webSockets)
            #expect(limitation.description.contains("AsyncHTTPClientExecutor"))
            #expect(!URLSessionExecutor.shared.supportedTransfers.contains(.webSockets))
        }
    #endif

    @Test("StubExecutor declares WebSockets")
    func stubDeclaresWebSockets() {
        #expect(StubExecutor().supportedTransfers.contains(.webSockets))
    }

    // MARK: - Secrets

    @Test("No secret of a socket call (a bearer token, a token in the query) is printed: errors, timeline, logs")
    func secretsStayMasked() async throws {
        // GIVEN a socket call with a bearer token and a token in its query, logged verbosely and observed, to a
        // server that closes with a policy violation
        let lines = LockedBox<[String]>([])
        let observer = CallTimelineTests.Recorder()
        let logging = LoggingPlugin.logging(
            .init(includeBodies: true, includeHeaders: true, includeCURL: true)
        ) { line in lines.withLock { $0.append(line) } }
        let server = StubWebSocket([.send(.text("one")), .close(code: 1008, reason: "policy")])
        let stub = await StubExecutor()
            .stub(Chat.$feed, with: .webSocket(server))
            .stub(.get, "/lobby", with: .json(#"{"error":"unauthorized"}"#, status: 401))
        let configuration = socketConfiguration(
            stub, observers: [observer], plugins: [AuthPlugin.bearer("b3arer-s3cret"), logging])

        // WHEN the socket opens and fails, and a refused handshake fails
        let socket = try await Chat.$feed.connect(with: "qu3ry-s3cret", using: configuration)
        let (_, closeError) = await readAll(socket)
        let refusal = await #expect(throws: APIError.self) {
            try await Chat.$lobby.connect(using: configuration)
        }

        // THEN the secrets went to the server, and appear nowhere printed
        #expect(stub.requests.first?.headers[.authorization] == "Bearer b3arer-s3cret")
        #expect(stub.requests.first?.url.query?.contains("qu3ry-s3cret") == true)
        let errors = try [#require(closeError), #require(refusal)]
        var printed = errors.flatMap { ["\($0)", String(reflecting: $0), $0.debugDetails()] }
        printed += observer.seen.value.map { "\($0.1)" }
        printed += lines.value
        printed.append("\(socket.request)")
        printed.append(String(reflecting: socket.request))
        printed.append("\(socket)")
        printed.append(String(reflecting: socket))
        var dumped = ""
        dump(socket, to: &dumped)
        printed.append(dumped)
        #expect(!lines.value.isEmpty)
        for text in printed {
            #expect(!text.contains("b3arer-s3cret"), "\(text)")
            #expect(!text.contains("qu3ry-s3cret"), "\(text)")
        }
    }
}
