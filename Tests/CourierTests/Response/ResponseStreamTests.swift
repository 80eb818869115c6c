import Courier
import Foundation
import Testing

@Suite struct ResponseStreamTests {
    static func request(idle: Duration = .seconds(30)) throws -> APIRequest {
        var request = try GET<Void>("/s").makeRequest(using: testConfiguration)
        request.responseDelivery = .stream(idleTimeout: idle)
        return request
    }

    @Test func chunksArriveInOrderAndTheStreamEnds() async throws {
        let (stream, continuation) = ResponseStream.makeStream(for: try Self.request()) {}
        continuation.yield(Data("a".utf8))
        continuation.yield(Data("b".utf8))
        continuation.finish()
        var all = Data()
        for try await chunk in stream { all.append(chunk) }
        #expect(all == Data("ab".utf8))
    }

    @Test func leavingTheLoopEarlyCancelsTheTransfer() async throws {
        // GIVEN a stream whose producer records cancellation
        let cancelled = LockedBox(false)
        let (stream, continuation) = ResponseStream.makeStream(for: try Self.request()) {
            cancelled.withLock { $0 = true }
        }
        continuation.yield(Data("first".utf8))
        // WHEN the reader leaves after the first chunk
        for try await _ in stream { break }
        // THEN the producer was told, and further chunks are dropped
        #expect(cancelled.withLock { $0 })
        #expect(continuation.isCancelled)
    }

    @Test func anIdleStreamTimesOut() async throws {
        let cancelled = LockedBox(false)
        let (stream, continuation) = ResponseStream.makeStream(for: try Self.request(idle: .milliseconds(200))) {
            cancelled.withLock { $0 = true }
        }
        continuation.yield(Data("x".utf8))
        var iterator = stream.makeAsyncIterator()
        _ = try await iterator.next()
        let error = await #expect(throws: APIError.self) { _ = try await iterator.next() }
        #expect(error?.reason == .transport(.timedOut))
        #expect(cancelled.withLock { $0 })
    }

    @Test func aFullWindowAsksTheProducerToPauseUntilDrained() async throws {
        let (stream, continuation) = ResponseStream.makeStream(for: try Self.request()) {}
        let chunk = Data(count: ResponseStream.windowBytes / 4)
        var accepted: [Bool] = []
        for _ in 0..<5 { accepted.append(continuation.yield(chunk)) }
        #expect(accepted == [true, true, true, true, false])
        let resumed = LockedBox(false)
        continuation.whenDrained { resumed.withLock { $0 = true } }
        var iterator = stream.makeAsyncIterator()
        _ = try await iterator.next()
        _ = try await iterator.next()
        #expect(!resumed.withLock { $0 })
        _ = try await iterator.next()
        #expect(resumed.withLock { $0 })
    }

    @Test func aProducerErrorReachesTheReaderAsAnAPIError() async throws {
        let (stream, continuation) = ResponseStream.makeStream(for: try Self.request()) {}
        continuation.yield(Data("a".utf8))
        continuation.finish(throwing: URLError(.networkConnectionLost))
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == Data("a".utf8))
        let error = await #expect(throws: APIError.self) { _ = try await iterator.next() }
        #expect(error?.reason == .transport(.connectionLost))
    }

    @Test func aSequenceOfChunksBecomesAStream() async throws {
        let chunks = AsyncStream<Data> { continuation in
            for index in 0..<3 { continuation.yield(Data([UInt8(index)])) }
            continuation.finish()
        }
        var all: [UInt8] = []
        for try await chunk in ResponseStream(chunks, for: try Self.request()) { all += chunk }
        #expect(all == [0, 1, 2])
    }
}

extension ResponseStreamTests {
    @Test func aStreamNobodyReadsCancelsTheTransferWhenDropped() throws {
        let cancelled = LockedBox(false)
        var continuation: ResponseStream.Continuation?
        do {
            let made = ResponseStream.makeStream(for: try Self.request()) { cancelled.withLock { $0 = true } }
            continuation = made.continuation
            _ = made.stream
        }
        #expect(cancelled.withLock { $0 })
        #expect(continuation?.isCancelled == true)
    }
}
