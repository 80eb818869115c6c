import Foundation
import Testing

@testable import Courier

/// Downloads against the fault server's misbehaving routes (`Sources/CourierTesting/Resources/faultserver.py`):
/// `/ranged` (an ETag, `304` to `If-None-Match`, `206` to `Range`, a clean close mid-body on the first request under
/// a key) and `/slow-body` (a steady drip, or a stall).
@Suite("Integration: download faults", .faultServer, .timeLimit(.minutes(2)))
struct TransferFaultIntegrationTests {
    static let size = 256 * 1024
    static let cut = 100_000

    /// The bytes of `/ranged?bytes=n`: byte i is i % 251.
    /// Built by whole copies of the 251-byte pattern: a per-byte `map` over megabytes takes seconds in a debug build
    /// and holds a thread of the cooperative pool (two on a 2-core machine) all that time, which makes the timing
    /// checks of other suites late.
    static func rangedBytes(_ count: Int) -> Data {
        let pattern = Data((0..<251).map { UInt8($0) })
        var bytes = Data(capacity: count)
        while bytes.count + pattern.count <= count { bytes.append(pattern) }
        bytes.append(pattern.prefix(count - bytes.count))
        return bytes
    }

    /// A `/ranged` endpoint whose first request under `key` is cut after ``cut`` bytes by a clean close.
    static func cutOnce(key: String, signature: Int = 1, tags: APITags = []) -> GET<Void> {
        GET<Void>("/ranged?bytes=\(size)&cut=\(cut)&key=\(key)&sig=\(signature)", tags: tags)
    }

    /// The `Range` header of each request the fault server counted under `key` on `/ranged`.
    static func ranges(key: String, using configuration: APIConfiguration) async throws -> [String] {
        struct Stats: Decodable { let ranges: [String]? }
        let stats: Stats = try await GET<Void>("/count-stats?key=ranged:\(key)").request(using: configuration)
        return stats.ranges ?? []
    }

    // MARK: - A slowly read stream on Linux

    /// Reads `endpoint` as a stream, first waiting (up to 20 s) until the stream holds more unread bytes than
    /// URLSessionExecutor's pause threshold (``waitBytes``: on Linux the transfer is then cancelled, to be asked for
    /// again), and then 1 s more; `held` is the most unread bytes seen while the reader waited.
    static func readSlowly(
        _ endpoint: GET<Void>, using configuration: APIConfiguration
    ) async throws -> (received: Data, held: Int) {
        let stream = try await endpoint.stream(using: configuration)
        let clock = ContinuousClock()
        let start = clock.now
        var held = 0
        var over: ContinuousClock.Instant?
        while clock.now - start < .seconds(20) {
            held = max(held, stream.handle.buffer.unreadBytes)
            if over == nil, held > Self.waitBytes { over = clock.now }
            if let over, clock.now - over > .seconds(1) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        var received = Data()
        for try await chunk in stream { received.append(chunk) }
        return (received, held)
    }

    /// URLSessionExecutor's pause threshold on Linux: the unread bytes past which a resumable stream is cancelled.
    static let pauseBytes = 4 * ResponseStream.windowBytes
    #if canImport(FoundationNetworking)
        static let waitBytes = pauseBytes
    #else
        /// Apple platforms suspend the task past the window itself.
        static let waitBytes = ResponseStream.windowBytes / 2
    #endif
    /// The most unread bytes a paused stream may hold: the pause threshold, plus the chunk that crossed it.
    static let heldBound = pauseBytes + ResponseStream.windowBytes

    static let streamSize = 12 * 1_048_576

    @Test("A stream whose reader fell behind continues with a 206 from the reader's position, every byte once")
    func slowStreamResumes() async throws {
        let configuration = try FaultServer.configuration()
        let key = UUID().uuidString
        let endpoint = GET<Void>("/ranged?bytes=\(Self.streamSize)&key=\(key)")

        let (received, held) = try await Self.readSlowly(endpoint, using: configuration)

        #expect(received == Self.rangedBytes(Self.streamSize))
        let ranges = try await Self.ranges(key: key, using: configuration)
        #if canImport(FoundationNetworking)
            // While the reader waited, the stream held a few MiB, not the 12 MiB body.
            #expect(held <= Self.heldBound, "held \(held) unread bytes")
            #expect(ranges.count >= 2, "\(ranges)")
            #expect(ranges.first == "")
            #expect(ranges.dropFirst().allSatisfy { $0.hasPrefix("bytes=") && $0 != "bytes=0-" }, "\(ranges)")
        #else
            #expect(ranges == [""])
        #endif
    }

    @Test("A stream asked for again and answered 200 with the same ETag drops the bytes it had: every byte once")
    func slowStreamWholeBodyAgain() async throws {
        let configuration = try FaultServer.configuration()
        let key = UUID().uuidString
        let endpoint = GET<Void>("/ranged?bytes=\(Self.streamSize)&norange=1&key=\(key)")

        let (received, held) = try await Self.readSlowly(endpoint, using: configuration)

        #expect(received == Self.rangedBytes(Self.streamSize))
        #if canImport(FoundationNetworking)
            #expect(held <= Self.heldBound, "held \(held) unread bytes")
            // The whole body came again: the stream is not paused a second time.
            #expect(try await Self.ranges(key: key, using: configuration).count == 2)
        #endif
    }

    @Test("A stream asked for again whose response changed (a new ETag) fails with a transport error")
    func slowStreamChanged() async throws {
        let configuration = try FaultServer.configuration()
        let key = UUID().uuidString
        let endpoint = GET<Void>("/ranged?bytes=\(Self.streamSize)&changing=1&key=\(key)")

        var received: Data?
        var failure: (any Error)?
        do {
            received = try await Self.readSlowly(endpoint, using: configuration).received
        } catch {
            failure = error
        }

        #if canImport(FoundationNetworking)
            let error = try #require(failure as? APIError, "received \(received?.count ?? 0) bytes")
            #expect(error.reason == .transport(.other), "\(error)")
            #expect(try await Self.ranges(key: key, using: configuration).count == 2)
        #else
            #expect(received == Self.rangedBytes(Self.streamSize))
        #endif
    }

    // MARK: - 304

    @Test("A 304 to a conditional download (If-None-Match) leaves the existing file exactly as it was")
    func notModifiedKeepsFile() async throws {
        // GIVEN a file downloaded earlier, and an endpoint that accepts 304
        let configuration = try FaultServer.configuration()
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("data.bin")
        let earlier = Data("the copy downloaded earlier".utf8)
        try earlier.write(to: destination)
        let acceptsNotModified = AcceptableStatusCodes(200..<300, 304..<305)
        let conditional = GET<Void>(
            "/ranged?bytes=4096", headers: ["If-None-Match": "\"ranged-4096\""],
            acceptableStatusCodes: acceptsNotModified)

        // WHEN the server answers 304
        let response = try await conditional.download(to: destination, using: configuration)

        // THEN the file holds the same bytes, and nothing else was left beside it
        #expect(response.statusCode == 304)
        #expect(try Data(contentsOf: destination) == earlier)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["data.bin"])

        // AND a 200 (the ETag no longer matches) still replaces it
        let changed = GET<Void>(
            "/ranged?bytes=4096", headers: ["If-None-Match": "\"other\""], acceptableStatusCodes: acceptsNotModified)
        let fresh = try await changed.download(to: destination, using: configuration)
        #expect(fresh.statusCode == 200)
        #expect(try Data(contentsOf: destination) == Self.rangedBytes(4096))
    }

    // MARK: - A clean close before Content-Length

    @Test("A body cut by a clean close (FIN before Content-Length) is .connectionLost, and the next call resumes")
    func cleanCloseIsConnectionLost() async throws {
        let configuration = try FaultServer.configuration()
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("cut.bin")
        let key = UUID().uuidString
        let endpoint = Self.cutOnce(key: key)

        // WHEN the first attempt is cut short
        let error = await #expect(throws: APIError.self) {
            try await endpoint.download(to: destination, using: configuration)
        }

        // THEN it failed like a reset connection, left no file under the final name, and the next call resumes
        #expect(error?.reason == .transport(.connectionLost), "got \(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        let response = try await endpoint.download(to: destination, using: configuration)
        #expect(response.statusCode == 206)
        #expect(try Data(contentsOf: destination) == Self.rangedBytes(Self.size))
        #expect(try await Self.ranges(key: key, using: configuration) == ["", "bytes=\(Self.cut)-"])
    }

    @Test("Under the retry plugin a download cut by a clean close is retried, resuming where it stopped")
    func cleanCloseRetried() async throws {
        let retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(50), jitter: 0)
        let configuration = try FaultServer.configuration(plugins: [.retry(retry)])
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("cut.bin")
        let key = UUID().uuidString

        let response = try await Self.cutOnce(key: key).download(to: destination, using: configuration)

        #expect(response.statusCode == 206)
        #expect(try Data(contentsOf: destination) == Self.rangedBytes(Self.size))
        #expect(try await Self.ranges(key: key, using: configuration) == ["", "bytes=\(Self.cut)-"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cut.bin"])
    }

    @Test("Under the retry plugin an in-memory call cut by a clean close is retried and completes")
    func cleanCloseRetriedInMemory() async throws {
        let retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(50), jitter: 0)
        let configuration = try FaultServer.configuration(plugins: [.retry(retry)])
        let key = UUID().uuidString

        let data: Data = try await Self.cutOnce(key: key).request(using: configuration)

        #expect(data == Self.rangedBytes(Self.size))
        #expect(try await Self.ranges(key: key, using: configuration).count == 2)
    }

    // MARK: - Download identity

    /// A download cut short under one signature and its resume key, then run again under a fresh signature.
    struct ResumeCase: Sendable, CustomTestStringConvertible {
        let firstKey: String
        let secondKey: String
        /// Whether the second call asks for the rest (a `206`) rather than starting afresh (a `200`).
        let resumes: Bool
        var testDescription: String { "resumeKey \(firstKey), then \(secondKey)" }
    }

    @Test(
        "A presigned URL (a new signature per call) resumes under the same caller-named resumeKey, not another",
        arguments: [
            ResumeCase(firstKey: "report-42", secondKey: "report-42", resumes: true),
            ResumeCase(firstKey: "a", secondKey: "b", resumes: false),
        ])
    func resumeKey(_ resume: ResumeCase) async throws {
        let configuration = try FaultServer.configuration()
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("signed.bin")
        let key = UUID().uuidString

        // GIVEN a first attempt cut short under signature 1
        await #expect(throws: APIError.self) {
            try await Self.cutOnce(key: key, signature: 1).download(
                to: destination, resumeKey: resume.firstKey, using: configuration)
        }

        // WHEN the download runs again with a fresh signature
        let response = try await Self.cutOnce(key: key, signature: 2).download(
            to: destination, resumeKey: resume.secondKey, using: configuration)

        // THEN with the same key it asked for the rest (If-Range still guards against a changed file), with another
        // it started afresh; the file is whole either way
        #expect(response.statusCode == (resume.resumes ? 206 : 200))
        #expect(try Data(contentsOf: destination) == Self.rangedBytes(Self.size))
        #expect(
            try await Self.ranges(key: key, using: configuration)
                == ["", resume.resumes ? "bytes=\(Self.cut)-" : ""])
    }

    @Test("discardPartialDownload(to:) removes the partial file and its record: the next call starts afresh")
    func discardPartial() async throws {
        let configuration = try FaultServer.configuration()
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("cut.bin")
        let key = UUID().uuidString
        let endpoint = Self.cutOnce(key: key)
        await #expect(throws: APIError.self) {
            try await endpoint.download(to: destination, using: configuration)
        }
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
                == [".cut.bin.courier-partial", ".cut.bin.courier-partial.resume"])

        endpoint.discardPartialDownload(to: destination)

        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        let response = try await endpoint.download(to: destination, using: configuration)
        #expect(response.statusCode == 200)
        #expect(try await Self.ranges(key: key, using: configuration) == ["", ""])
    }

    // MARK: - Idle timeout instead of a deadline

    @Test("A download dripping past its deadline: .timedOut with the deadline, complete with an idle timeout")
    func dripPastDeadline() async throws {
        // 12 bytes, one a second: about 12 s in all, more than twice the 5 s timeout, with an idle timeout (8 s) wide
        // enough for the parallel suites of a CI run, which starved the delivery of bytes for over 3 s.
        let configuration = try FaultServer.configuration(timeout: .seconds(5))
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("drip.txt")
        let drip = GET<Void>("/slow-body?bytes=12&interval=1")

        let deadline = await #expect(throws: APIError.self) {
            try await drip.download(to: destination, using: configuration)
        }
        let response = try await drip.download(to: destination, idleTimeout: .seconds(8), using: configuration)

        #expect(deadline?.reason == .transport(.timedOut), "got \(String(describing: deadline))")
        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == Data(repeating: UInt8(ascii: "."), count: 12))
    }

    @Test("A download whose pauses are longer than the call's timeout and shorter than its idle timeout completes")
    func pausesLongerThanTheTimeout() async throws {
        // 2 bytes, 6 s apart, a 4 s timeout (for the head: under a full parallel run it took over 2 s) and a 10 s idle
        // timeout. URLSession's own idle timer (on Linux, FoundationNetworking's, reset by every byte) must run as
        // long as the idle timeout, not the timeout.
        let configuration = try FaultServer.configuration(timeout: .seconds(4))
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("pauses.txt")

        let response = try await GET<Void>("/slow-body?bytes=2&interval=6").download(
            to: destination, idleTimeout: .seconds(10), using: configuration)

        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == Data(repeating: UInt8(ascii: "."), count: 2))
    }

    @Test("A download that stalls fails with .timedOut under its idle timeout, long before the call's timeout")
    func stallUnderIdleTimeout() async throws {
        let configuration = try FaultServer.configuration(timeout: .seconds(60))
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("stall.txt")
        let start = ContinuousClock.now

        let error = await #expect(throws: APIError.self) {
            try await GET<Void>("/slow-body?bytes=6&interval=0.05&stall=2").download(
                to: destination, idleTimeout: .seconds(1), using: configuration)
        }

        #expect(error?.reason == .transport(.timedOut), "got \(String(describing: error))")
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
