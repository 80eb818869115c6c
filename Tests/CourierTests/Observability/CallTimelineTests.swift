import Courier
import CourierTesting
import Foundation
import Testing

/// The call timeline above the executor (stubs): what each layer records, in order, on the response, on the error
/// and for the observers.
@Suite struct CallTimelineTests {
    struct User: Codable, Sendable, Equatable {
        let id: Int
    }

    static let user = GET<Int>("/users/{id}") { ["id": $0] }

    /// Keeps every event it sees, with the timeline it came with.
    final class Recorder: CallObserver {
        let seen = LockedBox<[(CallTimeline.Event, CallTimeline)]>([])
        func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
            seen.withLock { $0.append((event, timeline)) }
        }
        var kinds: [CallTimeline.Event.Kind] { seen.value.map(\.0.kind) }
    }

    /// A stub that answers with `statuses` in turn (the last one again once they run out).
    static func answering(_ statuses: [Int], headers: HTTPHeaders = [:]) -> StubExecutor {
        let count = LockedBox(0)
        return StubExecutor().stub(where: { _ in true }) { request in
            let index = count.withLock { count in
                defer { count += 1 }
                return count
            }
            let status = statuses[min(index, statuses.count - 1)]
            return StubResponse(
                statusCode: status, headers: status == 200 ? [:] : headers,
                body: status == 200 ? Data(#"{"id":1}"#.utf8) : Data())
        }
    }

    func configuration(
        _ executor: some APIExecutor, observers: [any CallObserver], plugins: [any APIPlugin] = []
    )
        -> APIConfiguration
    {
        testConfiguration.with {
            $0.executor = executor
            $0.observers = observers
            $0.plugins = plugins
        }
    }

    @Test("Without observers a call records nothing: no timeline on the response or the error")
    func nothingWithoutObservers() async throws {
        let configuration = configuration(Self.answering([200]), observers: [])
        let response: DecodedResponse<User> = try await Self.user.request(with: 1, using: configuration)
        #expect(response.timeline == nil)

        let failing = self.configuration(Self.answering([404]), observers: [])
        let error = try await #require(throws: APIError.self) { try await Self.user.request(with: 1, using: failing) }
        #expect(error.timeline == nil)
    }

    @Test("A successful call: started, built, one attempt, decoded, finished — on the response and for the observer")
    func successfulCall() async throws {
        let observer = Recorder()
        let configuration = configuration(Self.answering([200]), observers: [observer])

        let response: DecodedResponse<User> = try await Self.user.request(with: 1, using: configuration)

        let timeline = try #require(response.timeline)
        let expected: [CallTimeline.Event.Kind] = [
            .started, .built, .attemptStarted, .responseReceived, .decoded, .finished,
        ]
        #expect(timeline.events.map(\.kind) == expected)
        #expect(observer.kinds == expected)
        #expect(timeline.attempts == 1)
        #expect(timeline.statusCode == 200)
        #expect(timeline.failure == nil)
        #expect(timeline.duration != nil)
        #expect(timeline.request.endpoint.path == "/users/{id}")
        #expect(timeline.events[3].bytes == 8)
        // Monotonic: every event at or after the one before it.
        #expect(zip(timeline.events, timeline.events.dropFirst()).allSatisfy { $0.instant <= $1.instant })
        // The observer saw each event as the last of the timeline it was given.
        #expect(observer.seen.value.allSatisfy { $0.1.events.last?.kind == $0.0.kind })
        #expect(observer.seen.value.last?.1.duration != nil)
    }

    @Test("A 503 with Retry-After then a 200: two attempts and the retry with its cause and wait, in order")
    func retryIsRecorded() async throws {
        let observer = Recorder()
        let configuration = configuration(
            Self.answering([503, 200], headers: ["Retry-After": "0"]), observers: [observer],
            plugins: [.retry(RetryPolicy(baseDelay: .milliseconds(1)))])

        let user: DecodedResponse<User> = try await Self.user.request(with: 1, using: configuration)

        let timeline = try #require(user.timeline)
        #expect(
            timeline.events.map(\.kind) == [
                .started, .built, .attemptStarted, .responseReceived, .retryScheduled, .attemptStarted,
                .responseReceived, .decoded, .finished,
            ])
        #expect(timeline.attempts == 2)
        #expect(timeline.events.map(\.attempt) == [0, 0, 1, 1, 1, 2, 2, 2, 2])
        let retry = try #require(timeline.events.first { $0.kind == .retryScheduled })
        #expect(retry.statusCode == 503)
        #expect(retry.delay == .zero)
        #expect(retry.detail == "status 503, Retry-After: 0")
        #expect(timeline.statusCode == 200)
    }

    @Test("A failing call is explained by its error: the attempts, the failure, the final status")
    func failureOnTheError() async throws {
        let observer = Recorder()
        let configuration = configuration(Self.answering([404]), observers: [observer])

        let error = try await #require(throws: APIError.self) {
            try await Self.user.request(with: 1, using: configuration) as User
        }

        let timeline = try #require(error.timeline)
        #expect(timeline.events.map(\.kind) == [.started, .built, .attemptStarted, .responseReceived, .finished])
        #expect(timeline.failure == .unacceptableStatus(.notFound))
        #expect(timeline.statusCode == 404)
        #expect(observer.seen.value.last?.1.failure == .unacceptableStatus(.notFound))
    }

    @Test("A transport failure retried until attempts run out: each attempt failed, the error has them all")
    func transportFailures() async throws {
        let stub = StubExecutor().stubEverything(with: .error(URLError(.timedOut)))
        let configuration = configuration(
            stub, observers: [Recorder()], plugins: [.retry(RetryPolicy(baseDelay: .milliseconds(1), jitter: 0))])

        let error = try await #require(throws: APIError.self) {
            try await Self.user.request(with: 1, using: configuration) as Data
        }

        let timeline = try #require(error.timeline)
        #expect(timeline.attempts == 3)
        #expect(timeline.events.filter { $0.kind == .attemptFailed }.count == 3)
        #expect(
            timeline.events.filter { $0.kind == .retryScheduled }.map(\.detail) == [
                "the request timed out", "the request timed out",
            ])
        #expect(timeline.failure == .transport(.timedOut))
        #expect(timeline.events.last?.kind == .finished)
    }

    @Test("A response's request sent again starts a timeline of its own")
    func sendingAgainStartsAfresh() async throws {
        let configuration = configuration(Self.answering([200]), observers: [Recorder()])
        let first: APIResponse = try await Self.user.request(with: 1, using: configuration)

        let second = try await first.request.send(using: configuration)

        #expect(try #require(first.timeline).attempts == 1)
        let again = try #require(second.timeline)
        #expect(again.attempts == 1)
        #expect(again.events.map(\.kind) == [.started, .built, .attemptStarted, .responseReceived, .finished])
    }

    @Test("Several observers each see every event; the description lists the events")
    func severalObservers() async throws {
        let (one, two) = (Recorder(), Recorder())
        let configuration = configuration(Self.answering([200]), observers: [one, two])

        let response: APIResponse = try await Self.user.request(with: 1, using: configuration)

        #expect(one.kinds == two.kinds)
        #expect(one.kinds.count == 5)
        let text = try #require(response.timeline).description
        #expect(text.hasPrefix("GET /users/{id}: 1 attempt, 200, "))
        #expect(text.contains("attemptStarted #1"))
        #expect(text.contains("responseReceived #1 200, 8 bytes"))
    }

    @Test("The description reads as the docs show it (CallTimeline's doc comment, ObservingCalls.md)")
    func descriptionAsDocumented() async throws {
        let configuration = configuration(
            Self.answering([503, 200], headers: ["Retry-After": "0"]), observers: [Recorder()],
            plugins: [.retry()])

        let response: DecodedResponse<User> = try await Self.user.request(with: 1, using: configuration)

        // The offsets and durations vary from run to run: each is compared as `N.N ms`, and an offset with its column's
        // padding (13 characters, whatever its number of digits: a loaded machine makes the second attempt later).
        let text = try #require(response.timeline).description
            .replacing(/\+\d+\.\d ms +/, with: "+N.N ms      ")
            .replacing(/\d+\.\d ms/, with: "N.N ms")
        #expect(
            text == """
                GET /users/{id}: 2 attempts, 200, N.N ms
                  +N.N ms      started
                  +N.N ms      built
                  +N.N ms      attemptStarted #1
                  +N.N ms      responseReceived #1 503, 0 bytes
                  +N.N ms      retryScheduled #1 503, wait N.N ms, status 503, Retry-After: 0
                  +N.N ms      attemptStarted #2
                  +N.N ms      responseReceived #2 200, 8 bytes
                  +N.N ms      decoded #2
                  +N.N ms      finished #2 200
                """)
    }

    @Test("A download and a stream record their calls too: the attempt, then the end")
    func transfers() async throws {
        let observer = Recorder()
        let configuration = configuration(Self.answering([200]), observers: [observer])
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: destination) }

        let download = try await Self.user.download(with: 1, to: destination, using: configuration)
        let stream = try await Self.user.stream(with: 1, using: configuration)
        for try await _ in stream {}

        #expect(download.timeline?.attempts == 1)
        #expect(download.timeline?.duration != nil)
        #expect(observer.kinds.filter { $0 == .finished }.count == 2)
        #expect(observer.kinds.filter { $0 == .attemptStarted }.count == 2)
    }

    @Test("A streamed body's end follows the call's end: read to its end, or left early (cancelled), with its bytes")
    func streamEnd() async throws {
        let observer = Recorder()
        let quick = configuration(
            StubExecutor().stubEverything(with: .chunked(["abc", "de", "f"])), observers: [observer])
        // Chunks 2 s apart: the reader leaves long before the second.
        let slow = configuration(
            StubExecutor().stubEverything(with: .chunked(["abc", "de", "f"], every: .seconds(2))), observers: [observer]
        )

        // Read to the end: 6 bytes.
        var read = 0
        for try await chunk in try await Self.user.stream(with: 1, using: quick) { read += chunk.count }
        // Left after the first chunk: the reader dropped the rest.
        for try await _ in try await Self.user.stream(with: 2, using: slow) { break }

        let ends = observer.seen.value.filter { $0.0.kind == .streamEnded }.map(\.0)
        #expect(ends.count == 2)
        #expect(ends.first?.detail == "end")
        #expect(read == 6)
        #expect(ends.first?.bytes == 6)
        #expect(ends.last?.detail == "cancelled")
        #expect(ends.last?.bytes == 3)
        // Each call's end comes first; the timeline keeps its duration (up to `finished`) with the stream's end after.
        let kinds = observer.kinds
        #expect(kinds.filter { $0 == .finished }.count == 2)
        let first = try #require(observer.seen.value.first { $0.0.kind == .streamEnded }?.1)
        #expect(first.events.suffix(2).map(\.kind) == [.finished, .streamEnded])
        #expect(first.duration != nil)
    }
}
