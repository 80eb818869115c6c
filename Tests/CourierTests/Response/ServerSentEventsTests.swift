import Courier
import Foundation
import Testing

@Suite struct ServerSentEventsTests {
    /// A stream that hands over `chunks` as they are.
    static func stream(_ chunks: [String]) throws -> ResponseStream {
        var request = try GET<Void>("/events").makeRequest(using: testConfiguration)
        request.responseDelivery = .stream()
        let sequence = AsyncStream<Data> { continuation in
            for chunk in chunks { continuation.yield(Data(chunk.utf8)) }
            continuation.finish()
        }
        return ResponseStream(sequence, for: request)
    }

    static func events(_ chunks: [String]) async throws -> [ServerSentEvent] {
        var all: [ServerSentEvent] = []
        for try await event in try stream(chunks).events { all.append(event) }
        return all
    }

    @Test func linesEndInLFCRLFOrCREvenAcrossChunks() async throws {
        var lines: [String] = []
        for try await line in try Self.stream(["a\nb\r", "\nc\rd", "\r\ne", "é"]).lines { lines.append(line) }
        #expect(lines == ["a", "b", "c", "d", "eé"])
    }

    @Test func fieldsOfTheStandard() async throws {
        let events = try await Self.events([
            "\u{FEFF}: a comment\n",
            "event: update\ndata: first line\ndata:second line\nid: 7\nretry: 1500\n\n",
            "data: plain\n\n",
            "id: 8\nunknown: field\ndata\n\n",
            "retry: soon\nevent: ignored-without-data\n\n",
            "data: {\"a\":1}\r\n\r\n",
            "data: never dispatched",
        ])
        #expect(
            events == [
                ServerSentEvent(
                    event: "update", data: "first line\nsecond line", id: "7", retry: .milliseconds(1500)),
                ServerSentEvent(data: "plain", id: "7", retry: .milliseconds(1500)),
                ServerSentEvent(data: "", id: "8", retry: .milliseconds(1500)),
                ServerSentEvent(data: #"{"a":1}"#, id: "8", retry: .milliseconds(1500)),
            ])
    }

    @Test func anEventSplitAcrossChunksIsWhole() async throws {
        let events = try await Self.events(["da", "ta: he", "llo\n", "\n"])
        #expect(events == [ServerSentEvent(data: "hello")])
    }

    @Test func aLineOverTheLimitFailsWithResponseTooLarge() async throws {
        var request = try GET<Void>("/events").makeRequest(using: testConfiguration)
        request.responseDelivery = .stream()
        request.maxResponseBytes = 10
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data(repeating: 0x61, count: 11))
            continuation.finish()
        }
        let error = await #expect(throws: APIError.self) {
            for try await _ in ResponseStream(chunks, for: request).lines {}
        }
        #expect(error?.reason == .transport(.responseTooLarge))
    }
}

extension ServerSentEventsTests {
    @Test func anEventOverTheLimitFailsWithResponseTooLarge() async throws {
        var request = try GET<Void>("/events").makeRequest(using: testConfiguration)
        request.responseDelivery = .stream()
        request.maxResponseBytes = 20
        let chunks = AsyncStream<Data> { continuation in
            for _ in 0..<5 { continuation.yield(Data("data: 0123456789\n".utf8)) }
            continuation.finish()
        }
        let error = await #expect(throws: APIError.self) {
            for try await _ in ResponseStream(chunks, for: request).events {}
        }
        #expect(error?.reason == .transport(.responseTooLarge))
    }
}
