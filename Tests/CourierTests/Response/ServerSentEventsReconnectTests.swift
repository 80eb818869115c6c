import Courier
import CourierTesting
import Foundation
import Testing

@MainActor
private enum Feed {
    @GET("/feed")
    static var feed: APIParameterBuilder<Void>? = nil

    @POST("/feed")
    static var upload: APIParameterBuilder<AsyncStream<Data>>? = .init { .body(.stream($0), contentType: nil) }
}

/// The parsing rules reconnection depends on, and `events(reconnect:)` above a stub executor (the real server's
/// drops, statuses and waits are in ServerSentEventsReconnectIntegrationTests).
@Suite struct ServerSentEventsReconnectTests {
    static let eventStream: HTTPHeaders = ["Content-Type": "text/event-stream; charset=utf-8"]

    /// After `id: 1` and `retry: 100`, one field line: the id and retry of the event that follows.
    @Test(
        "id: and retry: fields",
        arguments: [
            ("retry: 2500", "1", Duration.milliseconds(2500)),
            ("retry:0", "1", .zero),
            ("retry: 15x", "1", .milliseconds(100)),  // not only digits: ignored
            ("retry: -5", "1", .milliseconds(100)),
            ("retry: 1.5", "1", .milliseconds(100)),
            ("retry: +5", "1", .milliseconds(100)),
            ("retry:  5", "1", .milliseconds(100)),  // only one space after the colon is removed
            ("retry: 5 ", "1", .milliseconds(100)),
            ("retry:", "1", .milliseconds(100)),
            ("retry: \u{0663}", "1", .milliseconds(100)),  // ARABIC-INDIC DIGIT THREE is not an ASCII digit
            ("retry: 99999999999999999999", "1", .milliseconds(100)),  // too large for 64 bits: ignored
            ("id: 2", "2", .milliseconds(100)),
            ("id: a\u{0}b", "1", .milliseconds(100)),  // NUL: ignored
            ("id: \u{0}", "1", .milliseconds(100)),
            ("id:", "", .milliseconds(100)),  // empty: resets
            ("id", "", .milliseconds(100)),
            ("id:  2", " 2", .milliseconds(100)),
        ] as [(String, String?, Duration?)])
    func fields(line: String, id: String?, retry: Duration?) async throws {
        let events = try await ServerSentEventsTests.events([
            "id: 1\nretry: 100\ndata: first\n\n", "\(line)\ndata: second\n\n",
        ])
        #expect(events.count == 2)
        #expect(events.last?.id == id)
        #expect(events.last?.retry == retry)
    }

    func configuration(_ stub: StubExecutor) -> APIConfiguration {
        var configuration = APIConfiguration(baseURL: URL(string: "https://stub.example"))
        configuration.executor = stub
        return configuration
    }

    /// A stub that answers the `n`th request to /feed (from 0) with `answers[n]`, and 204 after them.
    func stub(_ answers: [StubResponse]) -> StubExecutor {
        let count = LockedBox(0)
        return StubExecutor().stub(where: { $0.url.path == "/feed" }) { _ in
            let n = count.withLock { count in
                defer { count += 1 }
                return count
            }
            return n < answers.count ? answers[n] : StubResponse(statusCode: 204)
        }
    }

    @Test func anEmptyIDStopsSendingLastEventIDAndTheRequestsOwnHeaderIsKeptUntilAnIDArrives() async throws {
        let stub = stub([
            .chunked(["data: a\n\n"], headers: Self.eventStream),  // no id: the request's own header stays
            .chunked(["id: 7\ndata: b\n\n"], headers: Self.eventStream),
            .chunked(["id\ndata: c\n\n"], headers: Self.eventStream),  // an empty id resets it
        ])
        var configuration = configuration(stub)
        configuration.headers["Last-Event-ID"] = "3"

        var data: [String] = []
        for try await event in try await Feed.$feed.stream(using: configuration)
            .events(reconnect: .upTo(1, delay: .zero))
        {
            data.append(event.data)
        }

        #expect(data == ["a", "b", "c"])
        #expect(stub.requests.map { $0.headers["Last-Event-ID"] } == ["3", "3", "7", nil])
    }

    @Test func anIdleTimeoutReconnects() async throws {
        let stub = stub([
            .chunked(["data: a\n\n", "data: never sent\n\n"], every: .seconds(30), headers: Self.eventStream),
            .chunked(["data: b\n\n"], headers: Self.eventStream),
        ])

        var data: [String] = []
        // The idle timeout is long enough for the first chunk to arrive on a loaded machine; the second one never does.
        for try await event in try await Feed.$feed.stream(idleTimeout: .seconds(8), using: configuration(stub))
            .events(reconnect: .upTo(1, delay: .zero))
        {
            data.append(event.data)
        }

        #expect(data == ["a", "b"])
        #expect(stub.requests.count == 3)  // the third gets 204: the end
    }

    @Test func withReconnectionAFirstResponseThatIsNotAnEventStreamFails() async throws {
        let stub = stub([.chunked(["data: a\n\n"], headers: ["Content-Type": "application/json"])])

        let error = await #expect(throws: APIError.self) {
            for try await _ in try await Feed.$feed.stream(using: configuration(stub))
                .events(reconnect: .upTo(1, delay: .zero))
            {}
        }

        #expect(error?.reason == .decodingFailed)
        #expect(stub.requests.count == 1)
    }

    @Test func withoutReconnectionTheEventsEndWithTheStream() async throws {
        let stub = stub([.chunked(["data: a\n\n"], headers: Self.eventStream)])

        var data: [String] = []
        for try await event in try await Feed.$feed.stream(using: configuration(stub)).events {
            data.append(event.data)
        }

        #expect(data == ["a"])
        #expect(stub.requests.count == 1)
    }

    @Test func aRequestWithAOneShotBodyIsNotSentAgain() async throws {
        let stub = stub([.chunked(["data: a\n\n"], headers: Self.eventStream)])
        let body = AsyncStream<Data> { continuation in
            continuation.yield(Data("x".utf8))
            continuation.finish()
        }

        var data: [String] = []
        for try await event in try await Feed.$upload.stream(with: body, using: configuration(stub))
            .events(reconnect: .upTo(3, delay: .zero))
        {
            data.append(event.data)
        }

        #expect(data == ["a"])
        #expect(stub.requests.count == 1)
    }
}
