import Courier
import CourierObservability
import CourierTesting
import Foundation
import MetricsTestKit
import Testing

/// A WebSocket is one call to the observers: its call ends when the socket opens (`101`), and its close is one more
/// timeline event after that end, which neither the metrics nor the trace count again.
@Suite("WebSocket observability")
struct WebSocketObservabilityTests {
    static let room = WebSocket<String>("/rooms/{room}") { ["room": $0] }

    @Test("A socket that exchanges three messages records one duration (status 101) and one client span")
    func oneOperation() async throws {
        // GIVEN a scripted server that sends two messages, waits for one, and closes; metrics and tracing on
        let metrics = TestMetrics()
        let tracer = W3CTestTracer()
        let server = StubWebSocket([.send(.text("a")), .send(.text("b")), .waitForMessage, .close(code: 1000)])
        let stub = StubExecutor().stub(Self.room, with: .webSocket(server))
        let configuration = APIConfiguration(
            baseURL: URL(string: "https://chat.example.com"), executor: stub, plugins: [.tracing(tracer)],
            observers: [.metrics(factory: metrics)])

        // WHEN the app opens the socket, reads both messages, answers, and reads to the end
        let socket = try await Self.room.connect(with: "lobby", pingInterval: nil, using: configuration)
        var received: [WebSocketMessage] = []
        for try await message in socket {
            received.append(message)
            if received.count == 2 { try await socket.send("c") }
        }

        // THEN the socket is one operation in each: one duration with status 101, one finished span
        #expect(received == [.text("a"), .text("b")])
        let timers = metrics.timers(label: MetricsObserverTests.duration)
        #expect(timers.count == 1)
        #expect(timers.first?.values.count == 1)
        let dimensions = MetricsObserverTests.dimensions(timers.first?.dimensions ?? [])
        #expect(dimensions["http.response.status_code"] == "101")
        #expect(dimensions["url.template"] == "/rooms/{room}")
        #expect(dimensions["error.type"] == nil)
        #expect(metrics.meters(label: "http.client.active_requests").allSatisfy { $0.lastValue == 0 })
        let span = try #require(tracer.spans.finishedSpans.only)
        #expect(span.operationName == "GET /rooms/{room}")
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 101)
        #expect(server.received == [.text("c")])
    }
}
