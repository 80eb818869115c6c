@_spi(CourierInternals) import Courier
import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

/// WebSockets on `AsyncHTTPClientExecutor` against the fault server's `/ws/...` routes: fragments, the size limit,
/// the peer's close codes, drops, pings, backpressure, cancellation, the handshake through the plugins (a refreshing
/// bearer token on a `401`, secrets masked), and reconnection.
@Suite("AsyncHTTPClientExecutor: WebSockets against the fault server", .servers)
struct WebSocketFaultTests {
    struct Hits: Decodable {
        let hits: Int
    }

    static func configuration(
        plugins: [any APIPlugin] = [], observers: [any CallObserver] = []
    ) throws -> APIConfiguration {
        APIConfiguration(
            baseURL: try Servers.required().faultServer, executor: AsyncHTTPClientExecutor(), plugins: plugins,
            observers: observers)
    }

    static func hits(_ key: String) async throws -> Int {
        let stats = GET<String>("/count-stats") { ["key": $0] }
        let result: Hits = try await stats.request(with: key, using: configuration())
        return result.hits
    }

    /// Whether `error` is an `APIError` with the transport problem `problem`.
    static func isProblem(_ problem: APIError.TransportProblem) -> @Sendable (any Error) -> Bool {
        { ($0 as? APIError)?.reason.transportProblem == problem }
    }

    @Test("An echo sent back in frames of 3 bytes arrives as one message, text and binary alike")
    func fragmented() async throws {
        let echo = WebSocket<Void>("/ws/echo?fragment=3")
        let socket = try await echo.connect(using: Self.configuration())
        let text = String(repeating: "fragments joined ", count: 20)
        let bytes = Data((0..<1000).map { UInt8($0 % 256) })
        try await socket.send(.text(text))
        try await socket.send(.binary(bytes))
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text(text))
        #expect(try await iterator.next() == .binary(bytes))
        await socket.close()
    }

    @Test("A 16 MiB message within a 32 MiB limit arrives whole, in one frame or in fragments")
    func bigWithinTheLimit() async throws {
        let expected = WebSocketEchoTests.pattern(16 << 20)
        for query in ["", "&fragment=65536"] {
            let big = WebSocket<Void>("/ws/big?bytes=\(16 << 20)\(query)", maxResponseBytes: 32 << 20)
            let socket = try await big.connect(using: Self.configuration())
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .binary(expected))
            await socket.close()
        }
    }

    @Test("A 16 MiB message over an 8 MiB limit fails with responseTooLarge, in one frame or in fragments")
    func bigOverTheLimit() async throws {
        for query in ["", "&fragment=65536"] {
            let big = WebSocket<Void>("/ws/big?bytes=\(16 << 20)\(query)", maxResponseBytes: 8 << 20)
            let socket = try await big.connect(using: Self.configuration())
            do {
                for try await _ in socket {}
                Issue.record("the loop ended without an error")
            } catch {
                #expect(error.reason.transportProblem == .responseTooLarge, "\(query): \(error)")
            }
            #expect(!socket.isOpen)
        }
    }

    @Test("The peer's close 1000 ends the loop, and its close is readable")
    func normalClose() async throws {
        let close = WebSocket<Void>("/ws/close?code=1000&reason=done&after=1")
        let socket = try await close.connect(using: Self.configuration())
        try await socket.send(.text("one"))
        var received: [WebSocketMessage] = []
        for try await message in socket { received.append(message) }
        #expect(received == [.text("one")])
        #expect(socket.receivedClose == WebSocketClose(code: 1000, reason: "done"))
    }

    @Test("The peer's close 1008 or 1011 fails the loop with closedByPeer, its code and reason readable")
    func closedByPeer() async throws {
        for (code, reason) in [(1008, "policy"), (1011, "crashed")] {
            let close = WebSocket<Void>("/ws/close?code=\(code)&reason=\(reason)&after=0")
            let socket = try await close.connect(using: Self.configuration())
            let error = await #expect(throws: APIError.self) {
                for try await _ in socket {}
            }
            #expect(error?.reason.transportProblem == .closedByPeer)
            #expect(error?.underlyingError as? WebSocketClose == WebSocketClose(code: code, reason: reason))
            #expect(socket.receivedClose == WebSocketClose(code: code, reason: reason))
        }
    }

    @Test("A connection dropped without a close frame fails with connectionLost")
    func dropped() async throws {
        let drop = WebSocket<Void>("/ws/drop?after=1")
        let socket = try await drop.connect(using: Self.configuration())
        try await socket.send(.text("one"))
        await #expect(throws: APIError.self) {
            for try await _ in socket {}
        }
        let again = try await drop.connect(using: Self.configuration())
        try await again.send(.text("one"))
        do {
            for try await _ in again {}
            Issue.record("the loop ended without an error")
        } catch {
            #expect(error.reason.transportProblem == .connectionLost)
        }
    }

    @Test("A server that never answers pings: timedOut within twice the ping interval", .timeLimit(.minutes(1)))
    func silent() async throws {
        let silent = WebSocket<Void>("/ws/silent")
        let socket = try await silent.connect(pingInterval: .seconds(1), using: Self.configuration())
        let start = ContinuousClock.now
        do {
            for try await _ in socket {}
            Issue.record("the loop ended without an error")
        } catch {
            #expect(error.reason.transportProblem == .timedOut)
        }
        // Twice the interval, and the second of waiting for the close: a generous hard limit.
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    // Against the fault server (a thread per connection), not the PyPI websockets server: that one's single event
    // loop answers pings late while it unmasks another test's 16 MiB message.
    @Test("Pongs come back while the app reads nothing, behind echoes the backpressure holds: the socket stays open")
    func pongsWithoutReading() async throws {
        let echo = WebSocket<Void>("/ws/echo")
        // Pings every 4 s (a pong may take up to 4 s: full parallel runs on two cores busy with other builds delayed
        // one past 2 s, beside the 16 MiB and flood tests on the same server).
        let socket = try await echo.connect(pingInterval: .seconds(4), using: Self.configuration())
        // Eight echoes of 64 KiB wait unread (two in the client, the rest in the kernel) while pings go and come back:
        // a pong behind them is read past the backpressure (without that, this fails with timedOut).
        let bytes = Data(repeating: 7, count: 64 << 10)
        for _ in 0..<8 { try await socket.send(.binary(bytes)) }
        try await Task.sleep(for: .seconds(9))
        #expect(socket.isOpen)
        var count = 0
        for try await message in socket {
            #expect(message == .binary(bytes))
            count += 1
            if count == 8 { break }
        }
        #expect(count == 8)
    }

    @Test("A slow reader holds the server back: after one message and 2 s, far fewer than all were sent")
    func slowReader() async throws {
        let key = UUID().uuidString
        let count = 2000
        let flood = WebSocket<Void>("/ws/flood?count=\(count)&size=65536&key=\(key)")
        let socket = try await flood.connect(using: Self.configuration())
        var iterator = socket.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.data.count == 65536)
        try await Task.sleep(for: .seconds(2))
        let sent = try await Self.hits("ws-flood:\(key)")
        // 2000 × 64 KiB = 125 MiB; the kernel's buffers and the client's hold a few MiB.
        #expect(sent < count / 4)
        await socket.close()
    }

    @Test("Cancelling the reading task fails it with cancelled and closes the socket")
    func cancellation() async throws {
        let socket = try await WebSocket<Void>("/ws/echo").connect(using: Self.configuration())
        let reader = Task { () -> APIError.TransportProblem? in
            do {
                for try await _ in socket {}
                return nil
            } catch {
                return (error as? APIError)?.reason.transportProblem
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        reader.cancel()
        let problem = await reader.value
        #expect(problem == .cancelled)
        try await Self.waitUntilClosed(socket)
        await #expect(throws: APIError.self) { try await socket.send(.text("late")) }
    }

    @Test("Leaving the loop early closes the socket")
    func leavingTheLoop() async throws {
        let socket = try await WebSocket<Void>("/ws/echo").connect(using: Self.configuration())
        try await socket.send(.text("one"))
        try await socket.send(.text("two"))
        for try await message in socket {
            #expect(message == .text("one"))
            break
        }
        try await Self.waitUntilClosed(socket)
    }

    static func waitUntilClosed(_ socket: WebSocketConnection) async throws {
        for _ in 0..<100 where socket.isOpen { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!socket.isOpen)
    }

    @Test("A handshake answered with 403 fails with its status and body")
    func rejected() async throws {
        let reject = WebSocket<Void>("/ws/reject?status=403")
        let error = await #expect(throws: APIError.self) {
            _ = try await reject.connect(using: Self.configuration())
        }
        #expect(error?.response?.statusCode == 403)
        #expect(error?.response?.data.isEmpty == false)
    }

    @Test("A handshake whose head never comes fails with timedOut within the request's timeout")
    func handshakeTimeout() async throws {
        let slow = WebSocket<Void>("/slow-headers?delay=10", timeout: .seconds(1))
        let start = ContinuousClock.now
        let error = await #expect(throws: APIError.self) {
            _ = try await slow.connect(using: Self.configuration())
        }
        #expect(error?.reason.transportProblem == .timedOut)
        #expect(ContinuousClock.now - start < .seconds(8))
    }

    @Test("Cancelling a handshake that waits for its head fails it with cancelled, at once")
    func handshakeCancelled() async throws {
        let slow = WebSocket<Void>("/slow-headers?delay=10")
        let configuration = try Self.configuration()
        let start = ContinuousClock.now
        let opening = Task { () -> APIError.TransportProblem? in
            do {
                _ = try await slow.connect(using: configuration)
                return nil
            } catch {
                return (error as? APIError)?.reason.transportProblem
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        opening.cancel()
        let problem = await opening.value
        #expect(problem == .cancelled)
        #expect(ContinuousClock.now - start < .seconds(8))
    }

    @Test("A 401 handshake refreshes the bearer token and opens with the fresh one: two handshakes")
    func refreshOnUnauthorized() async throws {
        let token = NIOLockedValueBox("stale-token")
        let auth = RefreshingAuthPlugin<String>(
            credential: { token.withLockedValue { $0 } },
            refresh: { _ in
                token.withLockedValue { $0 = "fresh-token" }
                return "fresh-token"
            },
            apply: { credential, request in request.headers[.authorization] = "Bearer \(credential)" })
        let before = try await Self.hits("ws-auth")
        let socket = try await WebSocket<Void>("/ws/auth").connect(using: Self.configuration(plugins: [auth]))
        try await socket.send(.text("hello"))
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text("hello"))
        await socket.close()
        #expect(try await Self.hits("ws-auth") - before == 2)
    }

    @Test("No secret in the swift-log lines, the logging plugin's lines, the timeline or the HAR")
    func secretsStayMasked() async throws {
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "ws") { _ in CollectingLogHandler(lines: lines) }
        let har = HARRecorder()
        let configuration = try Self.configuration(
            plugins: [
                .swiftLog(logger), .logging(sink: { line in lines.withLockedValue { $0.append(line) } }),
                .bearer { "b3arer-SECRET" },
            ],
            observers: [har])
        let echo = WebSocket<String>(
            "/ws/echo", parameters: { ["token": $0, "room": "lobby"] },
            headerBuilder: { _ in ["X-Api-Key": "h3ader-SECRET", "Cookie": "session=c00kie-SECRET"] })
        let socket = try await echo.connect(with: "qu3ry-SECRET", using: configuration)
        try await socket.send(.text("hi"))
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text("hi"))
        await socket.close()
        let harText = String(decoding: try har.har(), as: UTF8.self)
        let timelines = har.timelines.map { "\($0)" + $0.events.compactMap(\.detail).joined(separator: "\n") }
        let surfaces = lines.withLockedValue { $0 } + timelines + [harText, "\(socket)", String(reflecting: socket)]
        #expect(!lines.withLockedValue { $0 }.isEmpty)
        #expect(!har.timelines.isEmpty)
        for surface in surfaces {
            #expect(!surface.contains("SECRET"), "a secret in: \(surface)")
        }
    }

    @Test("/ws/headers shows the path value, the query items and the headers filled from the parameter")
    func headersFromTheParameter() async throws {
        struct Seen: Decodable {
            let headers: [String: String]
            let path: String
            let query: String
        }
        // The route's name is the path value: `/ws/{route}` with "headers".
        let headers = WebSocket<(route: String, page: Int, tag: String, trace: String)>(
            "/ws/{route}", parameters: { ["route": $0.route, "page": $0.page, "tag": $0.tag] },
            headerBuilder: { ["X-Trace": $0.trace] })
        let socket = try await headers.connect(with: ("headers", 2, "a b&c", "t-1"), using: Self.configuration())
        var iterator = socket.messages(as: Seen.self).makeAsyncIterator()
        let seen = try #require(try await iterator.next())
        #expect(seen.path == "/ws/headers")
        #expect(seen.query == "page=2&tag=a+b%26c")
        let names = Dictionary(seen.headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        #expect(names["x-trace"] == "t-1")
        #expect(names["upgrade"]?.lowercased() == "websocket")
        await socket.close()
    }

    @Test("The first offered subprotocol is chosen")
    func subprotocol() async throws {
        let echo = WebSocket<Void>("/ws/echo", headers: ["Sec-WebSocket-Protocol": "v2.chat, v1.chat"])
        let socket = try await echo.connect(using: Self.configuration())
        #expect(socket.subprotocol == "v2.chat")
        await socket.close()
    }

    @Test(
        "A flaky socket reconnects up to 3 times: the messages go on after the drops, retryScheduled recorded",
        .timeLimit(.minutes(1)))
    func reconnects() async throws {
        let har = HARRecorder()
        let key = UUID().uuidString
        let flaky = WebSocket<Void>("/ws/flaky?key=\(key)&fail=2")
        let socket = try await flaky.connect(
            reconnect: .upTo(3, delay: .milliseconds(100)), using: Self.configuration(observers: [har]))
        // Each connection first sends "connection <n>"; the first two then drop. A connection dropped before its
        // handshake completed on our side (a loaded machine) is a failed attempt: its message is lost, the next
        // attempt goes on, so the messages are "connection 1…3" in order, some possibly missing, then the echo.
        var received: [String] = []
        for try await message in socket {
            received.append(message.text ?? "")
            if message.text == "connection 3" { try await socket.send(.text("after the drops")) }
            if message.text == "after the drops" { break }
        }
        #expect(received.last == "after the drops")
        let connections = Array(received.dropLast())
        #expect(connections.last == "connection 3")
        #expect(connections == connections.sorted() && Set(connections).count == connections.count)
        #expect(connections.allSatisfy { ["connection 1", "connection 2", "connection 3"].contains($0) })
        let kinds = try #require(socket.request.timeline).events.map(\.kind)
        #expect(kinds.filter { $0 == .retryScheduled }.count >= 2)
    }
}

/// A swift-log handler that keeps each line with its metadata.
struct CollectingLogHandler: LogHandler {
    let lines: NIOLockedValueBox<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.withLockedValue { $0.append("\(event.level) \(event.message) \(all)") }
    }
}
