import Foundation

/// The bytes of a ``RequestBody`` as an `AsyncSequence` of chunks of at most `RequestBody.chunkSize` bytes,
/// read while it is iterated (see `RequestBody.chunks()`).
///
/// ```swift
/// for try await chunk in request.body.chunks() {
///     try await connection.write(chunk)
/// }
/// ```
///
/// Reading fails with ``APIError/RequestProblem/unreadableBody`` (as an ``APIError`` without an endpoint context
/// beyond the body) when a file cannot be opened or no longer has the size it had when the body was made, or when
/// a stream was already read; a stream's own error is passed on.
public struct RequestBodyChunks: AsyncSequence, Sendable {
    /// A chunk of bytes.
    public typealias Element = Data

    let body: RequestBody

    /// Starts reading the body from the beginning.
    public func makeAsyncIterator() -> Iterator {
        Iterator(reader: BodyReader(body))
    }

    /// Reads the next chunk.
    public struct Iterator: AsyncIteratorProtocol {
        let reader: BodyReader

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws -> Data? {
            try await reader.next(maxCount: RequestBody.chunkSize)
        }
    }
}

/// The error a ``BodyReader`` throws when a body cannot be read; executors wrap it in an ``APIError``.
struct UnreadableBody: Error, CustomStringConvertible {
    let description: String
}

/// Reads a body's bytes in order, one segment at a time: in-memory bytes, files (by chunks), streams.
/// Asynchronously for `RequestBodyChunks`, or blocking the calling thread for `InputStream`s.
final class BodyReader: Sendable {
    private enum Segment {
        case bytes(Data)
        case file(URL, count: Int?)
        case stream(OneShotStream)
    }

    private struct State {
        var segments: [Segment]
        var index = 0
        /// The rest of the current in-memory segment.
        var pending = Data()
        var file: FileHandle?
        var fileLeft = 0
        var stream: OneShotStream.Next?
        var streamRead = 0
    }

    private let state: LockedBox<State>

    init(_ body: RequestBody) {
        var segments: [Segment] = []
        Self.flatten(body, into: &segments)
        state = LockedBox(State(segments: segments))
    }

    private static func flatten(_ body: RequestBody, into segments: inout [Segment]) {
        switch body.storage {
        case .empty: break
        case .data(let data): if !data.isEmpty { segments.append(.bytes(data)) }
        case .file(let url, let count): segments.append(.file(url, count: count))
        case .stream(let stream): segments.append(.stream(stream))
        case .multipart(let form):
            for segment in form.segments {
                switch segment {
                case .bytes(let data): segments.append(.bytes(data))
                case .body(let body): flatten(body, into: &segments)
                }
            }
        }
    }

    /// What to do next: return bytes, or wait for a stream's next chunk.
    private enum Step {
        case chunk(Data?)
        case pull(OneShotStream.Next, expected: Int?)
    }

    /// The next chunk of at most `maxCount` bytes, `nil` at the end.
    func next(maxCount: Int) async throws -> Data? {
        while true {
            switch try step(maxCount: maxCount) {
            case .chunk(let data): return data
            case .pull(let next, let expected):
                let chunk = try await next()
                if let data = try received(chunk, expected: expected, maxCount: maxCount) { return data }
            }
        }
    }

    /// The next chunk, blocking the calling thread while a stream produces one (for `InputStream.read`).
    func nextBlocking(maxCount: Int) throws -> Data? {
        while true {
            switch try step(maxCount: maxCount) {
            case .chunk(let data): return data
            case .pull(let next, let expected):
                let result = LockedBox<Result<Data?, any Error>?>(nil)
                let done = DispatchSemaphore(value: 0)
                let pull: @Sendable () async -> Void = {
                    let outcome: Result<Data?, any Error>
                    do { outcome = .success(try await next()) } catch { outcome = .failure(error) }
                    result.value = outcome
                    done.signal()
                }
                #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
                    // Not on Swift's shared threads, which CPU-bound work may hold for seconds while this waits.
                    Task(executorPreference: StreamPullThread.shared) { await pull() }
                #else
                    Task { await pull() }
                #endif
                done.wait()
                guard let outcome = result.value else { throw UnreadableBody(description: "the stream ended") }
                if let data = try received(try outcome.get(), expected: expected, maxCount: maxCount) { return data }
            }
        }
    }

    /// Takes a stream's chunk: keeps what does not fit for later, checks the declared size at the end.
    private func received(_ chunk: Data?, expected: Int?, maxCount: Int) throws -> Data? {
        try state.withLock { state in
            guard let chunk else {
                if let expected, state.streamRead != expected {
                    throw UnreadableBody(description: "the stream sent \(state.streamRead) bytes, not \(expected)")
                }
                state.stream = nil
                state.streamRead = 0
                state.index += 1
                return nil
            }
            state.streamRead += chunk.count
            if let expected, state.streamRead > expected {
                throw UnreadableBody(description: "the stream sent more than the \(expected) bytes it declared")
            }
            guard chunk.count > maxCount else { return chunk.isEmpty ? nil : chunk }
            state.pending = chunk.dropFirst(maxCount)
            return chunk.prefix(maxCount)
        }
    }

    private func step(maxCount: Int) throws -> Step {
        try state.withLock { state -> Step in
            while true {
                if !state.pending.isEmpty {
                    let chunk = state.pending.prefix(maxCount)
                    state.pending = state.pending.dropFirst(chunk.count)
                    return .chunk(Data(chunk))
                }
                guard state.index < state.segments.count else { return .chunk(nil) }
                switch state.segments[state.index] {
                case .bytes(let data):
                    state.pending = data
                    state.index += 1
                case .file(let url, let count):
                    if state.file == nil {
                        guard let count, let handle = try? FileHandle(forReadingFrom: url) else {
                            throw UnreadableBody(description: "the file \(url.lastPathComponent) cannot be read")
                        }
                        state.file = handle
                        state.fileLeft = count
                    }
                    guard let handle = state.file else { continue }
                    if state.fileLeft == 0 {
                        try? handle.close()
                        state.file = nil
                        state.index += 1
                        continue
                    }
                    let chunk = try handle.read(upToCount: min(maxCount, state.fileLeft)) ?? Data()
                    guard !chunk.isEmpty else {
                        try? handle.close()
                        state.file = nil
                        throw UnreadableBody(description: "the file \(url.lastPathComponent) became shorter")
                    }
                    state.fileLeft -= chunk.count
                    return .chunk(chunk)
                case .stream(let stream):
                    if state.stream == nil {
                        guard let next = stream.claim() else {
                            throw UnreadableBody(description: "the stream was already read (a stream is sent once)")
                        }
                        state.stream = next
                        state.streamRead = 0
                    }
                    guard let next = state.stream else { continue }
                    return .pull(next, expected: stream.count)
                }
            }
        }
    }

    /// Closes an open file.
    func close() {
        state.withLock { state in
            try? state.file?.close()
            state.file = nil
        }
    }

    deinit {
        close()
    }
}

#if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
    /// Runs the pulls of stream bodies that FoundationNetworking reads (``BodyReader/nextBlocking(maxCount:)``) on a
    /// thread of their own. The read holds FoundationNetworking's work queue, which every session shares, until the
    /// chunk arrives; waiting for one of Swift's few shared threads, busy with other work, would hold up every
    /// transfer of the process meanwhile. A stream whose producer itself runs on those threads still waits for them.
    final class StreamPullThread: TaskExecutor, Sendable {
        static let shared = StreamPullThread()

        private let jobs = LockedBox<[UnownedJob]>([])
        private let wakeUp = DispatchSemaphore(value: 0)

        private init() {
            let thread = Thread { [jobs, wakeUp, self] in
                let executor = self.asUnownedTaskExecutor()
                while true {
                    wakeUp.wait()
                    let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    job?.runSynchronously(on: executor)
                }
            }
            thread.name = "Courier stream pulls"
            thread.start()
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            jobs.withLock { $0.append(job) }
            wakeUp.signal()
        }
    }
#endif
