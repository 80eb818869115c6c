import Courier
import CourierAsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Streamed responses, downloads and progress with `AsyncHTTPClientExecutor`, against the fault server and
/// httpbin: the executor declares `.streamedResponses`, `.fileResponses` and `.progress`.
@Suite("AsyncHTTPClientExecutor transfers", .servers)
struct TransferTests {
    static func configuration(_ base: URL, maxResponseBytes: Int = 100_000) -> APIConfiguration {
        APIConfiguration(baseURL: base, executor: AsyncHTTPClientExecutor()).with {
            $0.maxResponseBytes = maxResponseBytes
        }
    }

    static func temporaryFile() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-ahc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("body.bin")
    }

    @Test("A streamed body arrives in chunks that add up to the whole, past maxResponseBytes, with progress")
    func stream() async throws {
        let configuration = Self.configuration(try Servers.required().faultServer)
        let progress = TransferProgress()

        let stream = try await GET<Void>("/big-chunked?bytes=300000").stream(progress: progress, using: configuration)
        var received = Data()
        var chunks = 0
        for try await chunk in stream {
            received.append(chunk)
            chunks += 1
        }

        #expect(received.count == 300_000)
        #expect(received.prefix(12) == Data(#"{"filler": ""#.utf8))
        #expect(chunks > 1)
        #expect(progress.current.received == 300_000)
        #expect(progress.current.isFinished)
    }

    @Test(
        "A stream that goes quiet fails with .timedOut after its idle timeout; leaving the loop early ends it",
        .timeLimit(.minutes(1)))
    func idleTimeoutAndEarlyExit() async throws {
        let configuration = Self.configuration(try Servers.required().faultServer)

        // A chunk every 30 s: a stream that missed its 0.5 s idle timeout would still be waiting at 20 s.
        let quiet = try await GET<Void>("/endless-chunked?interval=30").stream(
            idleTimeout: .milliseconds(500), using: configuration)
        let start = ContinuousClock.now
        let error = await #expect(throws: APIError.self) {
            for try await _ in quiet {}
        }
        #expect(error?.reason == .transport(.timedOut))
        #expect(ContinuousClock.now - start < .seconds(20))

        var seen = 0
        for try await _ in try await GET<Void>("/endless-chunked?interval=0.05").stream(using: configuration) {
            seen += 1
            if seen == 3 { break }
        }
        #expect(seen == 3)
    }

    @Test("A download with an idle timeout: the timeout still bounds the head; cancelling it is prompt")
    func idleTimeoutHeadAndCancellation() async throws {
        let faultServer = try Servers.required().faultServer
        let configuration = Self.configuration(faultServer).with { $0.timeout = .seconds(1) }
        let destination = try Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        let start = ContinuousClock.now

        let late = await #expect(throws: APIError.self) {
            try await GET<Void>("/slow-headers?delay=60").download(
                to: destination, idleTimeout: .seconds(30), using: configuration)
        }
        let headWait = ContinuousClock.now - start
        let stalled = Task {
            try await GET<Void>("/slow-body?bytes=6&interval=0.05&stall=2").download(
                to: destination, idleTimeout: .seconds(30), using: Self.configuration(faultServer))
        }
        try await Task.sleep(for: .milliseconds(500))
        let cancelledAt = ContinuousClock.now
        stalled.cancel()
        let result = await stalled.result

        #expect(late?.reason == .transport(.timedOut), "got \(String(describing: late))")
        #expect(headWait < .seconds(30))
        #expect(throws: APIError.self) { try result.get() }
        if case .failure(let error as APIError) = result {
            #expect(error.reason == .transport(.cancelled))
        }
        #expect(ContinuousClock.now - cancelledAt < .seconds(5))
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test("A stream of a status the endpoint refuses is an error with the body, read in memory")
    func refusedStatus() async throws {
        let configuration = Self.configuration(try Servers.required().faultServer)

        let error = await #expect(throws: APIError.self) {
            _ = try await GET<Void>("/status/503").stream(using: configuration)
        }

        #expect(error?.reason == .unacceptableStatus(.serverError))
        #expect(
            error?.response?.body.data.map { String(decoding: $0, as: UTF8.self).contains(#""status": 503"#) } == true)
    }

    @Test("A download writes the whole body to the file, past maxResponseBytes, with progress")
    func download() async throws {
        let configuration = Self.configuration(try Servers.required().faultServer)
        let destination = try Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        let progress = TransferProgress()

        // 2.5 MB: written in 1 MiB gatherings and a tail.
        let response = try await GET<Void>("/big?bytes=2500000").download(
            to: destination, progress: progress, using: configuration)
        let whole: Data = try await GET<Void>("/big?bytes=2500000").request(
            using: Self.configuration(try Servers.required().faultServer, maxResponseBytes: 4 << 20))

        #expect(response.body.fileURL == destination)
        #expect(whole.count == 2_500_000)
        #expect(try Data(contentsOf: destination) == whole)
        #expect(progress.current.received == 2_500_000)
        #expect(progress.current.expectedToReceive == 2_500_000)
    }

    @Test("A 206 that continues the file is appended after its first bytes; one that does not is refused")
    func resumedDownload() async throws {
        let httpbin = try Servers.required().httpbin
        let whole: Data = try await GET<Void>("/range/4096").request(using: Self.configuration(httpbin))
        let destination = try Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: destination.deletingLastPathComponent()) }
        try whole.prefix(1000).write(to: destination)
        let url = try #require(URL(string: httpbin.absoluteString + "/range/4096"))
        func request(range: String) -> APIRequest {
            var request = APIRequest(
                method: .get, url: url, headers: ["Range": range], endpoint: GET<Void>("/range/4096").endpoint)
            request.responseDelivery = .file(destination, resumingAt: 1000)
            return request
        }

        let resumed = try await AsyncHTTPClientExecutor().execute(request(range: "bytes=1000-"))
        let mismatch = await #expect(throws: APIError.self) {
            try await AsyncHTTPClientExecutor().execute(request(range: "bytes=500-"))
        }

        #expect(resumed.statusCode == 206)
        #expect(try Data(contentsOf: destination) == whole)
        #expect(mismatch?.reason == .transport(.other))
        let described = mismatch?.underlyingError.map { String(describing: $0) } ?? ""
        #expect(described.contains("does not continue the file at 1000"))
    }

    // MARK: - Request bodies

    struct Echo: Decodable {
        var headers: [String: String]
        var body: String

        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    static func post(_ body: RequestBody) throws -> APIRequest {
        let url = try #require(URL(string: try Servers.required().faultServer.absoluteString + "/headers"))
        return APIRequest(method: .post, url: url, body: body, endpoint: POST<Void>("/headers").endpoint)
    }

    struct Broken: Error {}

    @Test("A file body is sent chunk by chunk with its Content-Length")
    func fileBody() async throws {
        let file = try Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let text = String(repeating: "courier file body ", count: 10_000)
        try Data(text.utf8).write(to: file)

        let response = try await AsyncHTTPClientExecutor().execute(try Self.post(.file(file)))
        let echo = try JSONDecoder().decode(Echo.self, from: response.data)

        #expect(echo.body == text)
        #expect(echo.header("Content-Length") == "\(text.utf8.count)")
    }

    @Test("Upload progress counts a streamed body's bytes as the client takes them, its size unknown or known")
    func uploadProgress() async throws {
        let chunk = Data(repeating: 0x61, count: 64 * 1024)
        // A producer that stops half-way until the reader below has seen a count between none and all (at most 5 s),
        // so that a count reported as the body goes is seen whatever the machine's load; one reported only at the
        // end never is.
        func chunks(seenPartial: NIOLockedValueBox<Bool>) -> AsyncStream<Data> {
            AsyncStream { continuation in
                let producer = Task {
                    for index in 0..<16 {
                        if index == 8 {
                            let clock = ContinuousClock()
                            let giveUp = clock.now + .seconds(5)
                            while !seenPartial.withLockedValue({ $0 }), clock.now < giveUp {
                                try? await Task.sleep(for: .milliseconds(5))
                            }
                        }
                        continuation.yield(chunk)
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in producer.cancel() }
            }
        }
        let file = try Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try Data(repeating: 0x62, count: 1 << 20).write(to: file)

        let seenPartial = NIOLockedValueBox(false)
        for (body, expected) in [
            (RequestBody.stream(chunks(seenPartial: seenPartial)), nil), (.file(file), Int64(1 << 20)),
        ] {
            var request = try Self.post(body)
            let progress = TransferProgress()
            request.progress = progress
            let watcher = Task {
                var sent: [Int64] = []
                for await snapshot in progress {
                    sent.append(snapshot.sent)
                    if snapshot.sent > 0, snapshot.sent < 1 << 20 { seenPartial.withLockedValue { $0 = true } }
                }
                return sent
            }

            _ = try await AsyncHTTPClientExecutor().execute(request)
            progress.finish()
            let sent = await watcher.value

            #expect(progress.current.sent == 1 << 20, "a body of \(String(describing: expected)) bytes")
            #expect(progress.current.expectedToSend == expected)
            #expect(sent == sent.sorted())
            if expected == nil {
                // Reported as the body went, not in one step at the end.
                #expect(sent.contains { $0 > 0 && $0 < 1 << 20 }, "\(sent)")
            }
        }
    }

    @Test("A stream body of unknown size is sent chunked; one that fails to read is .unreadableBody")
    func streamBody() async throws {
        let parts = ["first ", "second ", "third"].map { Data($0.utf8) }
        let stream = AsyncThrowingStream<Data, any Error> { continuation in
            for part in parts { continuation.yield(part) }
            continuation.finish()
        }
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("partial".utf8))
            continuation.finish(throwing: Broken())
        }

        let response = try await AsyncHTTPClientExecutor().execute(try Self.post(.stream(stream)))
        let echo = try JSONDecoder().decode(Echo.self, from: response.data)
        let error = await #expect(throws: APIError.self) {
            try await AsyncHTTPClientExecutor().execute(try Self.post(.stream(failing)))
        }

        #expect(echo.body == "first second third")
        #expect(echo.header("Transfer-Encoding") == "chunked")
        #expect(error?.reason == .invalidRequest(.unreadableBody), "\(String(describing: error))")
    }
}
