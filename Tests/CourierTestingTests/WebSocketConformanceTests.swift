import Courier
import CourierTesting
import Foundation
import Testing

/// The conformance suite's WebSocket checks (part of the `streamedResponse` check) on executors without a network: one that emulates the fault server's
/// `/ws/` routes in memory passes it, one that breaks the contract fails it, and one that does not declare
/// WebSockets passes by failing `connect` before any I/O. (Real executors run it against the real fault server:
/// the integration tests and scripts/test-ahc.)
@Suite("ExecutorConformance: the WebSocket part of the streamedResponse check")
struct WebSocketConformanceTests {
    @Test("An executor that emulates the fault server's WebSocket routes passes")
    func emulatorPasses() async throws {
        let suite = ExecutorConformance(
            executor: RouteEmulator(), servers: try ExecutorConformanceTests.stubServers(), timeLimit: .seconds(20))

        let failures = await suite.run(.streamedResponse)

        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
    }

    @Test("An executor that does not declare WebSockets passes: connect fails before any I/O")
    func undeclared() async throws {
        let emulator = RouteEmulator()
        let suite = ExecutorConformance(
            executor: InMemoryOnly(base: emulator), servers: try ExecutorConformanceTests.stubServers(),
            timeLimit: .seconds(10))

        let failures = await suite.run(.streamedResponse)

        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
        #expect(emulator.handshakes.value == 0)
    }

    /// A way to break the contract, and the start of the failure message that names the route it breaks.
    enum Fault: String, CaseIterable, Sendable {
        /// Throws on a `401` handshake instead of returning the response.
        case throwsOnRefusal = "/ws/auth"
        /// Loses the last byte of every binary message.
        case truncatesBinary = "/ws/echo:"
        /// Reports a close from the server as a lost connection.
        case hidesCloses = "/ws/close?"
        /// Never answers a close from the server with a close frame of its own.
        case leavesClosesUnanswered = "/ws/close?code"
        /// Leaves the query out of the handshake.
        case dropsTheQuery = "/ws/headers:"
        /// Answers with the first frame of a fragmented message only.
        case firstFragmentOnly = "/ws/echo?fragment=7:"
    }

    @Test("An executor that breaks the contract fails the check, naming the route", arguments: Fault.allCases)
    func brokenEmulatorFails(_ fault: Fault) async throws {
        let suite = ExecutorConformance(
            executor: RouteEmulator(fault: fault), servers: try ExecutorConformanceTests.stubServers(),
            timeLimit: .seconds(20))

        let failures = await suite.run(.streamedResponse)

        #expect(!failures.isEmpty)
        #expect(failures.allSatisfy { $0.check == .streamedResponse })
        #expect(
            failures.contains { $0.message.hasPrefix(fault.rawValue) },
            "\(failures.map(\.description).joined(separator: "\n"))")
    }

    /// An executor that answers only in-memory calls, over `base`.
    struct InMemoryOnly: APIExecutor {
        let base: RouteEmulator

        func execute(_ request: APIRequest) async throws -> APIResponse {
            try await base.execute(request)
        }
    }
}

/// The fault server's `/ws/` routes, in memory: what the `webSockets` check expects of a real server, optionally
/// broken in one way.
struct RouteEmulator: APIExecutor {
    var fault: WebSocketConformanceTests.Fault?
    let handshakes = LockedBox(0)
    /// The codes of the client's answers to `/ws/close`, by the route's key, as `/count-stats` reports them.
    let closes = LockedBox<[String: [Int]]>([:])

    var supportedTransfers: TransferFeatures { .webSockets }

    func execute(_ request: APIRequest) async throws -> APIResponse {
        handshakes.withLock { $0 += 1 }
        let path = request.url.path
        var query: [String: String] = [:]
        for item in URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            query[item.name] = item.value ?? ""
        }
        if path == "/count-stats", let key = query["key"], key.hasPrefix("ws-close:") {
            let codes = closes.value[String(key.dropFirst("ws-close:".count))] ?? []
            let report = try JSONSerialization.data(withJSONObject: ["key": key, "hits": 0, "closes": codes])
            return APIResponse(statusCode: 200, body: .data(report), request: request)
        }
        guard request.responseDelivery.isWebSocket else { return APIResponse(statusCode: 426, request: request) }
        if path == "/ws/auth", request.headers[.authorization] != "Bearer fresh-token" {
            if fault == .throwsOnRefusal { throw URLError(.userAuthenticationRequired) }
            return APIResponse(
                statusCode: 401, headers: ["WWW-Authenticate": "Bearer"],
                body: .data(Data(#"{"error":"unauthorized"}"#.utf8)),
                request: request)
        }
        let socket = EchoSocket(fault: fault)
        switch path {
        case "/ws/echo":
            if query["fragment"] != nil, fault == .firstFragmentOnly { socket.firstSeven = true }
        case "/ws/headers":
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.rawValue] = field.value }
            let rawQuery = fault == .dropsTheQuery ? "" : request.url.query ?? ""
            let report: [String: Any] = ["headers": headers, "path": path, "query": rawQuery]
            let data = try JSONSerialization.data(withJSONObject: report)
            socket.push(.message(.text(String(decoding: data, as: UTF8.self))))
        case "/ws/close":
            let close = WebSocketClose(code: Int(query["code"] ?? "") ?? 1000, reason: query["reason"] ?? "")
            socket.after(Int(query["after"] ?? "") ?? 0, fault == .hidesCloses ? .drop : .event(.close(close)))
            if let key = query["key"] {
                let closes = self.closes
                let answers = fault != .leavesClosesUnanswered
                // A transport answers the server's close with the close it is asked to send (1006: none).
                socket.onClose = { code in
                    closes.withLock { $0[key, default: []].append(answers && code != 1006 ? code : 1006) }
                }
            }
        case "/ws/drop":
            socket.after(Int(query["after"] ?? "") ?? 0, .drop)
        case "/ws/big":
            let size = Int(query["bytes"] ?? "") ?? 0
            let block = Data((0..<251).map { UInt8($0) })
            var bytes = Data(capacity: size + block.count)
            while bytes.count < size { bytes.append(block) }
            socket.push(.message(.binary(bytes.prefix(size))))
        case "/ws/auth":
            break
        default:
            return APIResponse(statusCode: 404, request: request)
        }
        let offered = request.headers["Sec-WebSocket-Protocol"]?.split(separator: ",").first
        let chosen = offered.map { $0.trimmingCharacters(in: .whitespaces) }
        var headers: HTTPHeaders = ["Upgrade": "websocket"]
        if let chosen { headers["Sec-WebSocket-Protocol"] = chosen }
        return APIResponse(
            statusCode: 101, headers: headers,
            body: .webSocket(WebSocketConnection(request: request, transport: socket, subprotocol: chosen)),
            request: request)
    }
}

/// One emulated socket: echoes what the client sends, after what the route sends first.
final class EchoSocket: WebSocketTransport {
    enum Outgoing: Sendable {
        case event(WebSocketEvent)
        case drop
    }

    private struct State {
        var queue: [Outgoing] = []
        var waiter: CheckedContinuation<Void, Never>?
        var closed = false
        var echoed = 0
        var after: (count: Int, then: Outgoing)?
        var firstSeven = false
        var onClose: (@Sendable (Int) -> Void)?
    }

    private let fault: WebSocketConformanceTests.Fault?
    private let state = LockedBox(State())

    init(fault: WebSocketConformanceTests.Fault?) {
        self.fault = fault
    }

    /// Echoes only the first 7 bytes of each message, as a client that read one fragment would.
    var firstSeven: Bool {
        get { state.value.firstSeven }
        set { state.withLock { $0.firstSeven = newValue } }
    }

    /// Called with the code of the close the client asked for (the server's record of its answer).
    var onClose: (@Sendable (Int) -> Void)? {
        get { state.value.onClose }
        set { state.withLock { $0.onClose = newValue } }
    }

    func push(_ event: WebSocketEvent) {
        enqueue(.event(event))
    }

    /// After `count` echoed messages (at once for 0), sends `then`.
    func after(_ count: Int, _ then: Outgoing) {
        if count == 0 { return enqueue(then) }
        state.withLock { $0.after = (count, then) }
    }

    private func enqueue(_ outgoing: Outgoing) {
        let waiter = state.withLock { state in
            state.queue.append(outgoing)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func receive() async throws -> WebSocketEvent {
        while true {
            let next = state.withLock { state -> Outgoing? in
                if state.closed { return .drop }
                if state.queue.isEmpty { return nil }
                return state.queue.removeFirst()
            }
            switch next {
            case .event(let event)?: return event
            case .drop?:
                state.withLock { $0.closed = true }
                throw URLError(.networkConnectionLost)
            case nil:
                await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { state in
                        if state.closed || !state.queue.isEmpty { return true }
                        state.waiter = waiter
                        return false
                    }
                    if ready { waiter.resume() }
                }
            }
        }
    }

    func send(_ message: WebSocketMessage) async throws {
        var echo = message
        if case .binary(let data) = message, fault == .truncatesBinary, !data.isEmpty {
            echo = .binary(data.dropLast())
        }
        if firstSeven { echo = .binary(Data(message.data.prefix(7))) }
        let then = state.withLock { state -> Outgoing? in
            state.echoed += 1
            guard let after = state.after, after.count == state.echoed else { return nil }
            return after.then
        }
        enqueue(.event(.message(echo)))
        if let then { enqueue(then) }
    }

    func ping() async throws {}

    func close(_ close: WebSocketClose) async {
        let (waiter, onClose) = state.withLock { state in
            state.closed = true
            defer { state.waiter = nil }
            return (state.waiter, state.onClose)
        }
        onClose?(close.code)
        waiter?.resume()
    }
}
