import Foundation

// A stream whose reader falls behind a transport that cannot pause (FoundationNetworking's): Courier cancels the
// transfer once its unread bytes pass a few windows, and asks for the rest with `Range` and `If-Range` when the
// reader has caught up. Only a response that can be asked for so: see `StreamResumption`.
extension TransportCall {
    /// The unread bytes of a transport's stream past which it is cancelled, to be asked for again from the reader's
    /// position: a few windows, so that a reader a little slower than the network does not reconnect every few
    /// hundred kilobytes.
    static var pauseBytes: Int { 4 * ResponseStream.windowBytes }

    /// The reader's stream over `first`, the body of the answer to `hop`, with the bytes received reported to the
    /// request's progress; with `resumption`, it asks for the rest again whenever a transport that cannot pause runs
    /// ``pauseBytes`` ahead of the reader.
    func relayedStream(
        _ first: ResponseStream, of hop: APIRequest, resumption: StreamResumption?, expected: Int64?
    ) -> ResponseStream {
        let pump = LockedBox<Task<Void, Never>?>(nil)
        let (stream, continuation) = ResponseStream.makeStream(for: request) { pump.value?.cancel() }
        let task = Task {
            do {
                try await self.relay(first, of: hop, into: continuation, resumption: resumption, expected: expected)
                request.progress?.finish()
                continuation.finish()
            } catch {
                request.progress?.finish()
                continuation.finish(throwing: error)
            }
        }
        pump.value = task
        if continuation.isCancelled { task.cancel() }
        return stream
    }

    /// Hands the transport's chunks on to the reader's stream as the transport yields them, from `first` and each
    /// response asked for again.
    private func relay(
        _ first: ResponseStream, of hop: APIRequest, into reader: ResponseStream.Continuation,
        resumption: StreamResumption?, expected: Int64?
    ) async throws {
        var current = first
        var resumption = resumption
        // The bytes handed to the reader, and those of a whole body sent again that it already has.
        let counts = LockedBox((position: Int64(0), skip: Int64(0)))
        while true {
            current.handle.buffer.forgoEndRecord()
            let resumes = resumption != nil
            do {
                try await current.handle.buffer.consume(
                    { chunk in
                        let (position, fresh) = counts.withLock { counts -> (Int64, Data) in
                            let dropped = Int(min(counts.skip, Int64(chunk.count)))
                            counts.skip -= Int64(dropped)
                            counts.position += Int64(chunk.count - dropped)
                            return (counts.position, dropped == 0 ? chunk : chunk.dropFirst(dropped))
                        }
                        guard !fresh.isEmpty else { return true }
                        self.request.progress?.reportReceived(position, expected: expected)
                        if reader.yield(fresh) { return true }
                        // The reader is behind: a transport that pauses waits for it, one that does not is stopped
                        // once it runs far enough ahead, and asked for the rest later.
                        if resumes, reader.unreadBytes > Self.pauseBytes { throw Overran() }
                        return false
                    },
                    whenDrained: { reader.whenDrained($0) })
                return
            } catch is Overran {
                // The transfer is cancelled; the reader takes what it has first.
            }
            guard let asked = resumption else { return }
            await Self.drained(reader)
            try Task.checkCancellation()
            let position = counts.withLock { $0.position }
            var again = hop
            again.headers["Range"] = "bytes=\(position)-"
            again.headers["If-Range"] = asked.validator
            if let idle = request.responseDelivery.idleTimeout { again.timeout = idle }
            let response = try await transport.send(again)
            guard let next = response.body.stream else { throw changed(response, at: position) }
            if response.statusCode == 206, ContentRange(response.headers["Content-Range"])?.start == position {
                current = next
            } else if response.statusCode == 200, asked.matches(response) {
                // The whole body again: its first bytes are dropped, and the stream is not stopped again.
                counts.withLock { $0.skip = position }
                resumption = nil
                current = next
            } else {
                throw changed(response, at: position)
            }
        }
    }

    /// Waits until the reader drained its window.
    private static func drained(_ reader: ResponseStream.Continuation) async {
        await withCheckedContinuation { (caughtUp: CheckedContinuation<Void, Never>) in
            reader.whenDrained { caughtUp.resume() }
        }
    }

    /// The error of a response to a stream asked for again that does not continue it.
    private func changed(_ response: APIResponse, at position: Int64) -> APIError {
        APIError(
            .transport(.other), endpoint: request.endpoint, request: request,
            underlyingError: DownloadProblem(
                description: "a \(response.statusCode) response that does not continue the stream at \(position) bytes"
            ))
    }
}

/// The transport ran ``TransportCall/pauseBytes`` ahead of the reader of a stream that is asked for again.
private struct Overran: Error {}

/// How a streamed response is asked for again from a later byte: only a `GET` whose `200` declares its length (no
/// content coding), accepts byte ranges, names a validator (a strong `ETag`, else `Last-Modified`), and was not
/// itself a range.
struct StreamResumption: Sendable {
    /// The `If-Range` value: the response's strong `ETag` or its `Last-Modified`.
    let validator: String
    /// The length of the whole body.
    let length: Int64

    init?(_ response: APIResponse, of hop: APIRequest, declaredLength: Int64?) {
        guard hop.method == .get, response.statusCode == 200, let length = declaredLength, length > 0,
            hop.headers["Range"] == nil,
            let ranges = response.headers["Accept-Ranges"],
            ranges.lowercased().split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == "bytes"
            })
        else { return nil }
        if let tag = response.headers["ETag"], tag.hasPrefix("\"") {
            validator = tag
        } else if let modified = response.headers["Last-Modified"], !modified.isEmpty {
            validator = modified
        } else {
            return nil
        }
        self.length = length
    }

    /// Whether `response` (a `200`) is the same whole body again.
    func matches(_ response: APIResponse) -> Bool {
        (response.headers["ETag"] == validator || response.headers["Last-Modified"] == validator)
            && response.headers[.contentLength].flatMap({ Int64($0) }) == length
            && response.headers["Content-Encoding"] == nil
    }
}
