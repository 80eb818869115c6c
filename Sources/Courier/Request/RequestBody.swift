import Foundation

/// The body of a request: nothing, bytes in memory, a file streamed from disk, a one-shot stream of byte
/// chunks, or a multipart form streamed part by part.
///
/// Only an in-memory body is ever held whole. The others are read in chunks of at most
/// 64 KiB while they are sent, so a 1 GB upload needs no more memory than a small one.
///
/// ```swift
/// let photo = RequestBody.file(URL(fileURLWithPath: "/tmp/photo.jpg"))   // read from disk while it is sent
/// let bytes = RequestBody.data(Data("hello".utf8))
/// let live = RequestBody.stream(microphoneChunks, count: nil)            // any AsyncSequence of Data
/// ```
///
/// A body is *replayable* when it can be sent again from the start (data, a file, a multipart form of those):
/// only those are retried or follow a redirect that repeats the body. A stream is read once; reading it again
/// fails with ``APIError/RequestProblem/unreadableBody``.
///
/// Executors read any body with `chunks()` and declare the kinds they send in
/// ``APIExecutor/supportedTransfers`` (``TransferFeatures/fileBodies``, ``TransferFeatures/streamedBodies``): a
/// request with a body its executor does not declare fails with ``APIError/TransportProblem/unsupportedByExecutor``
/// before any I/O, instead of being buffered.
public struct RequestBody: Sendable, Hashable {
    enum Storage: Sendable, Hashable {
        case empty
        case data(Data)
        /// A file and the size it had when the body was made (`nil` when it could not be read then).
        case file(URL, count: Int?)
        case stream(OneShotStream)
        case multipart(MultipartForm)
    }

    let storage: Storage

    /// The largest chunk ``chunks()`` yields and executors read at once: 64 KiB.
    public static let chunkSize = 65_536

    /// No body.
    public static let empty = RequestBody(storage: .empty)

    /// A body held in memory.
    public static func data(_ data: Data) -> RequestBody {
        RequestBody(storage: .data(data))
    }

    /// A file, read from disk in chunks while it is sent; its size is taken now and sent as `Content-Length`.
    ///
    /// Building a request with a file that cannot be read fails with
    /// ``APIError/RequestProblem/unreadableBody`` before anything is sent.
    public static func file(_ url: URL) -> RequestBody {
        RequestBody(storage: .file(url, count: fileSize(url)))
    }

    /// A one-shot stream of byte chunks, sent as they come (with `Content-Length` when `count` is given,
    /// chunked otherwise). It is read once: a request with a stream body is never retried.
    ///
    /// - Parameters:
    ///   - chunks: Any `AsyncSequence` of `Data`; empty chunks are skipped.
    ///   - count: The total number of bytes, when known. A stream that yields another number of bytes fails.
    public static func stream<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, count: Int? = nil) -> RequestBody
    where Chunks.Element == Data {
        RequestBody(storage: .stream(OneShotStream(chunks, count: count)))
    }

    /// A `multipart/form-data` body, streamed part by part.
    public static func multipart(_ form: MultipartForm) -> RequestBody {
        RequestBody(storage: .multipart(form))
    }

    /// The bytes of an in-memory body; `nil` when there is no body or the body is a file, stream or form.
    public var data: Data? {
        switch storage {
        case .data(let data): data
        case .empty, .file, .stream, .multipart: nil
        }
    }

    /// The file of a file body.
    public var fileURL: URL? {
        if case .file(let url, _) = storage { return url }
        return nil
    }

    /// The form of a multipart body.
    public var multipartForm: MultipartForm? {
        if case .multipart(let form) = storage { return form }
        return nil
    }

    /// Whether the body is a one-shot stream (see ``stream(_:count:)``).
    public var isStream: Bool {
        if case .stream = storage { return true }
        return false
    }

    /// Whether there is no body (or an empty one held in memory, or a known-empty file or stream).
    public var isEmpty: Bool {
        switch storage {
        case .empty: true
        case .data(let data): data.isEmpty
        case .file(_, let count): count == 0
        case .stream(let stream): stream.count == 0
        case .multipart: false
        }
    }

    /// The size in bytes, when known: always for data and readable files, for a stream when it was given,
    /// for a multipart form when every part's size is known.
    public var count: Int? {
        switch storage {
        case .empty: 0
        case .data(let data): data.count
        case .file(_, let count): count
        case .stream(let stream): stream.count
        case .multipart(let form): form.count
        }
    }

    /// Whether the body is held in memory whole (no body, or ``data(_:)``): every executor can send it.
    public var isInMemory: Bool {
        switch storage {
        case .empty, .data: true
        case .file, .stream, .multipart: false
        }
    }

    /// Whether the body can be sent again from the start: everything but a stream, or a form holding one.
    /// Retries and redirects that repeat the body need it.
    public var isReplayable: Bool {
        switch storage {
        case .empty, .data, .file: true
        case .stream: false
        case .multipart(let form): form.parts.allSatisfy { $0.content.isReplayable }
        }
    }

    /// The body's bytes, in chunks of at most ``chunkSize`` bytes, read while the sequence is iterated: a file
    /// from disk, a form part by part. Iterate it once per send; each call starts from the beginning (a
    /// stream can be read by one call only: the next fails with ``APIError/RequestProblem/unreadableBody``).
    public func chunks() -> RequestBodyChunks {
        RequestBodyChunks(body: self)
    }

    /// Whether the body is or contains a one-shot stream, whose chunks are awaited while it is sent.
    var holdsStream: Bool {
        switch storage {
        case .empty, .data, .file: false
        case .stream: true
        case .multipart(let form): form.parts.contains { $0.content.holdsStream }
        }
    }

    /// Checks that a file body (or every file part of a form) can be read and still has its size.
    func checkReadable() -> Bool {
        switch storage {
        case .empty, .data, .stream: true
        case .file(let url, let count): count != nil && Self.fileSize(url) == count
        case .multipart(let form): form.parts.allSatisfy { $0.content.checkReadable() }
        }
    }

    /// A short description of the kind of body for logs: `<streamed body, 1024 bytes>`.
    var streamedSummary: String {
        "<streamed body, " + (count.map { "\($0) bytes" } ?? "unknown size") + ">"
    }

    static func fileSize(_ url: URL) -> Int? {
        guard url.isFileURL, FileManager.default.isReadableFile(atPath: url.path),
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            (attributes[.type] as? FileAttributeType) == .typeRegular,
            let size = attributes[.size] as? NSNumber
        else { return nil }
        return size.intValue
    }
}

/// A one-shot stream of chunks: the first reader claims it, later readers get nothing.
final class OneShotStream: Sendable, Hashable {
    typealias Next = @Sendable () async throws -> Data?

    let count: Int?
    private let next: LockedBox<Next?>

    init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, count: Int?) where Chunks.Element == Data {
        self.count = count
        let iterator = IteratorBox(chunks.makeAsyncIterator())
        self.next = LockedBox({ try await iterator.next() })
    }

    /// The function that yields the chunks, for the first caller only.
    func claim() -> Next? {
        next.withLock { next in
            defer { next = nil }
            return next
        }
    }

    static func == (lhs: OneShotStream, rhs: OneShotStream) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Holds a stream's iterator for its one reader.
// @unchecked: only the reader that claimed the stream calls `next()`, one call at a time.
private final class IteratorBox<Iterator: AsyncIteratorProtocol>: @unchecked Sendable where Iterator.Element == Data {
    private var iterator: Iterator

    init(_ iterator: Iterator) {
        self.iterator = iterator
    }

    func next() async throws -> Data? {
        try await iterator.next()
    }
}
