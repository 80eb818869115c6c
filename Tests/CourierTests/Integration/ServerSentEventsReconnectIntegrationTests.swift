import Courier
import Foundation
import Testing

@MainActor
enum ResumableEventsAPI {
    /// One stream of `scripts/servers/sseserver.py`'s `/resume`: events 1...n, `per` a connection, then a drop.
    struct Stream: Sendable {
        var key = UUID().uuidString
        var n = 7
        var per = 3
        var retryMilliseconds = 50
        var drop = "abrupt"
        var then = "events"
    }

    @GET("/resume")
    static var resume: APIParameterBuilder<Stream>? = .init {
        [
            "key": $0.key, "n": $0.n, "per": $0.per, "retry_ms": $0.retryMilliseconds, "drop": $0.drop,
            "then": $0.then,
        ]
    }

    /// What the server saw of one stream's connections.
    struct Connections: Decodable, Sendable {
        var count: Int
        var lastEventIDs: [String?]
        var authorizations: [String?]
    }

    @GET("/connections")
    static var connections: APIParameterBuilder<String>? = .init { ["key": $0] }
}

/// `ResponseStream.events(reconnect:)` against a real server (`scripts/servers/sseserver.py`'s `/resume`) that drops its
/// streams and resumes them after the request's `Last-Event-ID`.
@Suite("Integration: Server-Sent Events reconnect", .sseServer, .timeLimit(.minutes(2)))
struct ServerSentEventsReconnectIntegrationTests {
    static func connections(
        _ key: String, _ configuration: APIConfiguration
    ) async throws
        -> ResumableEventsAPI.Connections
    {
        try await ResumableEventsAPI.$connections.request(with: key, using: configuration)
    }

    @Test(
        "Events across drops arrive in order exactly once; each reconnection carries Last-Event-ID",
        arguments: [
            "abrupt", "clean",
        ])
    func resumesAfterTheLastEventID(drop: String) async throws {
        let configuration = try TransferServers.configuration(TransferServers.sse)
        let stream = ResumableEventsAPI.Stream(n: 7, per: 3, drop: drop)

        // GIVEN a server that sends 3 events a connection, then drops it
        // WHEN the events are read with reconnection on
        var events: [ServerSentEvent] = []
        for try await event in try await ResumableEventsAPI.$resume.stream(with: stream, using: configuration)
            .events(reconnect: .upTo(3, delay: .seconds(30)))
        {
            events.append(event)
        }

        // THEN all 7 arrive once, in order, over 3 connections, and the 4th (Last-Event-ID 7) gets 204: the end
        #expect(events.map(\.data) == ["1", "2", "3", "4", "5", "6", "7"])
        #expect(events.map(\.id) == ["1", "2", "3", "4", "5", "6", "7"])
        let seen = try await Self.connections(stream.key, configuration)
        #expect(seen.count == 4)
        #expect(seen.lastEventIDs == [nil, "3", "6", "7"])
    }

    @Test("The wait is the server's retry: (50 ms here), not the 30 s default")
    func waitsForTheServersRetry() async throws {
        let configuration = try TransferServers.configuration(TransferServers.sse)
        let stream = ResumableEventsAPI.Stream(n: 6, per: 2, retryMilliseconds: 50)
        let start = ContinuousClock.now

        var count = 0
        for try await _ in try await ResumableEventsAPI.$resume.stream(with: stream, using: configuration)
            .events(reconnect: .upTo(3, delay: .seconds(30)))
        {
            count += 1
        }

        // Three reconnections at the default would take 90 s; at the server's 50 ms, well under 30 s.
        #expect(count == 6)
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test("A hostile retry: (about 31 years) is capped by maxDelay")
    func capsTheServersRetry() async throws {
        let configuration = try TransferServers.configuration(TransferServers.sse)
        let stream = ResumableEventsAPI.Stream(n: 4, per: 2, retryMilliseconds: 1_000_000_000_000)
        let start = ContinuousClock.now

        var count = 0
        for try await event in try await ResumableEventsAPI.$resume.stream(with: stream, using: configuration)
            .events(reconnect: .upTo(2, delay: .seconds(30), maxDelay: .milliseconds(100)))
        {
            #expect(event.retry == .milliseconds(1_000_000_000_000))
            count += 1
        }

        #expect(count == 4)
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test(
        "A stream that always drops without an event fails after the allowed attempts",
        arguments: [
            "abrupt", "clean",
        ])
    func attemptsAreBounded(drop: String) async throws {
        let configuration = try TransferServers.configuration(TransferServers.sse)
        let stream = ResumableEventsAPI.Stream(per: 0, retryMilliseconds: 10, drop: drop)

        let error = await #expect(throws: APIError.self) {
            for try await _ in try await ResumableEventsAPI.$resume.stream(with: stream, using: configuration)
                .events(reconnect: .upTo(2))
            {}
        }

        // The first connection and 2 reconnections, then the last one's error: a clean end is the connection's
        // loss; a body cut short is whatever the executor reports (FoundationNetworking: URLError -1, `.other`).
        let expected: [APIError.Reason] =
            drop == "clean" ? [.transport(.connectionLost)] : [.transport(.connectionLost), .transport(.other)]
        #expect(error.map { expected.contains($0.reason) } == true, "\(String(describing: error))")
        let seen = try await Self.connections(stream.key, configuration)
        #expect(seen.count == 3)
    }

    @Test("Attempts count again after a connection that delivered an event")
    func attemptsResetAfterAnEvent() async throws {
        let configuration = try TransferServers.configuration(TransferServers.sse)
        // One event a connection: six connections, each after a drop, with one attempt allowed in a row.
        let stream = ResumableEventsAPI.Stream(n: 6, per: 1, retryMilliseconds: 10)

        var count = 0
        for try await _ in try await ResumableEventsAPI.$resume.stream(with: stream, using: configuration)
            .events(reconnect: .upTo(1))
        {
            count += 1
        }

        #expect(count == 6)
        #expect(try await Self.connections(stream.key, configuration).count == 7)
    }

    @Test("204 No Content on a reconnection ends the events without an error")
    func noContentStops() async throws {
        let configuration = try TransferServers.configuration(TransferServers.sse)
        let stream = ResumableEventsAPI.Stream(n: 10, per: 2, then: "204")

        var data: [String] = []
        for try await event in try await ResumableEventsAPI.$resume.stream(with: stream, using: configuration)
            .events(reconnect: .upTo(5))
        {
            data.append(event.data)
        }

        #expect(data == ["1", "2"])
        let seen = try await Self.connections(stream.key, configuration)
        #expect(seen.count == 2)
        #expect(seen.lastEventIDs == [nil, "2"])
    }

    /// Reads a stream whose first connection delivers events 1 and 2 and drops, and whose reconnection answers
    /// `then`: the events read, the error the events ended with, and how many connections the server saw.
    static func failingReconnection(then: String) async throws -> (data: [String], error: APIError?, connections: Int) {
        let configuration = try TransferServers.configuration(TransferServers.sse)
        let stream = ResumableEventsAPI.Stream(n: 10, per: 2, then: then)
        var data: [String] = []
        let error = await #expect(throws: APIError.self) {
            for try await event in try await ResumableEventsAPI.$resume.stream(with: stream, using: configuration)
                .events(reconnect: .upTo(5))
            {
                data.append(event.data)
            }
        }
        return (data, error, try await Self.connections(stream.key, configuration).count)
    }

    @Test("A status that is not acceptable on a reconnection fails with it, without more attempts")
    func unacceptableStatusFails() async throws {
        let (data, error, connections) = try await Self.failingReconnection(then: "503")

        #expect(data == ["1", "2"])
        #expect(error?.reason == .unacceptableStatus(.serverError))
        #expect(error?.response?.body.data == Data("status 503\n".utf8))
        #expect(connections == 2)
    }

    @Test("A reconnection answered with something else than text/event-stream fails with .decodingFailed")
    func wrongContentTypeFails() async throws {
        let (data, error, connections) = try await Self.failingReconnection(then: "text")

        #expect(data == ["1", "2"])
        #expect(error?.reason == .decodingFailed)
        #expect(error?.statusCode == 200)
        #expect(connections == 2)
    }

    @Test("Reconnections go through the configuration's plugins, as the first request does")
    func reconnectionsGoThroughPlugins() async throws {
        var configuration = try TransferServers.configuration(TransferServers.sse)
        configuration.plugins = [AuthPlugin.bearer("s3cret")]
        let stream = ResumableEventsAPI.Stream(n: 4, per: 2)

        var count = 0
        for try await _ in try await ResumableEventsAPI.$resume.stream(with: stream, using: configuration)
            .events(reconnect: .upTo(2))
        {
            count += 1
        }

        #expect(count == 4)
        let seen = try await Self.connections(stream.key, configuration)
        #expect(seen.authorizations == ["Bearer s3cret", "Bearer s3cret", "Bearer s3cret"])
    }

    @Test("Cancelling the reading task during the wait before a reconnection ends it promptly, with .cancelled")
    func cancellationDuringTheWait() async throws {
        let configuration = try TransferServers.configuration(TransferServers.sse)
        // The server asks for a 10-minute wait; the policy caps it at 60 s, still far more than the bound below.
        let stream = ResumableEventsAPI.Stream(n: 10, per: 2, retryMilliseconds: 600_000)
        let (received, receivedEvent) = AsyncStream.makeStream(of: String.self)

        let reader = Task {
            for try await event in try await ResumableEventsAPI.$resume.stream(with: stream, using: configuration)
                .events(reconnect: .upTo(3))
            {
                receivedEvent.yield(event.data)
            }
        }
        var data: [String] = []
        for await item in received {
            data.append(item)
            if data.count == 2 { break }
        }
        // The connection drops right after the second event: give the reader time to start waiting.
        try await Task.sleep(for: .milliseconds(500))
        let cancelledAt = ContinuousClock.now
        reader.cancel()
        let outcome = await reader.result

        #expect(data == ["1", "2"])
        #expect(ContinuousClock.now - cancelledAt < .seconds(20))
        guard case .failure(let error) = outcome else {
            Issue.record("the events ended without an error")
            return
        }
        #expect((error as? APIError)?.isCancellation == true, "\(error)")
        #expect(try await Self.connections(stream.key, configuration).count == 1)
    }
}
