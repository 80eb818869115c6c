import Courier
import Foundation

// The transfer checks: file, stream and multipart bodies, streamed responses, downloads, progress, and 307s
// after an upload. They go through Courier's call pipeline (as a user's call would), with the executor under
// test behind a probe. A call that needs a feature the executor does not declare in `supportedTransfers`
// must fail with `.transport(.unsupportedByExecutor)` before it reaches the executor.
extension ExecutorConformance.Context {
    /// The executor under test, recording the requests that reach it.
    struct Probe: APIExecutor {
        let base: any APIExecutor
        let seen = LockedBox<[APIRequest]>([])

        var supportedTransfers: TransferFeatures { base.supportedTransfers }

        func execute(_ request: APIRequest) async throws -> APIResponse {
            seen.withLock { $0.append(request) }
            return try await base.execute(request)
        }

        var requests: [APIRequest] { seen.value }
    }

    /// Runs `operation` with a configuration for httpbin whose executor is the one under test behind a probe.
    ///
    /// When the executor declares `needs`, returns the operation's value, or records its error as a failure.
    /// When it does not, expects ``/Courier/APIError/TransportProblem/unsupportedByExecutor`` before any request
    /// reached the executor, and returns `nil`.
    func transfer<Value: Sendable>(
        _ label: String,
        needs: TransferFeatures,
        timeout: Duration = .seconds(10),
        _ operation: (APIConfiguration, Probe) async throws -> Value
    ) async -> Value? {
        let probe = Probe(base: executor)
        var configuration = APIConfiguration(baseURL: servers.httpbin)
        configuration.executor = probe
        configuration.timeout = timeout
        let missing = needs.subtracting(executor.supportedTransfers)
        let names = ExecutorLimitation(executor: executor, missing: missing).featureNames.joined(separator: ", ")
        do {
            let value = try await operation(configuration, probe)
            guard missing.isEmpty else {
                fail("\(label): succeeded without declaring \(names); expected unsupportedByExecutor")
                return nil
            }
            return value
        } catch {
            let reason = (error as? APIError)?.reason
            guard missing.isEmpty else {
                expect(
                    reason == .transport(.unsupportedByExecutor),
                    "\(label) needs \(names), which the executor does not declare: \(reason.map { "\($0)" } ?? "\(error)"), expected unsupportedByExecutor"
                )
                expect(
                    probe.requests.isEmpty,
                    "\(label): \(probe.requests.count) request(s) reached an executor that does not declare \(names)")
                return nil
            }
            fail("\(label): \(reason.map { "\($0)" } ?? "") \(error)")
            return nil
        }
    }

    // MARK: - Endpoints (httpbin)

    static let fileUpload = PUT<URL>("/anything/file") { .body(.file($0), contentType: "application/octet-stream") }
    static let streamUpload = POST<(chunks: AsyncStream<Data>, count: Int?)>("/anything/stream") {
        .body(.stream($0.chunks, count: $0.count), contentType: "application/octet-stream")
    }
    static let form = POST<(text: URL, bytes: Data)>("/post", encoding: .multipart) {
        [
            "title": "Zoë & \"co\"", "count": 3,
            "text": .file($0.text, contentType: "text/plain"),
            "bytes": .data($0.bytes, filename: "b.txt", contentType: "text/plain"),
        ]
    }
    /// `/range/{n}`: n bytes `abc…zabc…` (the same on every request), `Accept-Ranges`, an `ETag`, `206` for a
    /// `Range`; `duration` spreads the body over that many seconds.
    static let range = GET<(n: Int, duration: Int)>("/range/{n}") {
        ["n": $0.n, "duration": $0.duration, "chunk_size": 2048]
    }
    static let drip = GET<(bytes: Int, seconds: Int)>("/drip") {
        ["numbytes": $0.bytes, "duration": $0.seconds, "delay": 0]
    }
    static let status = GET<Int>("/status/{code}") { ["code": $0] }
    static let redirectedFile = POST<URL>("/redirect-to", acceptableStatusCodes: .any) {
        .body(.file($0), contentType: "application/octet-stream", parameters: ["url": "/anything", "status_code": 307])
    }
    static let redirectedStream = POST<AsyncStream<Data>>("/redirect-to", acceptableStatusCodes: .any) {
        .body(.stream($0, count: 11), contentType: "text/plain", parameters: ["url": "/anything", "status_code": 307])
    }

    // MARK: - Content

    /// What `/range/{n}` sends.
    static func rangeBytes(_ count: Int, from start: Int = 0) -> Data {
        Data((start..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) })
    }

    /// `count` bytes of every value, not valid UTF-8 (httpbin echoes them as base64).
    static func binary(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
    }

    /// The bytes httpbin echoes as a string: the text itself, or a `data:…;base64,` URL for other bytes.
    static func echoedBytes(_ value: Any?) -> Data? {
        guard let text = value as? String else { return nil }
        if text.hasPrefix("data:"), let comma = text.range(of: ";base64,") {
            return Data(base64Encoded: String(text[comma.upperBound...]))
        }
        return Data(text.utf8)
    }

    /// `data` in chunks of `size` bytes, as a one-shot stream.
    static func chunks(_ data: Data, size: Int) -> AsyncStream<Data> {
        AsyncStream { continuation in
            var start = data.startIndex
            while start < data.endIndex {
                let end = min(start + size, data.endIndex)
                continuation.yield(data[start..<end])
                start = end
            }
            continuation.finish()
        }
    }

    /// A fresh folder for one check's files; `nil` (after recording a failure) when it cannot be made.
    func temporaryFolder() -> URL? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-conformance-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return folder
        } catch {
            fail("could not create a temporary folder: \(error)")
            return nil
        }
    }

    /// Writes `data` to `name` in `folder`.
    func file(_ name: String, in folder: URL, _ data: Data) -> URL? {
        let url = folder.appendingPathComponent(name)
        do {
            try data.write(to: url)
            return url
        } catch {
            fail("could not write \(url.path): \(error)")
            return nil
        }
    }

    /// Reads `progress` in a task of its own, as a user would.
    static func watch(_ progress: TransferProgress) -> Task<[TransferProgress.Snapshot], Never> {
        Task {
            var seen: [TransferProgress.Snapshot] = []
            for await snapshot in progress { seen.append(snapshot) }
            return seen
        }
    }

    /// The snapshots `watcher` saw; if the sequence has not ended within `limit`, the reader stops there (its
    /// last snapshot is then not finished).
    static func snapshots(
        _ watcher: Task<[TransferProgress.Snapshot], Never>, within limit: Duration = .seconds(5)
    ) async -> [TransferProgress.Snapshot] {
        let timer = Task {
            try? await Task.sleep(for: limit)
            watcher.cancel()
        }
        defer { timer.cancel() }
        return await watcher.value
    }

    /// Records what is wrong with the snapshots of a transfer of `bytes` (sent or received).
    func expectProgress(
        _ seen: [TransferProgress.Snapshot], _ label: String, sent: Int64? = nil, received: Int64? = nil
    ) {
        guard let last = seen.last else { return fail("\(label): the progress yielded nothing") }
        expect(last.isFinished, "\(label): the progress did not end with the call (last: \(last))")
        if let sent {
            expect(last.sent == sent, "\(label): \(last.sent) bytes sent reported, expected \(sent)")
            expect(
                last.expectedToSend == sent,
                "\(label): expected to send \(last.expectedToSend.map(String.init) ?? "nil"), not \(sent)")
            expect(
                zip(seen, seen.dropFirst()).allSatisfy { $0.sent <= $1.sent },
                "\(label): bytes sent went down: \(seen.map(\.sent))")
        }
        if let received {
            expect(
                last.received == received, "\(label): \(last.received) bytes received reported, expected \(received)")
            expect(
                last.expectedToReceive == received,
                "\(label): expected to receive \(last.expectedToReceive.map(String.init) ?? "nil"), not \(received)")
            expect(
                zip(seen, seen.dropFirst()).allSatisfy { $0.received <= $1.received },
                "\(label): bytes received went down: \(seen.map(\.received))")
        }
    }
}
