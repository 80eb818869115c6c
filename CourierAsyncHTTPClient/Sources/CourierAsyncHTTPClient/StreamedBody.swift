import AsyncHTTPClient
@_spi(CourierInternals) import Courier
import Foundation
import NIOConcurrencyHelpers
import NIOCore

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
