import Courier
import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import Testing

/// The wire rules of RFC 6455 that Courier promises, seen by two independent servers: PyPI `websockets`
/// (scripts/servers/wsechoserver.py) and the fault server. The server's close is answered with a close frame, a
/// message that arrived before a drop is read before the drop's error however late the reader comes, and a peer
/// that stops answering fails the socket without Courier waiting on it.
@Suite(
    "AsyncHTTPClientExecutor: the WebSocket close handshake and the end of a socket",
    .testEnvironment("COURIER_WS_ECHO_URL", setBy: "scripts/test-ahc"))
struct WebSocketCloseHandshakeTests {
    struct Closes: Decodable {
        var closes: [Int]?
    }

    static func echoServer() throws -> APIConfiguration {
        try WebSocketEchoTests.configuration()
    }

    static func faultServer() throws -> APIConfiguration {
        try WebSocketFaultTests.configuration()
    }

    /// Reads `socket` to its end: the texts, and the error that ended it.
    static func readAll(_ socket: WebSocketConnection) async -> (texts: [String], error: APIError?) {
        var texts: [String] = []
        do {
            for try await message in socket { texts.append(message.text ?? "") }
            return (texts, nil)
        } catch {
            return (texts, error)
        }
    }

    /// The close codes a server recorded from the client (`GET path?key=…`), once it recorded one (bounded wait).
    static func recordedCloses(_ path: String, key: String, using configuration: APIConfiguration) async throws -> [Int]
    {
        let closes = GET<String>(path) { ["key": $0] }
        for _ in 0..<200 {
            let recorded: Closes = try await closes.request(with: key, using: configuration)
            if let codes = recorded.closes, !codes.isEmpty { return codes }
            try await Task.sleep(for: .milliseconds(25))
        }
        return []
    }

    @Test(
        "PyPI websockets: the server's close is answered with its code; the loop ends or fails per the code table",
        arguments: [1000, 1001, 1008, 1011, 4000])
    func closeAnsweredEchoServer(code: Int) async throws {
        let key = UUID().uuidString
        let close = WebSocket<(code: Int, key: String)>("/server-close") { ["code": $0.code, "key": $0.key] }
        let socket = try await close.connect(with: (code, key), pingInterval: nil, using: Self.echoServer())

        let (texts, error) = await Self.readAll(socket)

        #expect(texts == ["closing"])
        #expect(error?.reason.transportProblem == (code == 1000 || code == 1001 ? nil : .closedByPeer))
        #expect(socket.receivedClose?.code == code)
        let recorded = try await Self.recordedCloses("/close-codes", key: key, using: Self.echoServer())
        #expect(recorded == [code])
    }

    @Test(
        "Fault server: the server's close is answered once, with its code", arguments: [1000, 1001, 1008, 1011, 4000])
    func closeAnsweredFaultServer(code: Int) async throws {
        let close = WebSocket<(code: Int, key: String)>("/ws/close") { ["code": $0.code, "key": $0.key, "after": 1] }
        // A second socket when the first one's answer went missing: the close is read when the reader asks for the
        // next message, a reader may wait its turn on a loaded machine, and the server waits 10 s for the answer.
        // A client that never answers fails both.
        var recorded: [Int] = []
        for _ in 1...2 where recorded != [code] {
            let key = UUID().uuidString
            let socket = try await close.connect(with: (code, key), pingInterval: nil, using: Self.faultServer())
            try await socket.send("one")

            let (texts, _) = await Self.readAll(socket)

            #expect(texts == ["one"])
            recorded = try await Self.recordedCloses("/count-stats", key: "ws-close:" + key, using: Self.faultServer())
        }
        #expect(recorded == [code])
    }

    @Test(
        "A message that arrived before the peer dropped the connection is read first, however late the reader comes",
        arguments: ["/server-drop", "/server-drop?abort=1"])
    func messageBeforeDropEchoServer(path: String) async throws {
        let drop = WebSocket<Void>(path)
        let socket = try await drop.connect(pingInterval: nil, using: Self.echoServer())
        // The message and the drop arrive while nobody reads.
        try await Task.sleep(for: .milliseconds(500))

        let (texts, error) = await Self.readAll(socket)

        #expect(texts == ["last"])
        #expect(error?.reason.transportProblem == .connectionLost)
    }

    @Test("Fault server: a message sent just before a drop is read first, however late the reader comes")
    func messageBeforeDropFaultServer() async throws {
        let flaky = WebSocket<String>("/ws/flaky") { ["key": $0, "fail": 1] }
        let socket = try await flaky.connect(with: UUID().uuidString, pingInterval: nil, using: Self.faultServer())
        try await Task.sleep(for: .milliseconds(500))

        let (texts, error) = await Self.readAll(socket)

        #expect(texts == ["connection 1"])
        #expect(error?.reason.transportProblem == .connectionLost)
    }

    @Test("A peer that answers nothing fails the loop with timedOut; the 1011 close does not wait for its answer")
    func unresponsivePeer() async throws {
        struct Mute: Decodable {
            var closes: [Int]?
            var closeToEnd: Int?
        }
        let key = UUID().uuidString
        let mute = WebSocket<String>("/ws/mute") { ["seconds": 20, "key": $0] }
        let socket = try await mute.connect(with: key, pingInterval: .seconds(1), using: Self.faultServer())

        let (texts, error) = await Self.readAll(socket)

        #expect(texts.isEmpty)
        #expect(error?.reason.transportProblem == .timedOut)
        #expect(!socket.isOpen)
        // The server read the client's 1011 close, then the end of the connection: the client did not wait for an
        // answer from a peer known not to answer. Waiting would hold the connection for the close's one-second
        // timer, so the gap would be a second or more; a loaded machine stretches the gap without waiting, but not
        // that far.
        let stats = GET<String>("/count-stats") { ["key": "ws-mute:" + $0] }
        var recorded = Mute()
        for _ in 0..<200 where recorded.closes == nil {
            recorded = try await stats.request(with: key, using: Self.faultServer())
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(recorded.closes == [1011])
        #expect((recorded.closeToEnd ?? .max) < 1000)
    }
}
