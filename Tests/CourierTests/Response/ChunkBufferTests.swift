import Foundation
import Testing

@testable import Courier

/// The buffer between a stream's producer and its reader: what it keeps in memory when the producer does not pause,
/// when its limit applies, and Courier's own reader (`consume`).
@Suite struct ChunkBufferTests {
    static func request(
        limit: Int = APIConfiguration.defaultMaxResponseBytes, relayed: Bool = false
    ) throws
        -> APIRequest
    {
        var request = try GET<Void>("/s").makeRequest(using: testConfiguration)
        request.responseDelivery = .stream(idleTimeout: .seconds(30))
        request.responseDelivery.relayed = relayed
        request.maxResponseBytes = limit
        return request
    }

    /// `count` bytes, each its position modulo 251, so that order shows (made by whole periods: a byte at a time
    /// would hold one of the test run's few threads for seconds in a debug build).
    static func bytes(_ count: Int) -> Data {
        let period = Data((0..<251).map { UInt8($0) })
        var data = Data(capacity: count + period.count)
        while data.count < count { data.append(period) }
        return data.prefix(count)
    }

    /// ``bytes(_:)`` in chunks of `chunk`.
    static func chunks(_ count: Int, of chunk: Int = 64 * 1024) -> [Data] {
        let all = bytes(count)
        return stride(from: 0, to: count, by: chunk).map { Data(all[$0..<min(count, $0 + chunk)]) }
    }

    @Test func aProducerThatDoesNotPauseHasItsUnreadBytesWaitOnDiskPastTwoWindows() async throws {
        // GIVEN 8 MiB yielded to a stream nobody reads yet, whatever the yields answer
        let total = 8 * 1_048_576
        let (stream, continuation) = ResponseStream.makeStream(for: try Self.request()) {}
        for chunk in Self.chunks(total) { continuation.yield(chunk) }
        let buffer = stream.handle.buffer

        // THEN at most two windows are in memory, the rest in the spill file
        #expect(buffer.unreadBytes == total)
        #expect(buffer.unreadBytes - buffer.spilledBytes <= ChunkBuffer.memoryBytes)
        #expect(buffer.spilledBytes >= total - ChunkBuffer.memoryBytes)

        // WHEN it is read, while more arrives
        continuation.yield(Data([7]))
        continuation.finish()
        var all = Data()
        for try await chunk in stream { all.append(chunk) }

        // THEN every byte came, in order, and the file is empty
        #expect(all == Self.bytes(total) + Data([7]))
        #expect(buffer.spilledBytes == 0)
    }

    @Test(arguments: [false, true])
    func unreadBytesPastTheLimitFailAStreamOnlyOnceItIsHandedOn(relayed: Bool) async throws {
        // GIVEN a stream with a limit of 3 MiB, relayed by Courier's transport call or not
        let limit = 3 * 1_048_576
        let (stream, continuation) = ResponseStream.makeStream(for: try Self.request(limit: limit, relayed: relayed)) {}

        // WHEN 4 MiB arrive unread
        for chunk in Self.chunks(4 * 1_048_576) { continuation.yield(chunk) }

        // THEN a relayed hop's stream holds them, and fails once handed on; a reader's own fails at once
        #expect(continuation.isCancelled == !relayed)
        if relayed { stream.handle.buffer.limitUnread() }
        #expect(continuation.isCancelled)
        let error = await #expect(throws: APIError.self) { for try await _ in stream {} }
        #expect(error?.reason == .transport(.responseTooLarge))
    }

    @Test func consumeTakesTheWaitingBytesThenEachChunkAsItIsYielded() async throws {
        // GIVEN a stream with 3 MiB waiting, part of it on disk
        let (stream, continuation) = ResponseStream.makeStream(for: try Self.request()) {}
        let waiting = Self.chunks(3 * 1_048_576)
        for chunk in waiting { continuation.yield(chunk) }

        // WHEN Courier consumes it, and more is yielded before and after the consumer is in place
        let taken = LockedBox(Data())
        let consuming = Task {
            try await stream.handle.buffer.consume { chunk in
                taken.withLock { $0.append(chunk) }
                return true
            }
        }
        continuation.yield(Data([1]))
        await Task.yield()
        continuation.yield(Data([2]))
        continuation.finish()
        try await consuming.value

        // THEN it took every byte in order, and a loop over the stream gets nothing more
        #expect(taken.value == Self.bytes(3 * 1_048_576) + Data([1, 2]))
        var rest = 0
        for try await chunk in stream { rest += chunk.count }
        #expect(rest == 0)
    }

    struct Refused: Error {}

    @Test func aFailureOfTheConsumerCancelsTheTransferAndIsThrown() async throws {
        let cancelled = LockedBox(0)
        let (stream, continuation) = ResponseStream.makeStream(for: try Self.request()) {
            cancelled.withLock { $0 += 1 }
        }
        continuation.yield(Data([1]))
        let consuming = Task {
            try await stream.handle.buffer.consume { chunk in
                if chunk == Data([2]) { throw Refused() }
                return true
            }
        }
        // The second chunk is refused, wherever the consumer was then.
        while !continuation.isCancelled {
            continuation.yield(Data([2]))
            await Task.yield()
        }
        await #expect(throws: Refused.self) { try await consuming.value }
        #expect(cancelled.value == 1)
    }

    @Test func cancellingTheConsumingTaskCancelsTheTransfer() async throws {
        let cancelled = LockedBox(0)
        let (stream, continuation) = ResponseStream.makeStream(for: try Self.request()) {
            cancelled.withLock { $0 += 1 }
        }
        let consuming = Task { try await stream.handle.buffer.consume { _ in true } }
        consuming.cancel()
        let error = await #expect(throws: APIError.self) { try await consuming.value }
        #expect(error?.reason == .transport(.cancelled))
        #expect(cancelled.value == 1)
        #expect(continuation.isCancelled)
    }

    @Test func aProducersFailureEndsTheConsumerWithIt() async throws {
        let (stream, continuation) = ResponseStream.makeStream(for: try Self.request()) {}
        let consuming = Task { try await stream.handle.buffer.consume { _ in true } }
        continuation.finish(throwing: URLError(.networkConnectionLost))
        let error = await #expect(throws: APIError.self) { try await consuming.value }
        #expect(error?.reason == .transport(.connectionLost))
    }
}
