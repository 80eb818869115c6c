import Courier
import CourierTesting
import Foundation
import Testing

@MainActor
enum Feeds {
    @GET("/events")
    static var events: APIParameterBuilder<Void>? = nil

    @GET("/files/{name}")
    static var file: APIParameterBuilder<String>? = .init { ["name": $0] }
}

@Suite struct StubTransferTests {
    let base = APIConfiguration(baseURL: URL(string: "https://stub.example"))

    func configuration(_ stub: StubExecutor) -> APIConfiguration {
        var configuration = base
        configuration.executor = stub
        return configuration
    }

    @Test func aChunkedStubStreamsServerSentEventsOneByOne() async throws {
        let stub = StubExecutor().stub(
            .get, "/events",
            with: .chunked(["data: a\n", "\n", "event: b\ndata: 1\ndata: 2\n\n"], every: .milliseconds(5)))

        var events: [ServerSentEvent] = []
        for try await event in try await Feeds.$events.stream(using: configuration(stub)).events {
            events.append(event)
        }

        #expect(events == [ServerSentEvent(data: "a"), ServerSentEvent(event: "b", data: "1\n2")])
    }

    @Test func aSlowStubTripsTheIdleTimeout() async throws {
        let stub = StubExecutor().stub(.get, "/events", with: .chunked(["a", "b"], every: .seconds(5)))

        let stream = try await Feeds.$events.stream(idleTimeout: .milliseconds(100), using: configuration(stub))
        let error = await #expect(throws: APIError.self) {
            for try await _ in stream {}
        }

        #expect(error?.reason == .transport(.timedOut))
    }

    @Test func aFileStubAnswersADownloadAndAnInMemoryCall() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = folder.appendingPathComponent("fixture.bin")
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        try bytes.write(to: fixture)
        let stub = StubExecutor().stub(.get, "/files/{name}", with: .file(fixture))
        let destination = folder.appendingPathComponent("copy.bin")
        let progress = TransferProgress()

        try await Feeds.$file.download(with: "a", to: destination, progress: progress, using: configuration(stub))
        let inMemory: Data = try await Feeds.$file.request(with: "a", using: configuration(stub))

        #expect(try Data(contentsOf: destination) == bytes)
        #expect(inMemory == bytes)
        #expect(progress.current.received == 200_000)
        #expect(progress.current.isFinished)
    }

    @Test func anErrorStatusIsNotWrittenToTheDestination() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("copy.bin")
        let stub = StubExecutor().stub(.get, "/files/{name}", with: .text("gone", status: 410))

        let error = await #expect(throws: APIError.self) {
            try await Feeds.$file.download(with: "a", to: destination, using: configuration(stub))
        }

        #expect(error?.statusCode == 410)
        #expect(error?.response?.body.data == Data("gone".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}

extension StubTransferTests {
    @Test func a416ToAResumedDownloadDiscardsThePartialFileAndStartsAfresh() async throws {
        // GIVEN a partial file with its resume record, and a server that cannot serve the rest (416)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = Data("the whole file".utf8)
        let stub = StubExecutor()
            .stub(where: { $0.headers["Range"] != nil }, with: .status(416))
            .stub(.get, "/files/{name}", with: .data(whole, headers: ["ETag": "\"v2\""]))
        let request = try await Feeds.$file.makeRequest(with: "a", using: configuration(stub))
        let partial = folder.appendingPathComponent(".copy.bin.courier-partial")
        try Data(repeating: 0xEE, count: 40).write(to: partial)
        try Data("\(request.url.absoluteString)\n\"v1\"".utf8).write(to: partial.appendingPathExtension("resume"))
        let destination = folder.appendingPathComponent("copy.bin")

        // WHEN the download runs
        let response = try await Feeds.$file.download(with: "a", to: destination, using: configuration(stub))

        // THEN it asked for the rest once, then downloaded the whole file afresh
        #expect(stub.requests.map { $0.headers["Range"] } == ["bytes=40-", nil])
        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == whole)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["copy.bin"])
    }

    @Test func aStubbedStreamFinishesItsProgress() async throws {
        let stub = StubExecutor().stub(.get, "/events", with: .chunked(["a", "bc"]))
        let progress = TransferProgress()

        for try await _ in try await Feeds.$events.stream(progress: progress, using: configuration(stub)) {}

        #expect(progress.current == TransferProgress.Snapshot(received: 3, isFinished: true))
    }
}

extension StubTransferTests {
    @Test(arguments: ["missing-folder/file.bin", ""])
    func aDestinationOutsideAnExistingFolderFailsBeforeAnyIO(_ relative: String) async throws {
        let stub = StubExecutor().stub(.get, "/files/{name}", with: .text("body"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // "" is the folder itself.
        let destination = relative.isEmpty ? folder : folder.appendingPathComponent(relative)

        let error = await #expect(throws: APIError.self) {
            try await Feeds.$file.download(with: "a", to: destination, using: configuration(stub))
        }

        #expect(error?.reason == .invalidRequest(.unwritableDestination))
        #expect(stub.requests.isEmpty)
    }
}
