import Courier
import Foundation

// The transfer checks themselves, one method per transfer ``ExecutorConformance/Check``.
extension ExecutorConformance.Context {
    func fileAndStreamBodies() async {
        guard let folder = temporaryFolder() else { return }
        defer { try? FileManager.default.removeItem(at: folder) }
        let content = Self.binary(256 * 1024)
        guard let url = file("body.bin", in: folder, content) else { return }

        let fileLabel = "PUT /anything/file with a file body"
        if let response = await transfer(
            fileLabel, needs: .fileBodies,
            { configuration, _ in
                try await Self.fileUpload.request(with: url, using: configuration) as APIResponse
            }), let echo = json(response, fileLabel)
        {
            expectEcho(echo, fileLabel, method: "PUT", content: content, length: content.count)
        }

        for count in [content.count, nil] {
            let label = "POST /anything/stream with a stream body \(count == nil ? "without a count" : "with a count")"
            guard
                let response = await transfer(
                    label, needs: .streamedBodies,
                    { configuration, _ in
                        try await Self.streamUpload.request(
                            with: (Self.chunks(content, size: 7_000), count), using: configuration) as APIResponse
                    }), let echo = json(response, label)
            else { continue }
            expectEcho(echo, label, method: "POST", content: content, length: count)
        }
    }

    /// Records what is wrong with httpbin's echo of an upload.
    private func expectEcho(_ echo: [String: Any], _ label: String, method: String, content: Data, length: Int?) {
        expect(echo["method"] as? String == method, "\(label): the server saw \(echo["method"] ?? "no method")")
        let arrived = Self.echoedBytes(echo["data"])
        expect(
            arrived == content,
            "\(label): the server got \(arrived?.count ?? 0) bytes, not the \(content.count) sent (or other bytes)")
        if let length {
            expect(
                Self.header("Content-Length", in: echo) == String(length),
                "\(label): Content-Length \(Self.header("Content-Length", in: echo) ?? "missing"), expected \(length)")
        }
    }

    func multipartBody() async {
        guard let folder = temporaryFolder() else { return }
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = String(repeating: "a line of the file part ✓\n", count: 4_000)
        guard let url = file("part.txt", in: folder, Data(text.utf8)) else { return }
        let bytes = Data("bytes from memory ✓".utf8)
        let label = "POST /post with a multipart form"

        guard
            let (response, length) = await transfer(
                label, needs: .streamedBodies,
                { configuration, _ in
                    let length = try Self.form.makeRequest(with: (url, bytes), using: configuration).body.count
                    let response: APIResponse = try await Self.form.request(with: (url, bytes), using: configuration)
                    return (response, length)
                }), let echo = json(response, label)
        else { return }
        let form = echo["form"] as? [String: Any] ?? [:]
        let files = echo["files"] as? [String: Any] ?? [:]
        expect(
            form["title"] as? String == "Zoë & \"co\"", "\(label): field title arrived as \(form["title"] ?? "nothing")"
        )
        expect(form["count"] as? String == "3", "\(label): field count arrived as \(form["count"] ?? "nothing")")
        expect(
            files["text"] as? String == text,
            "\(label): the file part arrived with \((files["text"] as? String)?.utf8.count ?? 0) of \(text.utf8.count) bytes"
        )
        expect(
            files["bytes"] as? String == String(decoding: bytes, as: UTF8.self),
            "\(label): the data part arrived as \(files["bytes"] ?? "nothing")")
        let contentType = Self.header("Content-Type", in: echo) ?? ""
        expect(
            contentType.hasPrefix("multipart/form-data; boundary="), "\(label): Content-Type \(contentType)")
        if let length {
            expect(
                Self.header("Content-Length", in: echo) == String(length),
                "\(label): Content-Length \(Self.header("Content-Length", in: echo) ?? "missing"), expected \(length)")
        }
    }

    func streamedResponse() async {
        // In order and complete: /range in 2 KiB chunks (the same bytes on every request).
        let count = 64 * 1024
        let label = "GET /range/\(count) as a stream"
        if let received = await transfer(
            label, needs: .streamedResponses,
            { configuration, _ in
                var received = Data()
                for try await chunk in try await Self.range.stream(with: (count, 0), using: configuration) {
                    received.append(chunk)
                }
                return received
            })
        {
            expect(
                received == Self.rangeBytes(count),
                "\(label): \(received.count) of \(count) bytes, or not in order")
        }

        // Handed over as it arrives: the first of 4 bytes dripped over 4 s comes well before the last (a second apart:
        // a test process that holds its threads for over 3 s on a loaded machine still sees them apart).
        let dripLabel = "GET /drip (4 bytes over 4 s) as a stream"
        if let (bytes, first, total) = await transfer(
            dripLabel, needs: .streamedResponses,
            { configuration, _ in
                let start = ContinuousClock.now
                var first: Duration?
                var bytes = Data()
                for try await chunk in try await Self.drip.stream(with: (4, 4), using: configuration) {
                    if first == nil, !chunk.isEmpty { first = ContinuousClock.now - start }
                    bytes.append(chunk)
                }
                return (bytes, first, ContinuousClock.now - start)
            })
        {
            expect(bytes == Data("****".utf8), "\(dripLabel): received \(bytes.count) bytes, expected ****")
            expect(
                total - (first ?? total) >= .milliseconds(400),
                "\(dripLabel): the first byte came after \(first.map { "\($0)" } ?? "never"), the stream ended after \(total); expected the first byte long before the end"
            )
        }

        // Leaving early: the loop ends at once, and the call does not run on to the end of a 10 s body.
        let earlyLabel = "GET /drip (10 bytes over 10 s) left after the first chunk"
        if let elapsed = await transfer(
            earlyLabel, needs: .streamedResponses,
            { configuration, _ in
                let start = ContinuousClock.now
                for try await chunk in try await Self.drip.stream(with: (10, 10), using: configuration)
                where !chunk.isEmpty {
                    break
                }
                return ContinuousClock.now - start
            })
        {
            expect(elapsed < .seconds(4), "\(earlyLabel): leaving the loop took until \(elapsed)")
        }
    }

    func downloadToFile() async {
        guard let folder = temporaryFolder() else { return }
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = 100_000
        let expected = Self.rangeBytes(count)

        // Complete, at the destination.
        let destination = folder.appendingPathComponent("range.bin")
        let label = "download of GET /range/\(count)"
        if let response = await transfer(
            label, needs: .fileResponses,
            { configuration, _ in
                try await Self.range.download(with: (count, 0), to: destination, using: configuration)
            })
        {
            expect(response.statusCode == 200, "\(label): status \(response.statusCode)")
            expect(response.body.fileURL == destination, "\(label): the response body is not the destination file")
            let written = try? Data(contentsOf: destination)
            expect(written == expected, "\(label): the file has \(written?.count ?? 0) of \(count) bytes, or others")
        }

        // A 404 fails, and leaves the file under the final name as it was.
        let kept = folder.appendingPathComponent("kept.bin")
        let old = Data("the file from before".utf8)
        _ = file("kept.bin", in: folder, old)
        let missingLabel = "download of GET /status/404"
        if let error = await transfer(
            missingLabel, needs: .fileResponses,
            { configuration, _ -> APIError? in
                do {
                    try await Self.status.download(with: 404, to: kept, using: configuration)
                    return nil
                } catch let error as APIError {
                    // Not supported: rethrown for the gate to see.
                    if error.reason == .transport(.unsupportedByExecutor) { throw error }
                    return error
                }
            })
        {
            expect(
                error?.reason == .unacceptableStatus(.notFound),
                "\(missingLabel): \(error.map { "\($0.reason)" } ?? "succeeded")")
            expect((try? Data(contentsOf: kept)) == old, "\(missingLabel): the file under the final name changed")
        }

        await resumedDelivery(folder: folder, count: count, expected: expected)
        await resumedDownload(folder: folder, count: count, expected: expected)
    }

    func downloadIdleTimeout() async {
        guard let folder = temporaryFolder() else { return }
        defer { try? FileManager.default.removeItem(at: folder) }
        let faultServer = servers.faultServer
        // 48 bytes, one every 0.25 s: about 12 s in all, more than twice the 5 s timeout. The 5 s idle timeout is 20
        // times the interval, and the timeout leaves the head 5 s: a loaded machine (a whole test suite in parallel
        // against one fault server) delayed both by over 2 s.
        let drip = GET<Void>("/slow-body?bytes=48&interval=0.25")
        let destination = folder.appendingPathComponent("drip.txt")

        let idleLabel = "download of /slow-body (48 bytes over 12 s) with a 5 s timeout and a 5 s idle timeout"
        if let response = await transfer(
            idleLabel, needs: .fileResponses, timeout: .seconds(5),
            { configuration, _ in
                var configuration = configuration
                configuration.baseURL = faultServer
                return try await drip.download(to: destination, idleTimeout: .seconds(5), using: configuration)
            })
        {
            expect(response.statusCode == 200, "\(idleLabel): status \(response.statusCode)")
            let written = try? Data(contentsOf: destination)
            expect(
                written == Data(repeating: UInt8(ascii: "."), count: 48),
                "\(idleLabel): the file has \(written?.count ?? 0) of 48 bytes, or others")
        }

        // A stall: 2 bytes, then nothing (the server waits for the client to leave).
        let stalled = folder.appendingPathComponent("stall.txt")
        let stallLabel = "download of /slow-body stalling after 2 bytes with a 15 s timeout and a 1 s idle timeout"
        if let (reason, elapsed) = await transfer(
            stallLabel, needs: .fileResponses, timeout: .seconds(15),
            { configuration, _ in
                var configuration = configuration
                configuration.baseURL = faultServer
                let start = ContinuousClock.now
                let reason = try await Self.failureReason {
                    try await GET<Void>("/slow-body?bytes=6&interval=0.05&stall=2").download(
                        to: stalled, idleTimeout: .seconds(1), using: configuration)
                }
                return (reason, ContinuousClock.now - start)
            })
        {
            expect(
                reason == .transport(.timedOut) && elapsed < .seconds(8),
                "\(stallLabel): \(reason.map { "\($0)" } ?? "succeeded") after \(elapsed), expected timedOut after about 1 s"
            )
            expect(
                !FileManager.default.fileExists(atPath: stalled.path),
                "\(stallLabel): the stalled download left a file under the final name")
        }
    }

    /// Why `operation` failed, `nil` when it succeeded; a call the executor does not support is rethrown, for
    /// ``transfer(_:needs:timeout:_:)`` to see.
    static func failureReason(_ operation: () async throws -> Void) async throws -> APIError.Reason? {
        do {
            try await operation()
            return nil
        } catch let error as APIError {
            if error.reason == .transport(.unsupportedByExecutor) { throw error }
            return error.reason
        }
    }

    /// `ResponseDelivery.file(_:resumingAt:idleTimeout:willWrite:)` with an offset: a `206` is appended after the
    /// first bytes, a `200` replaces the whole file.
    private func resumedDelivery(folder: URL, count: Int, expected: Data) async {
        let offset = 30_000
        for ranged in [true, false] {
            let label =
                ranged
                ? "GET /range/\(count) with Range: bytes=\(offset)- to a file resumed at \(offset)"
                : "GET /range/\(count) without Range to a file resumed at \(offset) (a 200)"
            let prefix = ranged ? expected.prefix(offset) : Data(repeating: UInt8(ascii: "Z"), count: offset)
            guard let url = file("resumed-\(ranged).bin", in: folder, prefix) else { continue }
            guard
                let response = await transfer(
                    label, needs: .fileResponses,
                    { configuration, _ in
                        var request = try Self.range.makeRequest(with: (count, 0), using: configuration)
                        if ranged { request.headers["Range"] = "bytes=\(offset)-" }
                        request.responseDelivery = .file(url, resumingAt: Int64(offset))
                        return try await request.send(using: configuration)
                    })
            else { continue }
            expect(response.statusCode == (ranged ? 206 : 200), "\(label): status \(response.statusCode)")
            let written = try? Data(contentsOf: url)
            expect(
                written == expected,
                "\(label): the file has \(written?.count ?? 0) bytes, expected the \(count) of the whole body")
        }
    }

    /// A download cancelled midway keeps its partial file and resumes from it with `Range`, ending complete.
    private func resumedDownload(folder: URL, count: Int, expected: Data) async {
        let destination = folder.appendingPathComponent("slow.bin")
        let partial = folder.appendingPathComponent(".slow.bin.courier-partial")
        let label = "download of GET /range/\(count) over 2 s, cancelled midway, then again"
        let watchesProgress = executor.supportedTransfers.contains(.progress)
        let outcome = await transfer(label, needs: .fileResponses) { configuration, probe in
            // Cancelled once 16 KiB have arrived (by the progress; without one, after a second).
            let progress = watchesProgress ? TransferProgress() : nil
            let first = Task {
                try await Self.range.download(
                    with: (count, 2), to: destination, progress: progress, using: configuration)
            }
            if let progress {
                let reached = Task {
                    for await snapshot in progress where snapshot.received >= 16_384 || snapshot.isFinished { break }
                }
                _ = await ExecutorConformance.bounded(.seconds(5)) { await reached.value }
                reached.cancel()
            } else {
                try? await Task.sleep(for: .seconds(1))
            }
            first.cancel()
            if case .failure(let error as APIError) = await first.result,
                error.reason == .transport(.unsupportedByExecutor)
            {
                throw error
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: partial.path)
            let kept = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            let leftBehind = FileManager.default.fileExists(atPath: destination.path)
            let response = try await Self.range.download(with: (count, 2), to: destination, using: configuration)
            return (kept, leftBehind, response, probe.requests.last?.headers["Range"])
        }
        guard let (kept, leftBehind, response, range) = outcome else { return }
        expect(kept > 0, "\(label): the cancelled download kept no partial file to resume")
        expect(!leftBehind, "\(label): the cancelled download left a file under the final name")
        expect(
            response.statusCode == 206 && range == "bytes=\(kept)-",
            "\(label): the second download was a \(response.statusCode) with Range \(range ?? "missing"), expected a 206 for bytes=\(kept)-"
        )
        let final = try? Data(contentsOf: destination)
        expect(final == expected, "\(label): the file has \(final?.count ?? 0) of \(count) bytes, or others")
    }

    func progressReported() async {
        guard let folder = temporaryFolder() else { return }
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = 64 * 1024

        let downloadLabel = "download of GET /range/\(count) with progress"
        let destination = folder.appendingPathComponent("progress.bin")
        if let seen = await transfer(
            downloadLabel, needs: [.fileResponses, .progress],
            { configuration, _ in
                let progress = TransferProgress()
                let watcher = Self.watch(progress)
                try await Self.range.download(
                    with: (count, 0), to: destination, progress: progress, using: configuration)
                return await Self.snapshots(watcher)
            })
        {
            expectProgress(seen, downloadLabel, received: Int64(count))
        }

        let streamLabel = "stream of GET /range/\(count) with progress"
        if let seen = await transfer(
            streamLabel, needs: [.streamedResponses, .progress],
            { configuration, _ in
                let progress = TransferProgress()
                let watcher = Self.watch(progress)
                for try await _ in try await Self.range.stream(
                    with: (count, 0), progress: progress, using: configuration)
                {}
                return await Self.snapshots(watcher)
            })
        {
            expectProgress(seen, streamLabel, received: Int64(count))
        }

        let content = Self.binary(512 * 1024)
        guard let url = file("upload.bin", in: folder, content) else { return }
        let uploadLabel = "PUT /anything/file with a file body and progress"
        if let seen = await transfer(
            uploadLabel, needs: [.fileBodies, .progress],
            { configuration, _ in
                let progress = TransferProgress()
                let watcher = Self.watch(progress)
                try await Self.fileUpload.request(with: url, progress: progress, using: configuration)
                return await Self.snapshots(watcher)
            })
        {
            expectProgress(seen, uploadLabel, sent: Int64(content.count))
        }
    }

    func redirectedUploads() async {
        guard let folder = temporaryFolder() else { return }
        defer { try? FileManager.default.removeItem(at: folder) }
        let content = Data(String(repeating: "a file body that goes twice ✓\n", count: 2_000).utf8)
        guard let url = file("redirected.txt", in: folder, content) else { return }

        let fileLabel = "POST /redirect-to?status_code=307 with a file body"
        if let response = await transfer(
            fileLabel, needs: .fileBodies,
            { configuration, _ in
                try await Self.redirectedFile.request(with: url, using: configuration) as APIResponse
            })
        {
            if response.statusCode == 200, let echo = json(response, fileLabel) {
                expectEcho(echo, fileLabel, method: "POST", content: content, length: content.count)
            } else {
                fail("\(fileLabel): the 307 was not followed with the file sent again (status \(response.statusCode))")
            }
        }

        let streamLabel = "POST /redirect-to?status_code=307 with a one-shot stream body"
        if let response = await transfer(
            streamLabel, needs: .streamedBodies,
            { configuration, _ in
                try await Self.redirectedStream.request(
                    with: Self.chunks(Data("hello world".utf8), size: 6), using: configuration) as APIResponse
            })
        {
            expect(
                response.statusCode == 307,
                "\(streamLabel): status \(response.statusCode), expected the 307 itself (a one-shot body cannot be sent again)"
            )
            expect(
                response.headers[.location] == "/anything",
                "\(streamLabel): Location \(response.headers[.location] ?? "missing")")
        }
    }
}
