import Foundation

/// The progress of one call's transfer, observable as an `AsyncSequence` while the call runs.
///
/// Create one, pass it to the call, and read it from another task; the sequence yields the newest
/// ``Snapshot`` (intermediate ones may be skipped when the reader is slower than the network) and ends when the
/// call ends, with the final figures:
///
/// ```swift
/// let progress = TransferProgress()
/// let watcher = Task {
///     for await snapshot in progress {
///         print("\(snapshot.received) of \(snapshot.expectedToReceive.map(String.init) ?? "?") bytes")
///     }
/// }
/// let file = try await Files.$report.download(with: id, to: destination, progress: progress)
/// await watcher.value
/// ```
///
/// Several readers may iterate it; each starts with the latest snapshot. One instance follows one call.
///
/// Executors that declare ``TransferFeatures/progress`` report through `reportSent(_:expected:)` and
/// `reportReceived(_:expected:)` and call `finish()` when the transfer ends (a call form also finishes it
/// when the call returns or throws).
public final class TransferProgress: AsyncSequence, Sendable {
    /// Bytes sent and received so far, with the totals when they are known.
    public struct Snapshot: Sendable, Hashable {
        /// Request body bytes sent.
        public var sent: Int64 = 0
        /// The request body's size, when known.
        public var expectedToSend: Int64?
        /// Response body bytes received (for a resumed download, counting the bytes already on disk).
        public var received: Int64 = 0
        /// The response body's size, when known (`Content-Length`, or the full size of a resumed download).
        public var expectedToReceive: Int64?
        /// Whether the call has ended.
        public var isFinished = false

        /// Creates a snapshot.
        public init(
            sent: Int64 = 0, expectedToSend: Int64? = nil, received: Int64 = 0, expectedToReceive: Int64? = nil,
            isFinished: Bool = false
        ) {
            self.sent = sent
            self.expectedToSend = expectedToSend
            self.received = received
            self.expectedToReceive = expectedToReceive
            self.isFinished = isFinished
        }

        /// The fraction of the response received (of the request sent while nothing was received), between 0
        /// and 1; `nil` while the total is unknown.
        public var fractionCompleted: Double? {
            if received > 0 || expectedToReceive != nil {
                guard let total = expectedToReceive else { return isFinished ? 1 : nil }
                return total > 0 ? Swift.min(1, Double(received) / Double(total)) : 1
            }
            guard let total = expectedToSend else { return isFinished ? 1 : nil }
            return total > 0 ? Swift.min(1, Double(sent) / Double(total)) : 1
        }
    }

    /// The element type: a snapshot of the figures.
    public typealias Element = Snapshot

    private struct State {
        var snapshot = Snapshot()
        var readers: [Int: AsyncStream<Snapshot>.Continuation] = [:]
        var nextReader = 0
    }

    private let state = LockedBox(State())

    /// A progress with nothing transferred yet.
    public init() {}

    /// The latest figures.
    public var current: Snapshot { state.withLock { $0.snapshot } }

    /// Reports that `total` request body bytes have been sent so far, of `expected` when known.
    public func reportSent(_ total: Int64, expected: Int64?) {
        update {
            $0.sent = total
            if let expected, expected >= 0 { $0.expectedToSend = expected }
        }
    }

    /// Reports that `total` response body bytes have been received so far, of `expected` when known.
    public func reportReceived(_ total: Int64, expected: Int64?) {
        update {
            $0.received = total
            if let expected, expected >= 0 { $0.expectedToReceive = expected }
        }
    }

    /// Ends the sequence for every reader with the final figures; later reports are ignored.
    public func finish() {
        let readers = state.withLock { state -> [AsyncStream<Snapshot>.Continuation] in
            guard !state.snapshot.isFinished else { return [] }
            state.snapshot.isFinished = true
            defer { state.readers = [:] }
            return Array(state.readers.values).map { reader in
                reader.yield(state.snapshot)
                return reader
            }
        }
        for reader in readers { reader.finish() }
    }

    private func update(_ change: (inout Snapshot) -> Void) {
        state.withLock { state in
            guard !state.snapshot.isFinished else { return }
            change(&state.snapshot)
            for reader in state.readers.values { reader.yield(state.snapshot) }
        }
    }

    /// An iterator over the snapshots, starting with the latest.
    public func makeAsyncIterator() -> AsyncStream<Snapshot>.Iterator {
        let (stream, continuation) = AsyncStream.makeStream(of: Snapshot.self, bufferingPolicy: .bufferingNewest(1))
        let finished = state.withLock { state -> Bool in
            continuation.yield(state.snapshot)
            guard !state.snapshot.isFinished else { return true }
            let key = state.nextReader
            state.nextReader += 1
            state.readers[key] = continuation
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.readers.removeValue(forKey: key) }
            }
            return false
        }
        if finished { continuation.finish() }
        return stream.makeAsyncIterator()
    }
}
