import Courier
import Foundation
import Testing

/// The httpbin endpoints of the transfer tests.
@MainActor
enum TransferAPI {
    @GET("/stream-bytes/{n}")
    static var streamBytes: APIParameterBuilder<(n: Int, seed: Int)>? = .init {
        ["n": $0.n, "seed": $0.seed, "chunk_size": 1024]
    }

    @GET("/drip")
    static var drip: APIParameterBuilder<(bytes: Int, seconds: Int)>? = .init {
        ["numbytes": $0.bytes, "duration": $0.seconds, "delay": 0]
    }

    @GET("/stream/{n}")
    static var streamLines: APIParameterBuilder<Int>? = .init { ["n": $0] }

    @GET("/bytes/{n}")
    static var bytes: APIParameterBuilder<(n: Int, seed: Int)>? = .init { ["n": $0.n, "seed": $0.seed] }

    @GET("/range/{n}")
    static var range: APIParameterBuilder<(n: Int, seconds: Int)>? = .init {
        ["n": $0.n, "duration": $0.seconds, "chunk_size": 1024]
    }

    @GET("/status/{code}")
    static var status: APIParameterBuilder<Int>? = .init { ["code": $0] }

    @GET("/bearer")
    static var bearer: APIParameterBuilder<Void>? = nil

    /// httpbin's `/base64/{value}`: the decoded value, whatever the `Range` header says.
    @GET("/base64/{value}")
    static var text: APIParameterBuilder<String>? = .init { ["value": Data($0.utf8).base64EncodedString()] }
}

/// A fresh folder for one test's files.
func makeTemporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Records the headers of every request the executor sends.
struct HeaderRecorder: APIPlugin {
    let seen = LockedBox<[HTTPHeaders]>([])
    func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        seen.withLock { $0.append(request.headers) }
        return try await next(request)
    }
}

@Suite("Integration: streams", .httpbin, .timeLimit(.minutes(1)))
struct StreamIntegrationTests {
    @Test("/stream-bytes/{n} arrives as chunks adding up to n bytes, with progress")
    func streamBytes() async throws {
        // (httpbin draws seeded bytes from Python's global generator, so concurrent tests change them: the content
        // is compared on /range below, whose bytes are fixed.)
        let configuration = try HTTPBin.configuration()
        let progress = TransferProgress()

        let stream = try await TransferAPI.$streamBytes.stream(
            with: (n: 100_000, seed: 7), progress: progress, using: configuration)
        var count = 0
        for try await chunk in stream { count += chunk.count }

        // (How many chunks depends on how far the reader lags: waiting chunks are handed over together.)
        #expect(count == 100_000)
        #expect(progress.current.received == 100_000)
        #expect(progress.current.isFinished)
    }

    @Test("/range/{n} streamed in 1 KiB chunks gives the same bytes as an in-memory call")
    func rangeStream() async throws {
        let configuration = try HTTPBin.configuration()

        var received = Data()
        for try await chunk in try await TransferAPI.$range.stream(with: (n: 30_000, seconds: 0), using: configuration)
        {
            received.append(chunk)
        }
        let whole: Data = try await TransferAPI.$range.request(with: (n: 30_000, seconds: 0), using: configuration)

        #expect(received.count == 30_000)
        #expect(received == whole)
    }

    @Test("/stream/{n} reads as n lines of JSON")
    func lines() async throws {
        let configuration = try HTTPBin.configuration()

        var ids: [Int] = []
        for try await line in try await TransferAPI.$streamLines.stream(with: 5, using: configuration).lines {
            struct Line: Decodable { let id: Int }
            ids.append(try JSONDecoder().decode(Line.self, from: Data(line.utf8)).id)
        }

        #expect(ids == [0, 1, 2, 3, 4])
    }

    @Test("/drip hands bytes over as they arrive, before the body is complete")
    func drip() async throws {
        let configuration = try HTTPBin.configuration()

        var iterator = try await TransferAPI.$drip.stream(with: (bytes: 4, seconds: 4), using: configuration)
            .makeAsyncIterator()
        let first = try await iterator.next()
        let firstAt = ContinuousClock.now
        var total = first?.count ?? 0
        while let chunk = try await iterator.next() { total += chunk.count }
        let rest = ContinuousClock.now - firstAt

        // httpbin sends the other bytes over the next 3 s: the first was handed over before them.
        #expect(first?.isEmpty == false)
        #expect(rest > .seconds(2), "the rest came \(rest) after the first byte")
        #expect(total == 4)
    }

    @Test("A reader that stops early cancels the transfer")
    func earlyStop() async throws {
        let configuration = try HTTPBin.configuration()
        let progress = TransferProgress()
        let start = ContinuousClock.now

        for try await _ in try await TransferAPI.$drip.stream(
            with: (bytes: 20, seconds: 20), progress: progress, using: configuration)
        {
            break
        }
        // The task ends (and the progress with it) long before the server's 20 seconds.
        for await _ in progress {}

        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(progress.current.received < 20)
    }

    @Test("No byte within the idle timeout fails with .timedOut")
    func idleTimeout() async throws {
        let configuration = try HTTPBin.configuration()

        let stream = try await TransferAPI.$drip.stream(
            with: (bytes: 2, seconds: 8), idleTimeout: .seconds(1), using: configuration)
        let error = await #expect(throws: APIError.self) {
            for try await _ in stream {}
        }

        #expect(error?.reason == .transport(.timedOut))
    }

    @Test("An unacceptable status fails before the stream, with its body")
    func statusFails() async throws {
        let configuration = try HTTPBin.configuration()

        let error = await #expect(throws: APIError.self) {
            _ = try await TransferAPI.$status.stream(with: 503, using: configuration)
        }

        #expect(error?.reason == .unacceptableStatus(.serverError))
    }
}

@Suite("Integration: downloads", .httpbin, .timeLimit(.minutes(1)))
struct DownloadIntegrationTests {
    @Test("A download writes the same bytes as an in-memory call, with progress")
    func download() async throws {
        let configuration = try HTTPBin.configuration()
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("range.bin")
        let progress = TransferProgress()

        let response = try await TransferAPI.$range.download(
            with: (n: 50_000, seconds: 0), to: destination, progress: progress, using: configuration)
        let whole: Data = try await TransferAPI.$range.request(with: (n: 50_000, seconds: 0), using: configuration)

        #expect(response.body.fileURL == destination)
        #expect(try Data(contentsOf: destination) == whole)
        #expect(progress.current.received == 50_000)
        #expect(progress.current.expectedToReceive == 50_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["range.bin"])
    }

    @Test("A failed download leaves the destination as it was and fails as every call does")
    func failedDownload() async throws {
        let configuration = try HTTPBin.configuration()
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("old.txt")
        try Data("old".utf8).write(to: destination)

        let error = await #expect(throws: APIError.self) {
            try await TransferAPI.$status.download(with: 404, to: destination, using: configuration)
        }

        #expect(error?.reason == .unacceptableStatus(.notFound))
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
    }

    @Test("/range/{n}: a download cancelled midway resumes with Range + If-Range and ends with the same bytes")
    func resume() async throws {
        // GIVEN a slow download of /range/n, cancelled once some bytes arrived
        let recorder = HeaderRecorder()
        let configuration = try HTTPBin.configuration(timeout: .seconds(30)).with { $0.plugins = [recorder] }
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("range.bin")
        let count = 20 * 1024
        let progress = TransferProgress()
        let first = Task { () async throws -> APIResponse in
            try await TransferAPI.$range.download(
                with: (n: count, seconds: 2), to: destination, progress: progress, using: configuration)
        }
        for await snapshot in progress where snapshot.received >= 4096 { break }
        first.cancel()
        let cancelled = await first.result
        #expect((try? cancelled.get()) == nil)
        #expect(!FileManager.default.fileExists(atPath: destination.path))

        // WHEN the same download runs again
        let response = try await TransferAPI.$range.download(
            with: (n: count, seconds: 2), to: destination, using: configuration)

        // THEN it asked for the rest, got a 206, and the file holds every byte
        let resumed = try #require(recorder.seen.withLock { $0.last })
        let rangeHeader = try #require(resumed["Range"])
        #expect(rangeHeader.hasPrefix("bytes="))
        #expect(rangeHeader != "bytes=0-")
        #expect(resumed["If-Range"] == "range\(count)")
        #expect(response.statusCode == 206)
        let whole: Data = try await TransferAPI.$range.request(with: (n: count, seconds: 0), using: configuration)
        #expect(try Data(contentsOf: destination) == whole)
    }

    @Test("A 200 to a resumed download starts the file again from the first byte")
    func restartOn200() async throws {
        let recorder = HeaderRecorder()
        let configuration = try HTTPBin.configuration().with { $0.plugins = [recorder] }
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("text.txt")
        // GIVEN a partial file and its resume record from an earlier attempt (/base64 ignores Range: a 200)
        let text = String(repeating: "0123456789abcdef", count: 100)
        let request = try await TransferAPI.$text.makeRequest(with: text, using: configuration)
        let partial = folder.appendingPathComponent(".text.txt.courier-partial")
        try Data(repeating: 0xEE, count: 1000).write(to: partial)
        try Data("\(request.url.absoluteString)\n\"v1\"".utf8).write(to: partial.appendingPathExtension("resume"))

        // WHEN the download runs
        let response = try await TransferAPI.$text.download(with: text, to: destination, using: configuration)

        // THEN it asked for the rest, got the whole body, and the file holds only that
        #expect(recorder.seen.withLock { $0.last?["Range"] } == "bytes=1000-")
        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == Data(text.utf8))
    }

    @Test("Plugins see transfers: an auth plugin's header reaches a download and a stream")
    func authApplies() async throws {
        let configuration = try HTTPBin.configuration().with { $0.plugins = [.bearer("s3cr3t")] }
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("bearer.json")

        try await TransferAPI.$bearer.download(to: destination, using: configuration)
        var streamed = Data()
        for try await chunk in try await TransferAPI.$bearer.stream(using: configuration) { streamed.append(chunk) }
        let unauthorized = await #expect(throws: APIError.self) {
            try await TransferAPI.$bearer.download(to: destination, using: try HTTPBin.configuration())
        }

        struct Answer: Decodable { let authenticated: Bool }
        #expect(try JSONDecoder().decode(Answer.self, from: Data(contentsOf: destination)).authenticated)
        #expect(try JSONDecoder().decode(Answer.self, from: streamed).authenticated)
        #expect(unauthorized?.reason == .unacceptableStatus(.unauthorized))
    }

    @Test("An executor without file responses fails before any I/O with .unsupportedByExecutor")
    func unsupportedExecutor() async throws {
        struct InMemoryOnly: APIExecutor {
            let calls = LockedBox(0)
            func execute(_ request: APIRequest) async throws -> APIResponse {
                calls.withLock { $0 += 1 }
                return APIResponse(statusCode: 200, request: request)
            }
        }
        let executor = InMemoryOnly()
        let configuration = try HTTPBin.configuration(executor: executor)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)

        let error = await #expect(throws: APIError.self) {
            try await TransferAPI.$bytes.download(with: (n: 10, seed: 1), to: destination, using: configuration)
        }

        #expect(error?.reason == .transport(.unsupportedByExecutor))
        #expect((error?.underlyingError as? ExecutorLimitation)?.missing == [.fileResponses])
        #expect((error?.underlyingError as? ExecutorLimitation)?.executor == "InMemoryOnly")
        #expect(executor.calls.withLock { $0 } == 0)
    }
}
