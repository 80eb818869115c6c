import Foundation

/// A response body handed over as it arrives: an `AsyncSequence` of byte chunks, read once. A chunk holds what
/// arrived since the last read: when the reader is behind, the chunks that wait are handed over together (up to
/// 256 KiB at a time), so a reader keeps up with a fast transfer.
///
/// ```swift
/// let stream = try await Feeds.$live.stream(with: "news")
/// for try await chunk in stream { consume(chunk) }
/// for try await line in stream.lines { print(line) }              // or: lines of text
/// for try await event in stream.events { print(event.data) }      // or: Server-Sent Events
/// ```
///
/// - **Stopping early cancels the transfer.** Leaving the loop (`break`, `return`, a thrown error), cancelling
///   the reading task, or dropping a stream nobody reads cancels the network transfer at once.
/// - **An idle timeout between chunks.** When no byte arrives for the request's
///   `ResponseDelivery.idleTimeout` while the reader waits, the stream throws
///   ``APIError/TransportProblem/timedOut`` and cancels the transfer. A reader that is slower than the
///   network is not idle: the bytes wait for it.
/// - **Bounded memory.** A transport that can pause holds about `windowBytes` of unread bytes: it stops reading
///   from the network until the reader catches up (``URLSessionExecutor`` on Apple platforms suspends its task,
///   `AsyncHTTPClientExecutor` stops reading from the socket). FoundationNetworking (Linux) cannot pause a transfer:
///   there the unread bytes past two windows wait in a temporary file, and a reader that falls behind by more than
///   the request's ``APIRequest/maxResponseBytes`` fails with ``APIError/TransportProblem/responseTooLarge``; read
///   large bodies that may be consumed slowly with `download(with:to:)` there. A reader that keeps up holds only a
///   few chunks, however long the stream.
///
/// Errors are ``APIError``s naming the endpoint. Only one loop may read a stream; a second one ends at once.
public struct ResponseStream: AsyncSequence, Sendable, Hashable {
    /// The element type: a chunk of bytes as it arrived.
    public typealias Element = Data

    /// How many unread bytes a stream holds before it asks its producer to pause.
    public static let windowBytes = 1 << 20

    let handle: Handle
    /// Where the stream came from, when ``API/stream(with:idleTimeout:progress:using:)`` made it: how
    /// ``events(reconnect:)`` reconnects.
    var origin: StreamOrigin?

    /// Makes a stream for the response to `request`, and the continuation its producer (an executor) feeds.
    ///
    /// - Parameters:
    ///   - request: The request; errors name its endpoint and `ResponseDelivery.idleTimeout` applies.
    ///   - onCancel: Called once when the reader stops before the end (or drops the stream): cancel the
    ///     transfer.
    public static func makeStream(
        for request: APIRequest, onCancel: @escaping @Sendable () -> Void
    ) -> (stream: ResponseStream, continuation: Continuation) {
        let buffer = ChunkBuffer(request: request, onCancel: onCancel)
        return (ResponseStream(handle: Handle(buffer)), Continuation(buffer: buffer))
    }

    /// A stream that reads `chunks` (for stubs and tests); stopping early cancels the task that reads them.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, for request: APIRequest)
    where Chunks.Element == Data {
        let reader = LockedBox<Task<Void, Never>?>(nil)
        let (stream, continuation) = Self.makeStream(for: request) { reader.value?.cancel() }
        let task = Task {
            do {
                for try await chunk in chunks {
                    if Task.isCancelled { throw CancellationError() }
                    await continuation.send(chunk)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        reader.value = task
        self = stream
    }

    init(handle: Handle) {
        self.handle = handle
    }

    /// Two streams are equal when they are the same stream.
    public static func == (lhs: ResponseStream, rhs: ResponseStream) -> Bool { lhs.handle === rhs.handle }

    /// Hashes the stream's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(handle)) }

    /// Reads the stream's chunks.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: Reader(handle: handle, claimed: handle.buffer.claim()))
    }

    /// Reads a stream's chunks in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// What a loop over the chunks throws: `catch` around `for try await` gets an ``APIError``
        /// (in a closure, under `do throws(APIError)`).
        public typealias Failure = APIError

        let reader: Reader

        /// The next chunk, or `nil` at the end.
        /// - Throws: ``APIError``.
        public mutating func next() async throws -> Data? {
            try await reader.next()
        }
    }

    /// What an executor feeds a ``ResponseStream`` through.
    public struct Continuation: Sendable {
        let buffer: ChunkBuffer

        /// Hands `chunk` to the reader. Returns `false` when the unread bytes went past `windowBytes`: pause the
        /// transfer then, and resume it in ``whenDrained(_:)``'s action.
        @discardableResult
        public func yield(_ chunk: Data) -> Bool {
            buffer.yield(chunk)
        }

        /// Runs `action` once the reader has read the unread bytes down to half the window (at once if it
        /// already has, or if the stream ended).
        public func whenDrained(_ action: @escaping @Sendable () -> Void) {
            buffer.whenDrained(action)
        }

        /// Hands `chunk` to the reader, waiting while the window is full.
        public func send(_ chunk: Data) async {
            guard !yield(chunk) else { return }
            await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
                whenDrained { resume.resume() }
            }
        }

        /// Ends the stream after the chunks already given; with `error`, the reader throws it after them
        /// (wrapped as an ``APIError`` naming the endpoint).
        public func finish(throwing error: (any Error)? = nil) {
            buffer.finish(error)
        }

        /// The bytes handed over that the reader has not read yet.
        public var unreadBytes: Int { buffer.unreadBytes }

        /// Whether the reader stopped: further chunks are dropped.
        public var isCancelled: Bool { buffer.isCancelled }
    }

    /// The consumer side's lifetime: when every copy of the stream and every iterator are gone, the transfer
    /// is cancelled.
    final class Handle: Sendable {
        let buffer: ChunkBuffer
        init(_ buffer: ChunkBuffer) { self.buffer = buffer }
        deinit { buffer.cancel() }
    }

    /// One loop's read of the stream: leaving the loop before the end cancels the transfer.
    final class Reader: Sendable {
        let handle: Handle
        let claimed: Bool
        init(handle: Handle, claimed: Bool) {
            self.handle = handle
            self.claimed = claimed
        }
        func next() async throws(APIError) -> Data? {
            guard claimed else { return nil }
            do {
                return try await handle.buffer.next()
            } catch {
                throw APIError.wrapping(error, request: handle.buffer.request)
            }
        }
        deinit { if claimed { handle.buffer.cancel() } }
    }
}

/// The unread chunks of a ``ResponseStream`` between its producer and its one reader.
final class ChunkBuffer: DeadlineClock.Client, Sendable {
    private struct State {
        /// The unread chunks in memory, from `head` on; those past ``memoryBytes`` wait in `spill`, after them.
        var chunks: [Data] = []
        var head = 0
        var spill: SpillFile?
        var cannotSpill = false
        /// The unread bytes, in memory and in `spill`.
        var bytes = 0
        /// Whether more than ``unreadLimit`` unread bytes fail the stream: not while Courier's transport call reads
        /// it (``ResponseDelivery/relayed``), until it hands it on.
        var limited: Bool
        var end: Result<Void, APIError>?
        var cancelled = false
        var claimed = false
        var waiter: CheckedContinuation<Data?, any Error>?
        var drained: (@Sendable () -> Void)?
        /// The bytes handed to the reader, and whether the reader's end was recorded in the call's timeline.
        var delivered = 0
        var endRecorded = false
        /// Courier's own reader, which takes each chunk on the producer's thread as it is yielded (``consume(_:whenDrained:)``).
        var consumer: Consumer?
    }

    /// A reader that takes chunks as they are yielded, and what it is told at the end.
    private struct Consumer {
        let take: @Sendable (Data) throws -> Bool
        let whenDrained: @Sendable (@escaping @Sendable () -> Void) -> Void
        let end: CheckedContinuation<Void, any Error>
    }

    private let state: LockedBox<State>
    let request: APIRequest
    private let onCancel: @Sendable () -> Void

    init(request: APIRequest, onCancel: @escaping @Sendable () -> Void) {
        self.request = request
        self.onCancel = onCancel
        state = LockedBox(State(limited: !request.responseDelivery.relayed))
    }

    deinit {
        state.withLock { $0.spill?.remove() }
    }

    /// The most unread bytes a stream keeps in memory; a producer that does not pause when ``yield(_:)`` says so
    /// (FoundationNetworking's) has the next ones wait in a temporary file.
    static let memoryBytes = 2 * ResponseStream.windowBytes

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    var unreadBytes: Int { state.withLock { $0.bytes } }

    /// The unread bytes that wait in the spill file.
    var spilledBytes: Int { state.withLock { $0.spill?.unread ?? 0 } }

    /// The most unread bytes a stream holds: a producer that pauses when ``yield(_:)`` says so stays near
    /// `windowBytes`; past this, the stream fails with ``APIError/TransportProblem/responseTooLarge``.
    private var unreadLimit: Int { max(2 * ResponseStream.windowBytes, request.maxResponseBytes) }

    /// The stream is handed to a reader of its own: from here on more than ``unreadLimit`` unread bytes fail it.
    func limitUnread() {
        let over = state.withLock { state -> Bool in
            state.limited = true
            return state.bytes > unreadLimit
        }
        if over { cancel(with: ExecutorStop.responseTooLarge.error(for: request)) }
    }

    /// Marks the stream as read by one loop; `false` for any later loop.
    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    func yield(_ chunk: Data) -> Bool {
        guard !chunk.isEmpty else { return true }
        var spillFailure: (any Error)?
        let (waiter, consumer, underLimit, overflow) = state.withLock {
            state -> (CheckedContinuation<Data?, any Error>?, Consumer?, Bool, Bool) in
            guard !state.cancelled, state.end == nil else { return (nil, nil, true, false) }
            if let consumer = state.consumer { return (nil, consumer, true, false) }
            if let waiter = state.waiter {
                state.waiter = nil
                state.delivered += chunk.count
                return (waiter, nil, true, false)
            }
            do {
                try Self.store(chunk, in: &state)
            } catch {
                spillFailure = error
                return (nil, nil, false, false)
            }
            return (nil, nil, state.bytes <= ResponseStream.windowBytes, state.limited && state.bytes > unreadLimit)
        }
        if let consumer { return take(chunk, by: consumer) }
        if let spillFailure {
            cancel(with: spillError(spillFailure))
            return false
        }
        if overflow {
            // A producer that cannot pause (FoundationNetworking's) ran a reader's limit ahead of it.
            cancel(with: ExecutorStop.responseTooLarge.error(for: request))
            return false
        }
        if let waiter {
            DeadlineClock.shared.remove(self)
            waiter.resume(returning: chunk)
        }
        return underLimit
    }

    // MARK: - Courier's own reader

    /// Hands every chunk to `take` instead of to a loop, those that wait first, then each on the producer's thread
    /// as it yields it, so that no task stands between a producer that cannot pause and the bytes' destination (a
    /// file, another stream). Returns at the stream's end; throws its failure, or `take`'s, which cancels the
    /// transfer. `take`'s result is the producer's ``yield(_:)``'s: with `false`, a producer that can pause waits for
    /// `whenDrained`'s action.
    func consume(
        _ take: @escaping @Sendable (Data) throws -> Bool,
        whenDrained: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { $0() }
    ) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (end: CheckedContinuation<Void, any Error>) in
                let consumer = Consumer(take: take, whenDrained: whenDrained, end: end)
                // The chunks that wait go first; the producer's next ones go straight to `take` once none is left.
                while true {
                    let (waiting, ended) = state.withLock {
                        state -> (Result<Data, any Error>?, Result<Void, APIError>?) in
                        state.claimed = true
                        if let batch = Self.takeBatch(from: &state) { return (batch, nil) }
                        if let end = state.end { return (nil, end) }
                        state.consumer = consumer
                        return (nil, nil)
                    }
                    if let ended { return end.resume(with: ended) }
                    guard let waiting else { return }
                    do {
                        _ = try take(waiting.get())
                    } catch {
                        cancel()
                        return end.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Keeps `chunk` after the unread bytes: in memory up to ``memoryBytes``, in the spill file past them (and
    /// while the file holds bytes, which are older).
    private static func store(_ chunk: Data, in state: inout State) throws {
        let spilled = state.spill?.unread ?? 0
        if spilled > 0 || (state.bytes + chunk.count > memoryBytes && !state.cannotSpill) {
            if state.spill == nil {
                state.spill = SpillFile()
                state.cannotSpill = state.spill == nil
            }
            if var spill = state.spill {
                try spill.append(chunk)
                state.spill = spill
                state.bytes += chunk.count
                return
            }
        }
        state.chunks.append(chunk)
        state.bytes += chunk.count
    }

    /// Takes the oldest unread bytes: several chunks in memory joined up to ``batchBytes``, else as many from the
    /// spill file; `nil` when there are none.
    private static func takeBatch(from state: inout State) -> Result<Data, any Error>? {
        var batch: Data
        if state.head < state.chunks.count {
            batch = state.chunks[state.head]
            state.chunks[state.head] = Data()
            state.head += 1
            while state.head < state.chunks.count, batch.count + state.chunks[state.head].count <= batchBytes {
                batch.append(state.chunks[state.head])
                state.chunks[state.head] = Data()
                state.head += 1
            }
            if state.head == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.head = 0
            }
        } else if var spill = state.spill, spill.unread > 0 {
            do {
                batch = try spill.take(upTo: batchBytes)
            } catch {
                return .failure(error)
            }
            state.spill = spill
        } else {
            return nil
        }
        state.bytes -= batch.count
        return .success(batch)
    }

    /// The error of a stream whose spill file could not be written or read.
    private func spillError(_ underlying: any Error) -> APIError {
        APIError(.transport(.other), endpoint: request.endpoint, request: request, underlyingError: underlying)
    }

    /// Hands `chunk` to `consumer`; a failure of its own ends the stream with it.
    private func take(_ chunk: Data, by consumer: Consumer) -> Bool {
        do {
            return try consumer.take(chunk)
        } catch {
            // The consumer is told once: by this failure unless the stream ended first.
            let own = state.withLock { state -> Bool in
                defer { state.consumer = nil }
                return state.consumer != nil
            }
            cancel()
            if own { consumer.end.resume(throwing: error) }
            return false
        }
    }

    /// The stream's reader is Courier's, which hands the bytes on to another stream: that one records the end.
    func forgoEndRecord() {
        state.withLock { $0.endRecorded = true }
    }

    func whenDrained(_ action: @escaping @Sendable () -> Void) {
        let (now, consumer) = state.withLock { state -> (Bool, Consumer?) in
            if let consumer = state.consumer { return (false, consumer) }
            if state.cancelled || state.end != nil || state.bytes <= ResponseStream.windowBytes / 2 {
                return (true, nil)
            }
            state.drained = action
            return (false, nil)
        }
        if let consumer { return consumer.whenDrained(action) }
        if now { action() }
    }

    func finish(_ error: (any Error)?) {
        let end: Result<Void, APIError> =
            error.map { .failure(APIError.wrapping($0, request: request)) } ?? .success(())
        let (waiter, drained, consumer) = state.withLock {
            state -> (CheckedContinuation<Data?, any Error>?, (@Sendable () -> Void)?, Consumer?) in
            guard state.end == nil, !state.cancelled else { return (nil, nil, nil) }
            state.end = end
            defer {
                state.waiter = nil
                state.drained = nil
                state.consumer = nil
            }
            return (state.waiter, state.drained, state.consumer)
        }
        drained?()
        consumer?.end.resume(with: end)
        guard let waiter else { return }
        DeadlineClock.shared.remove(self)
        waiter.resume(with: end.map { nil })
    }

    /// The reader stopped (or the idle timeout passed, with `error`): ends the stream and cancels the transfer.
    func cancel(with error: APIError? = nil) {
        let ended = state.withLock {
            state -> (CheckedContinuation<Data?, any Error>?, (@Sendable () -> Void)?, Bool, Int?, Consumer?)? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            // The reader stopped before the end it has not read (an idle timeout's error is recorded as it reads it).
            let readBytes = error == nil ? Self.claimEnd(&state, of: request) : nil
            let running = state.end == nil
            if running { state.end = .failure(error ?? cancellation) }
            state.chunks = []
            state.head = 0
            state.bytes = 0
            state.spill?.remove()
            state.spill = nil
            defer {
                state.waiter = nil
                state.drained = nil
                state.consumer = nil
            }
            return (state.waiter, state.drained, running, readBytes, state.consumer)
        }
        guard let (waiter, drained, running, readBytes, consumer) = ended else { return }
        DeadlineClock.shared.remove(self)
        // The transfer is told first: a reader resumed by the error may look at once.
        if running { onCancel() }
        if let readBytes { request.record(.streamEnded, bytes: readBytes, detail: "cancelled") }
        waiter?.resume(throwing: error ?? cancellation)
        consumer?.end.resume(throwing: error ?? cancellation)
        drained?()
    }

    private var cancellation: APIError {
        ExecutorStop.cancelled.error(for: request)
    }

    func deadlinePassed() {
        cancel(with: ExecutorStop.timedOut.error(for: request))
    }

    /// The most bytes one `next()` hands over when several chunks wait: reading them one by one costs a lock and
    /// a continuation each, which a reader of a fast transfer cannot afford.
    static let batchBytes = 256 * 1024

    /// The bytes the reader read, the first time its end is claimed for the call's timeline (when the call records
    /// one); `nil` after. Recorded outside the lock: observers run then.
    private static func claimEnd(_ state: inout State, of request: APIRequest) -> Int? {
        guard request.responseDelivery.isStream, request.recorder?.recordsStreamEnd == true, !state.endRecorded
        else { return nil }
        state.endRecorded = true
        return state.delivered
    }

    private func recordEnd(_ detail: String) {
        guard let bytes = state.withLock({ Self.claimEnd(&$0, of: request) }) else { return }
        request.record(.streamEnded, bytes: bytes, detail: detail)
    }

    /// The next chunk; the end or a failure is recorded in the call's timeline.
    func next() async throws -> Data? {
        guard request.responseDelivery.isStream, request.recorder?.recordsStreamEnd == true else {
            return try await nextChunk()
        }
        do {
            if let chunk = try await nextChunk() { return chunk }
            recordEnd("end")
            return nil
        } catch {
            recordEnd("\(APIError.wrapping(error, request: request).reason)")
            throw error
        }
    }

    private func nextChunk() async throws -> Data? {
        // Fast path: bytes already wait, or the stream ended. No continuation, no cancellation handler.
        if Task.isCancelled {
            cancel()
        }
        if let ready = takeReady() { return try ready.get() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Data?, any Error>) in
                if let ready = takeReady(orWait: waiter) {
                    waiter.resume(with: ready)
                } else if let idle = request.responseDelivery.idleTimeout {
                    DeadlineClock.shared.add(self, timeout: idle)
                    // The chunk may have arrived in between: it removed nothing, so take the deadline out again.
                    if state.withLock({ $0.waiter == nil }) { DeadlineClock.shared.remove(self) }
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The waiting bytes (several chunks joined, up to ``batchBytes``) or the end; `nil` when the reader must
    /// wait, after registering `waiter` if one is given.
    private func takeReady(orWait waiter: CheckedContinuation<Data?, any Error>? = nil) -> Result<Data?, APIError>? {
        let (outcome, drained) = state.withLock { state -> (Result<Data?, any Error>?, (@Sendable () -> Void)?) in
            if let batch = Self.takeBatch(from: &state) {
                if case .success(let data) = batch { state.delivered += data.count }
                var drained: (@Sendable () -> Void)?
                if state.bytes <= ResponseStream.windowBytes / 2 {
                    drained = state.drained
                    state.drained = nil
                }
                return (batch.map { $0 }, drained)
            }
            if let end = state.end { return (end.map { nil }.mapError { $0 }, nil) }
            if let waiter { state.waiter = waiter }
            return (nil, nil)
        }
        drained?()
        guard case .failure(let failure) = outcome, !(failure is APIError) else {
            return outcome?.mapError { APIError.wrapping($0, request: request) }
        }
        // The spill file could not be read: the stream fails with that.
        let error = spillError(failure)
        cancel(with: error)
        return .failure(error)
    }
}
