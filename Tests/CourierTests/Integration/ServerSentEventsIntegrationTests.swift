import Courier
import Foundation
import Testing

@MainActor
enum EventsAPI {
    @GET("/events")
    static var events: APIParameterBuilder<Void>? = nil

    @GET("/count")
    static var count: APIParameterBuilder<(n: Int, intervalMilliseconds: Int)>? = .init {
        ["n": $0.n, "interval_ms": $0.intervalMilliseconds]
    }

    @GET("/idle")
    static var idle: APIParameterBuilder<Int>? = .init { ["after": 1, "sleep": $0] }

    @GET("/status/{code}")
    static var status: APIParameterBuilder<Int>? = .init { ["code": $0] }
}

/// Server-Sent Events from a real server (`scripts/servers/sseserver.py`), bytes split across chunks as they come.
@Suite("Integration: Server-Sent Events", .sseServer, .timeLimit(.minutes(1)))
struct ServerSentEventsIntegrationTests {
    @Test("Every field of the standard, split across chunks: event, multi-line data, id, retry, comments")
    func fields() async throws {
        let configuration = try TransferServers.configuration(TransferServers.sse)

        var events: [ServerSentEvent] = []
        for try await event in try await EventsAPI.$events.stream(using: configuration).events {
            events.append(event)
        }

        let retry = Duration.milliseconds(2500)
        #expect(
            events == [
                ServerSentEvent(event: "greeting", data: "hello\nworld", id: "1", retry: retry),
                ServerSentEvent(data: "second", id: "1", retry: retry),
                ServerSentEvent(event: "update", data: "{\"a\":1}\n{\"b\":2}", id: "3", retry: retry),
                ServerSentEvent(data: "", id: "4", retry: retry),
                ServerSentEvent(data: "last", id: "", retry: retry),
            ])
    }

    @Test("Events arrive one by one while the stream runs")
    func arriveAsSent() async throws {
        let configuration = try TransferServers.configuration(TransferServers.sse)

        var iterator = try await EventsAPI.$count.stream(with: (n: 5, intervalMilliseconds: 500), using: configuration)
            .events.makeAsyncIterator()
        let first = try await iterator.next()
        let firstAt = ContinuousClock.now
        var ids = [first?.id]
        while let event = try await iterator.next() { ids.append(event.id) }
        let rest = ContinuousClock.now - firstAt

        // The server sends the last four events over 2 s after the first: they were not buffered.
        #expect(first?.data == "0")
        #expect(rest > .milliseconds(1000), "the rest came \(rest) after the first event")
        #expect(ids == ["0", "1", "2", "3", "4"])
    }

    @Test("An idle stream fails with .timedOut after the idle timeout, long before the server ends it")
    func idle() async throws {
        let configuration = try TransferServers.configuration(TransferServers.sse)
        let start = ContinuousClock.now

        let events = try await EventsAPI.$idle.stream(with: 30, idleTimeout: .seconds(1), using: configuration).events
        var received: [String] = []
        let error = await #expect(throws: APIError.self) {
            for try await event in events { received.append(event.data) }
        }

        #expect(received == ["0"])
        #expect(error?.reason == .transport(.timedOut))
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test("A stream lasts longer than the call's timeout: the timeout bounds the head, the idle timeout each wait")
    func outlivesTheTimeout() async throws {
        let configuration = try TransferServers.configuration(TransferServers.sse, timeout: .seconds(1))

        var count = 0
        for try await _ in try await EventsAPI.$count.stream(
            with: (n: 6, intervalMilliseconds: 400), idleTimeout: .seconds(3), using: configuration
        ).events {
            count += 1
        }

        #expect(count == 6)
    }

    @Test("An unacceptable status fails as every call does, with its body")
    func status() async throws {
        let configuration = try TransferServers.configuration(TransferServers.sse)

        let error = await #expect(throws: APIError.self) {
            _ = try await EventsAPI.$status.stream(with: 502, using: configuration)
        }

        #expect(error?.reason == .unacceptableStatus(.serverError))
        #expect(error?.response?.body.data == Data("status 502\n".utf8))
    }
}
