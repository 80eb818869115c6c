import Courier
import Foundation
import Testing

@testable import CourierTesting

@MainActor
enum Uploads {
    @POST("/uploads")
    static var chunks: APIParameterBuilder<[String]>? = .init { parts in
        .body(.stream(parts.map { Data($0.utf8) }.async), contentType: "text/plain")
    }
}

extension Array where Element: Sendable {
    /// The elements as an `AsyncSequence`.
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}

@MainActor
enum Forms {
    @POST("/forms", encoding: .multipart)
    static var send: APIParameterBuilder<String>? = .init {
        ["note": $0, "file": .data(Data($0.utf8), filename: nil)]
    }
}

@Suite struct CassetteTransferTests {
    let base = APIConfiguration(baseURL: URL(string: "https://feeds.example"))

    @Test func aRecordedEventStreamReplaysItsEvents() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let stub = StubExecutor().stub(
            .get, "/events", with: .chunked(["data: a\n", "\n", "event: b\ndata: 1\ndata: 2\n\n", "data: c\n\n"]))

        func events(_ cassette: Cassette) async throws -> [ServerSentEvent] {
            try await cassette.activate(in: base) {
                var events: [ServerSentEvent] = []
                for try await event in try await Feeds.$events.stream().events { events.append(event) }
                return events
            }
        }
        let recorded = try await events(Cassette.local(folder.file(), recordingWith: stub))
        let replayed = try await events(Cassette.local(folder.file(), mode: .none, recordingWith: unreachable))

        #expect(recorded.count == 3)
        #expect(replayed == recorded)
    }

    @Test func aRecordedDownloadWritesTheSameBytesWithProgress() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let bytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let stub = StubExecutor().stub(.get, "/files/{name}", with: .data(bytes))
        let first = folder.file("first.bin")
        let second = folder.file("second.bin")
        let progress = TransferProgress()

        try await Cassette.local(folder.file(), recordingWith: stub).activate(in: base) {
            try await Feeds.$file.download(with: "a", to: first)
        }
        try await Cassette.local(folder.file(), mode: .none, recordingWith: unreachable).activate(in: base) {
            try await Feeds.$file.download(with: "a", to: second, progress: progress)
        }

        #expect(try Data(contentsOf: first) == bytes)
        #expect(try Data(contentsOf: second) == bytes)
        #expect(progress.current.received == Int64(bytes.count))
        #expect(progress.current.isFinished)
        let file = try String(contentsOf: folder.file(), encoding: .utf8)
        #expect(file.contains(#""encoding" : "base64""#))
    }

    @Test func aStreamedUploadIsRecordedAndMatchedByItsBytes() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let stub = StubExecutor().stub(.post, "/uploads", with: .status(201))

        let status: APIResponse = try await Cassette.local(folder.file(), recordingWith: stub).activate(in: base) {
            try await Uploads.$chunks.request(with: ["one,", "two"])
        }
        let replay = Cassette.local(folder.file(), mode: .none, recordingWith: unreachable)
        let replayed: APIResponse = try await replay.activate(in: base) {
            try await Uploads.$chunks.request(with: ["one", ",two"])
        }
        let error = await #expect(throws: APIError.self) {
            try await replay.activate(in: self.base) {
                let _: APIResponse = try await Uploads.$chunks.request(with: ["x"])
            }
        }

        #expect(status.statusCode == 201)
        #expect(replayed.statusCode == 201)
        #expect(stub.sentBodies == [Data("one,two".utf8)])
        #expect((error?.underlyingError as? Cassette.Problem)?.difference == "body: x vs one,two")
    }

    @Test func aStreamLeftEarlyIsSavedWithWhatWasRead() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        // The second chunk would come after a minute: the reader leaves after the first.
        let stub = StubExecutor().stub(
            .get, "/events", with: .chunked(["data: a\n\n", "data: b\n\n"], every: .seconds(60)))

        try await Cassette.local(folder.file(), recordingWith: stub).activate(in: base) {
            for try await _ in try await Feeds.$events.stream().events { break }
        }
        let replayed: [ServerSentEvent] = try await Cassette.local(folder.file(), recordingWith: unreachable).activate(
            in: base
        ) {
            var events: [ServerSentEvent] = []
            for try await event in try await Feeds.$events.stream().events { events.append(event) }
            return events
        }

        #expect(replayed == [ServerSentEvent(data: "a")])
    }

    @Test func aMultipartFormMatchesThoughItsBoundaryIsNew() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let stub = StubExecutor().stub(.post, "/forms", with: .status(204))

        let _: APIResponse = try await Cassette.local(folder.file(), recordingWith: stub).activate(in: base) {
            try await Forms.$send.request(with: "hello")
        }
        let replayed: APIResponse = try await Cassette.local(folder.file(), recordingWith: unreachable).activate(
            in: base
        ) { try await Forms.$send.request(with: "hello") }

        #expect(replayed.statusCode == 204)
        let file = try String(contentsOf: folder.file(), encoding: .utf8)
        #expect(file.contains("courier-recorded-boundary"))
    }
}
