import Courier
import Foundation
import Testing

/// A 1 GiB upload, as a file body and as the file part of a multipart form, from a fresh process (the
/// `CourierProbe` executable with the default `URLSessionExecutor`) to the upload sink, which hashes what it
/// receives: every byte arrives (SHA-256 and count), and the process's peak memory stays far below the size.
///
/// The size is `COURIER_UPLOAD_MB` mebibytes (default 1024; `scripts/test --sanitize=thread` sets 64).
@Suite("Integration: large uploads", .httpbin, .uploadSink, .testTools, .serialized)
struct LargeUploadIntegrationTests {
    static var megabytes: Int {
        ProcessInfo.processInfo.environment["COURIER_UPLOAD_MB"].flatMap { Int($0) } ?? 1024
    }

    /// The most the probe may hold at its peak: a small call peaks near 40 MB; reading the body whole would
    /// add the whole size.
    static let peakBound = 100 * 1_048_576

    struct SinkReport: Decodable, Sendable {
        struct Part: Decodable, Sendable {
            var name: String
            var filename: String?
            var bytes: Int
            var sha256: String
        }

        var bytes: Int
        var sha256: String
        var chunked: Bool
        var contentLength: String?
        var parts: [Part]?
    }

    /// Writes `megabytes` MiB of pseudo-random bytes (each MiB differs) and returns the file and its SHA-256.
    static func makeFile(megabytes: Int) async throws -> (URL, String) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-upload-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: url)
        var generator = SystemRandomNumberGenerator()
        var block = [UInt8](repeating: 0, count: 1_048_576)
        for index in block.indices { block[index] = UInt8.random(in: 0...255, using: &generator) }
        for mebibyte in 0..<megabytes {
            // A different first 8 bytes per MiB, so a reordered or repeated MiB changes the hash.
            withUnsafeBytes(of: UInt64(mebibyte).bigEndian) { block.replaceSubrange(0..<8, with: $0) }
            try handle.write(contentsOf: block)
        }
        try handle.close()
        return (url, try await sha256sum(url))
    }

    /// `sha256sum`'s digest of the file (coreutils).
    static func sha256sum(_ url: URL) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", url.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = await onOwnThread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        let digest = String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
        #expect(process.terminationStatus == 0 && digest.count == 64, "sha256sum failed: \(digest)")
        return digest
    }

    static func bound(_ report: Probe.Report) -> Int {
        report.sanitizer == "thread" ? peakBound * 3 : peakBound
    }

    /// Runs with the heavy suites: while a stream waits for its producer, FoundationNetworking's shared work queue
    /// is held, which delays every other transfer of the process (and the timing checks of other suites).
    @Test(
        "Stream uploads that wait for their producers hold up no other call of the same executor",
        .timeLimit(.minutes(1)))
    func slowStreamsDoNotBlockOtherCalls() async throws {
        let configuration = try HTTPBin.configuration(timeout: .seconds(30))
        // Each producer sleeps between chunks: while it waits, the executor is reading its stream.
        func slowChunks(_ index: Int) -> AsyncStream<Data> {
            AsyncStream { continuation in
                let producer = Task {
                    for part in 0..<3 {
                        try? await Task.sleep(for: .milliseconds(40))
                        continuation.yield(Data("\(index)-\(part);".utf8))
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in producer.cancel() }
            }
        }

        let echoes = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<6 {
                group.addTask {
                    let echo: HTTPBinEcho = try await UploadIntegrationTests.Uploads.$stream.request(
                        with: (chunks: slowChunks(index), count: nil), using: configuration)
                    return echo.data
                }
                for _ in 0..<4 {
                    group.addTask {
                        let echo: HTTPBinEcho = try await HTTPBinAPI.$anything.request(
                            with: [QueryPair("i", String(index))], using: configuration)
                        return echo.args == nil ? nil : "get"
                    }
                }
            }
            var results: [String?] = []
            for try await result in group { results.append(result) }
            return results
        }

        #expect(echoes.filter { $0 == "get" }.count == 24)
        for index in 0..<6 {
            #expect(echoes.contains("\(index)-0;\(index)-1;\(index)-2;"))
        }
    }

    @Test("A large file and a large multipart form upload whole, with bounded memory")
    func largeUploads() async throws {
        let sink = try UploadSink.url().absoluteString
        let size = Self.megabytes * 1_048_576
        let (file, digest) = try await Self.makeFile(megabytes: Self.megabytes)
        defer { try? FileManager.default.removeItem(at: file) }

        // WHEN a fresh process uploads the file as the body
        let plain = try await Probe.run(
            "\(sink)/sink", timeout: .seconds(300), extraArguments: ["--upload-file", file.path],
            killAfter: .seconds(600))
        // THEN the sink received every byte, with a Content-Length, and the process stayed small
        #expect(plain.outcome == "ok", "\(plain)")
        let plainReport = try JSONDecoder().decode(SinkReport.self, from: Data((plain.responseText ?? "").utf8))
        #expect(plainReport.bytes == size)
        #expect(plainReport.sha256 == digest)
        #expect(plainReport.contentLength == String(size))
        #expect(try #require(plain.peakRSSBytes) < Self.bound(plain), "\(plain)")

        // WHEN it uploads the same file as the part of a multipart form
        let form = try await Probe.run(
            "\(sink)/sink-multipart", timeout: .seconds(300),
            extraArguments: ["--upload-file", file.path, "--multipart"],
            killAfter: .seconds(600))
        // THEN the sink's own parser finds the field and the whole file, and the form had a Content-Length
        #expect(form.outcome == "ok", "\(form)")
        let formReport = try JSONDecoder().decode(SinkReport.self, from: Data((form.responseText ?? "").utf8))
        let parts = try #require(formReport.parts)
        #expect(parts.map(\.name) == ["note", "file"])
        #expect(parts.last?.filename == file.lastPathComponent)
        #expect(parts.last?.bytes == size)
        #expect(parts.last?.sha256 == digest)
        #expect(!formReport.chunked)
        #expect(formReport.contentLength == String(formReport.bytes))
        #expect(try #require(form.peakRSSBytes) < Self.bound(form), "\(form)")
        // The probe's own line counts the bytes of the response (the sink's short report): name the upload's.
        func line(_ report: Probe.Report, uploaded bytes: Int) -> String {
            "\(bytes) bytes uploaded in \(report.seconds) s, peak RSS \((report.peakRSSBytes ?? 0) / 1_048_576) MiB"
        }
        print(
            "large uploads, \(Self.megabytes) MiB: file \(line(plain, uploaded: plainReport.bytes)); "
                + "multipart \(line(form, uploaded: formReport.bytes))")
    }
}
