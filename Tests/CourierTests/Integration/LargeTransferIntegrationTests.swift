import Foundation
import Testing

@testable import Courier

/// A large download from a real nginx (`scripts/servers.sh`, in `COURIER_HEAVY=1 scripts/test` only; 1 GiB by default, `COURIER_BIG_DOWNLOAD_BYTES`):
/// the bytes are checked by SHA-256, and a child process (`CourierProbe`) shows memory stays bounded.
@Suite("Integration: large transfers", .nginx, .testTools, .serialized, .timeLimit(.minutes(10)))
struct LargeTransferIntegrationTests {
    /// The most a download may add to the probe's resident memory, whatever the size of the file.
    static let growthBound = 64 * 1_048_576

    @Test("A large download arrives whole (SHA-256), with progress, in a file moved into place")
    func download() async throws {
        let configuration = try TransferServers.configuration(TransferServers.nginx, timeout: .seconds(300))
        let size = try #require(TransferServers.bigFileBytes)
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("big.bin")
        let progress = TransferProgress()
        let endpoint = GET<Void>("/big.bin")

        let response = try await endpoint.download(to: destination, progress: progress, using: configuration)

        #expect(response.statusCode == 200)
        #expect(progress.current.received == Int64(size))
        #expect(progress.current.expectedToReceive == Int64(size))
        #expect(try await TransferServers.sha256(of: destination) == TransferServers.bigFileSHA256)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["big.bin"])
    }

    @Test("A large download resumes with a 206 from nginx after a cancelled first attempt")
    func resume() async throws {
        // GIVEN a first attempt cancelled midway (nginx slows a request without Range after its first 8 MiB)
        let configuration = try TransferServers.configuration(TransferServers.nginx, timeout: .seconds(300))
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("big.bin")
        let endpoint = GET<Void>("/slow-start/big.bin")
        let progress = TransferProgress()
        let first = Task { () async throws -> APIResponse in
            try await endpoint.download(to: destination, progress: progress, using: configuration)
        }
        for await snapshot in progress where snapshot.received >= 8 * 1_048_576 { break }
        first.cancel()
        let cancelled = await first.result
        #expect((try? cancelled.get()) == nil)

        // WHEN it runs again
        let response = try await endpoint.download(to: destination, using: configuration)

        // THEN it got the rest (206) at full speed, and the file is whole
        #expect(response.statusCode == 206)
        #expect(try await TransferServers.sha256(of: destination) == TransferServers.bigFileSHA256)
    }

    @Test("A stream read slowly holds a few MiB of unread bytes, not the body (on Linux, resumed with Range)")
    func slowStream() async throws {
        // GIVEN the large file as a stream, read by a reader that waits 20 ms before each chunk
        let configuration = try TransferServers.configuration(TransferServers.nginx, timeout: .seconds(300))
        let size = try #require(TransferServers.bigFileBytes)
        let slowBytes = min(16 * 1_048_576, size / 2)
        let stream = try await GET<Void>("/big.bin").stream(using: configuration)

        // WHEN it reads the first 16 MiB, then stops
        var received = 0
        var held = 0
        for try await chunk in stream {
            received += chunk.count
            held = max(held, stream.handle.buffer.unreadBytes)
            if received >= slowBytes { break }
            try await Task.sleep(for: .milliseconds(20))
        }

        // THEN the bytes waiting for it stayed near the window (nginx answers with a length, byte ranges and an
        // ETag: on Linux the transfer is cancelled past 4 MiB unread and asked for again from the reader's position)
        #expect(received >= slowBytes)
        #expect(held <= 5 * ResponseStream.windowBytes, "held \(held) unread bytes")
    }

    @Test("A large download in a fresh process: its resident memory grows by a few MB, not by the file")
    func downloadMemory() async throws {
        let base = try #require(TransferServers.nginx).absoluteString
        let size = try #require(TransferServers.bigFileBytes)
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("big.bin").path

        let report = try await Probe.run(
            "\(base)/big.bin", timeout: .seconds(300), extraArguments: ["--download-to", destination],
            killAfter: .seconds(300))

        #expect(report.outcome == "ok", "\(report)")
        #expect(report.bytes == size)
        let growth = try #require(report.peakRSSBytes) - (report.baselineRSSBytes ?? 0)
        #expect(growth < FaultMemoryIntegrationTests.bound(Self.growthBound, for: report), "\(report)")
    }

    @Test("A large stream read in a fresh process: memory stays far below the body's size")
    func streamMemory() async throws {
        // On Linux a reader that falls behind may hold up to maxResponseBytes (100 MiB by default) of unread bytes;
        // on Apple platforms the stream's 1 MiB window. Either way, never the whole body.
        let base = try #require(TransferServers.nginx).absoluteString
        let size = try #require(TransferServers.bigFileBytes)

        let report = try await Probe.run(
            "\(base)/big.bin", timeout: .seconds(300), extraArguments: ["--stream"], killAfter: .seconds(300))

        #expect(report.outcome == "ok", "\(report)")
        #expect(report.bytes == size)
        let growth = try #require(report.peakRSSBytes) - (report.baselineRSSBytes ?? 0)
        let bound = min(size / 2, 160 * 1_048_576)
        #expect(growth < FaultMemoryIntegrationTests.bound(bound, for: report), "\(report)")
    }
}
