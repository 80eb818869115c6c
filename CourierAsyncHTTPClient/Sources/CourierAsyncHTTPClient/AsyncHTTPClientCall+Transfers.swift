import AsyncHTTPClient
@_spi(CourierInternals) import Courier
import Foundation
import NIOConcurrencyHelpers
import NIOCore

// Response bodies handed over as a stream or written to a file (`APIRequest.responseDelivery`), and progress.
extension AsyncHTTPClientCall {
    /// Hands the response over with its body as a ``Courier/ResponseStream``: the call's deadline ends with the
    /// head, the stream's idle timeout takes over. A task of its own feeds the stream; it waits while the
    /// reader's window is full, and AsyncHTTPClient stops reading from the socket meanwhile, so memory stays
    /// bounded however long the stream. A reader that stops early cancels the task, and with it the request.
    func stream(_ response: HTTPClientResponse, headers: Courier.HTTPHeaders, url: URL, expected: Int64?) -> APIResponse
    {
        let pump = NIOLockedValueBox<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))
        let (stream, continuation) = ResponseStream.makeStream(for: request) {
            let task = pump.withLockedValue { state -> Task<Void, Never>? in
                state.cancelled = true
                return state.task
            }
            task?.cancel()
        }
        let body = response.body
        let progress = request.progress
        let task = Task {
            var received: Int64 = 0
            do {
                for try await chunk in body {
                    try Task.checkCancellation()
                    received += Int64(chunk.readableBytes)
                    progress?.reportReceived(received, expected: expected)
                    await continuation.send(chunk.withUnsafeReadableBytes { Data($0) })
                }
                // A cancelled body sequence may end early instead of throwing.
                try Task.checkCancellation()
                // The progress ends before the stream does, so a reader that sees the end sees it finished.
                progress?.finish()
                continuation.finish()
            } catch {
                progress?.finish()
                continuation.finish(throwing: self.failure(error))
            }
        }
        let cancelled = pump.withLockedValue { state -> Bool in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
        return APIResponse(
            statusCode: Int(response.status.code), headers: headers, body: .stream(stream), url: url, request: request)
    }

    /// Writes the body to `file`: after its first `offset` bytes for a `206` whose `Content-Range` continues
    /// them, else from the start. Memory stays bounded by one chunk. The call's deadline covers the download, or,
    /// with `idle`, the head only: from here on each chunk must come within the idle timeout of the last.
    func download(
        _ response: HTTPClientResponse,
        headers: Courier.HTTPHeaders,
        url: URL,
        to file: URL,
        resumingAt offset: Int64,
        expected length: Int64?,
        idle: IdleTimer?
    ) async throws -> APIResponse {
        idle?.headArrived()
        let statusCode = Int(response.status.code)
        var start: Int64 = 0
        if statusCode == 206 {
            guard offset > 0, Self.contentRangeStart(headers["Content-Range"]) == offset else {
                throw APIError(
                    .transport(.other), endpoint: request.endpoint, request: request,
                    underlyingError: DownloadMismatch(offset: offset, contentRange: headers["Content-Range"]))
            }
            start = offset
        }
        let handle: FileHandle
        do {
            if !FileManager.default.fileExists(atPath: file.path) {
                guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                    throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file.path])
                }
            }
            handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: UInt64(start))
            try handle.seekToEnd()
        } catch {
            throw APIError(.transport(.other), endpoint: request.endpoint, request: request, underlyingError: error)
        }
        request.responseDelivery.willWrite?(
            APIResponse(statusCode: statusCode, headers: headers, url: url, request: request))
        let expected = length.map { $0 + start }
        var received = start
        request.progress?.reportReceived(received, expected: expected)
        var writer = GatheringFileWriter(handle: handle, length: UInt64(start))
        do {
            for try await chunk in response.body {
                idle?.bytesArrived()
                try writer.append(chunk)
                received += Int64(chunk.readableBytes)
                request.progress?.reportReceived(received, expected: expected)
            }
            try writer.flush()
            try handle.close()
        } catch {
            // The bytes gathered so far are the file's next ones: kept, so that a later attempt resumes after them.
            writer.flushKeepingGoodBytes()
            try? handle.close()
            throw failure(error)
        }
        // A cancelled body sequence may end early instead of throwing.
        if let stop = stopped.withLockedValue({ $0 }) { throw self.error(for: stop) }
        return APIResponse(statusCode: statusCode, headers: headers, body: .file(file), url: url, request: request)
    }

    /// The first byte position of a `Content-Range: bytes START-END/TOTAL` header.
    static func contentRangeStart(_ value: String?) -> Int64? {
        guard let value, value.lowercased().hasPrefix("bytes ") else { return nil }
        let range = value.dropFirst("bytes ".count)
        guard let dash = range.firstIndex(of: "-") else { return nil }
        return Int64(range[..<dash].trimmingCharacters(in: .whitespaces))
    }
}

/// Why a download failed: the server answered a resumed download with a `206` that does not continue the file
/// where it stopped.
public struct DownloadMismatch: Error, Sendable, CustomStringConvertible {
    /// Where the file was to continue.
    public let offset: Int64
    /// The `Content-Range` the server sent, if any.
    public let contentRange: String?

    /// A short English description.
    public var description: String {
        "a 206 response whose Content-Range (\(contentRange ?? "none")) does not continue the file at \(offset)"
    }
}

/// A request body read chunk by chunk (a file, a stream, a multipart form), as AsyncHTTPClient sends it: an error
/// while reading becomes ``BodyReadFailure``, so that the call fails with `.invalidRequest(.unreadableBody)`.
struct StreamedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let body: RequestBody
    /// Where the bytes handed to the client are reported, as they are.
    let progress: TransferProgress?

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: RequestBodyChunks.AsyncIterator
        let progress: TransferProgress?
        let expected: Int64?
        /// The bytes handed to the client so far.
        var sent: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            do {
                // The client asks for the next chunk once it has taken the last one: count that one as sent.
                progress?.reportSent(sent, expected: expected)
                guard let chunk = try await chunks.next() else { return nil }
                sent += Int64(chunk.count)
                return ByteBuffer(bytes: chunk)
            } catch let error as APIError {
                throw error
            } catch {
                throw BodyReadFailure(underlying: error)
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            chunks: body.chunks().makeAsyncIterator(), progress: progress, expected: body.count.map { Int64($0) })
    }
}

/// The request body could not be read while it was sent.
struct BodyReadFailure: Error {
    let underlying: any Error
}

/// Writes a download's chunks to its file, gathered into writes of up to 1 MiB: chunks arrive as the socket
/// gives them (tens of KiB), so this is a twentieth of the system calls, with at most 1 MiB held in memory.
struct GatheringFileWriter {
    /// How many bytes are gathered before they are written.
    static let writeSize = 1 << 20

    private let handle: FileHandle
    private var pending = ByteBuffer()
    /// The file's length in bytes known to be good: a write that fails may leave part of its bytes.
    private var length: UInt64

    init(handle: FileHandle, length: UInt64) {
        self.handle = handle
        self.length = length
    }

    /// Gathers `chunk`, and writes what is gathered once it reaches ``writeSize``.
    mutating func append(_ chunk: ByteBuffer) throws {
        if pending.readableBytes == 0, chunk.readableBytes >= Self.writeSize {
            try write(chunk)
            return
        }
        pending.writeImmutableBuffer(chunk)
        if pending.readableBytes >= Self.writeSize { try flush() }
    }

    /// Writes what is gathered.
    mutating func flush() throws {
        guard pending.readableBytes > 0 else { return }
        let bytes = pending
        pending.clear()
        try write(bytes)
    }

    /// After a failure: writes what is gathered, unless a write fails, which leaves the file at its good bytes.
    mutating func flushKeepingGoodBytes() {
        do {
            try flush()
        } catch {
            // `write` cut the file back to its good bytes.
        }
    }

    private mutating func write(_ bytes: ByteBuffer) throws {
        do {
            try bytes.withUnsafeReadableBytes { try handle.write(contentsOf: $0) }
            length += UInt64(bytes.readableBytes)
        } catch {
            // Cut what the failed write left, so that a later attempt resumes after good bytes only.
            try? handle.truncate(atOffset: length)
            throw error
        }
    }
}
