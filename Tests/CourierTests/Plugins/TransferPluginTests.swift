import Courier
import CourierTesting
import Foundation
import Testing

/// Plugins see transfers: auth applies to uploads, retry re-sends only replayable bodies, logging never reads a
/// streamed body, and the stub records what each upload sent.
@Suite struct TransferPluginTests {
    static let fast = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), jitter: 0)

    static func chunks(_ texts: [String]) -> AsyncStream<Data> {
        AsyncStream { continuation in
            for text in texts { continuation.yield(Data(text.utf8)) }
            continuation.finish()
        }
    }

    static let upload = PUT<RequestBody>(wrappedValue: .init { .body($0, contentType: "text/plain") }, "/upload")

    func configuration(_ stub: StubExecutor, _ plugins: [any APIPlugin]) -> APIConfiguration {
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = plugins
        return configuration
    }

    @Test func aReplayableFileIsSentAgainFromTheStartOnEachRetry() async throws {
        let file = try RequestBodyTests.temporaryFile(Data("whole file".utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        let stub = StubExecutor().stubEverything(with: .status(503))

        await #expect(throws: APIError.self) {
            try await Self.upload.request(with: .file(file), using: configuration(stub, [.retry(Self.fast)]))
        }

        #expect(stub.requests.count == 3)
        #expect(stub.sentBodies == Array(repeating: Data("whole file".utf8), count: 3))
    }

    @Test func aOneShotStreamIsNeverRetried() async throws {
        let stub = StubExecutor().stubEverything(with: .status(503))

        let error = try await #require(throws: APIError.self) {
            try await Self.upload.request(
                with: .stream(Self.chunks(["a", "b"])), using: configuration(stub, [.retry(Self.fast)]))
        }

        #expect(error.reason == .unacceptableStatus(.serverError))
        #expect(stub.requests.count == 1)
        #expect(stub.sentBodies == [Data("ab".utf8)])
    }

    @Test func authAppliesToUploads() async throws {
        let stub = StubExecutor().stubEverything(with: .status(204))
        let form = MultipartForm(parts: [.field("a", "b")])

        try await Self.upload.request(with: .multipart(form), using: configuration(stub, [.bearer("t0ken")]))

        #expect(stub.requests.first?.headers[.authorization] == "Bearer t0ken")
        let sent = try #require(stub.sentBodies.first)
        #expect(MultipartFormContent(sent, contentType: form.contentType)?.parts.map(\.text) == ["b"])
    }

    @Test func loggingSummarizesAStreamedBodyWithoutReadingIt() async throws {
        let lines = LockedBox<[String]>([])
        let stub = StubExecutor().stubEverything(with: .status(204))
        let logging = LoggingPlugin.logging(LoggingPlugin.Options(includeBodies: true)) { line in
            lines.withLock { $0.append(line) }
        }

        try await Self.upload.request(
            with: .stream(Self.chunks(["abc", "de"]), count: 5), using: configuration(stub, [logging]))
        try await Self.upload.request(with: .stream(Self.chunks(["x"])), using: configuration(stub, [logging]))

        let requestLines = lines.value.filter { $0.hasPrefix("→") }
        #expect(requestLines.count == 2)
        #expect(requestLines.first?.hasSuffix("\n<streamed body, 5 bytes>") == true)
        #expect(requestLines.last?.hasSuffix("\n<streamed body, unknown size>") == true)
        // The stream reached the executor whole: logging did not consume it.
        #expect(stub.sentBodies == [Data("abcde".utf8), Data("x".utf8)])
    }

    @Test func theStubRecordsWhatAFileUploadSent() async throws {
        let contents = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0) })
        let file = try RequestBodyTests.temporaryFile(contents)
        defer { try? FileManager.default.removeItem(at: file) }
        let stub = StubExecutor().stubEverything(with: .status(201))

        try await Self.upload.request(with: .file(file), using: configuration(stub, []))

        #expect(stub.sentBodies == [contents])
        #expect(stub.requests.first?.body.fileURL == file)
    }
}
