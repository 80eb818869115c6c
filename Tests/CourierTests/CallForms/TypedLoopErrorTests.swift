import Courier
import CourierTesting
import Foundation
import Testing

/// Every loop over what Courier hands out throws ``APIError``, as every call does: a `catch` around
/// `for try await` reads `error.reason` without a cast. Each loop below sits in a function that does not throw, so
/// it compiles only when the loop's error is typed (its `catch` must be exhaustive). A loop's error is typed where
/// `next(isolation:)` exists: Linux, and Apple platforms from macOS 15, iOS 18, tvOS 18 and watchOS 11.
@Suite struct TypedLoopErrorTests {
    static let items = GET<Void>("/items")
    static let feed = GET<Void>("/feed", maxResponseBytes: 8)
    static let product = GET<Void>("/product")
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
extension TypedLoopErrorTests {
    /// The reason a loop over the pages failed with, read in its `catch`.
    static func pagesFailure(using configuration: APIConfiguration) async -> APIError.Reason? {
        do {
            for try await _ in items.pages(as: [Int].self, using: configuration) {}
            return nil
        } catch {
            return error.reason
        }
    }

    static func linesFailure(using configuration: APIConfiguration) async -> APIError.Reason? {
        do {
            for try await _ in try await feed.stream(using: configuration).lines {}
            return nil
        } catch {
            return error.reason
        }
    }

    static func eventsFailure(using configuration: APIConfiguration) async -> APIError.Reason? {
        do {
            for try await _ in try await feed.stream(using: configuration).events {}
            return nil
        } catch {
            return error.reason
        }
    }

    static func chunksFailure(using configuration: APIConfiguration) async -> APIError.Reason? {
        do {
            for try await _ in try await feed.stream(idleTimeout: .milliseconds(100), using: configuration) {}
            return nil
        } catch {
            return error.reason
        }
    }

    static func cacheThenNetworkFailure(using configuration: APIConfiguration) async -> APIError.Reason? {
        do {
            let updates: CacheThenNetworkSequence<Numbered> = product.cacheThenNetwork(using: configuration)
            for try await _ in updates {}
            return nil
        } catch {
            return error.reason
        }
    }

    static func socketFailure(using configuration: APIConfiguration) async -> APIError.Reason? {
        do {
            for try await _ in try await Chat.$lobby.connect(using: configuration) {}
            return nil
        } catch {
            return error.reason
        }
    }

    static func typedMessagesFailure(using configuration: APIConfiguration) async -> APIError.Reason? {
        do {
            for try await _ in try await Chat.$lobby.connect(using: configuration).messages(as: ChatMessage.self) {}
            return nil
        } catch {
            return error.reason
        }
    }
}

extension TypedLoopErrorTests {
    @Test("A loop over the pages throws an APIError")
    func pages() async throws {
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) else { return }
        let stub = StubExecutor().stub(Self.items, with: .status(404))
        #expect(await Self.pagesFailure(using: socketConfiguration(stub)) == .unacceptableStatus(.notFound))
    }

    @Test("A loop over a stream's chunks, lines and events throws an APIError")
    func streams() async throws {
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) else { return }
        // The first chunk holds a line over the endpoint's 8 bytes; the second does not come within the idle timeout.
        let stub = StubExecutor().stub(
            Self.feed, with: .chunked(["data: more than eight bytes\n\n", "data: late\n\n"], every: .seconds(60)))
        let configuration = socketConfiguration(stub)
        #expect(await Self.chunksFailure(using: configuration) == .transport(.timedOut))
        #expect(await Self.linesFailure(using: configuration) == .transport(.responseTooLarge))
        #expect(await Self.eventsFailure(using: configuration) == .transport(.responseTooLarge))
    }

    @Test("A loop over cacheThenNetwork's updates throws an APIError")
    func cacheThenNetwork() async throws {
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) else { return }
        let stub = StubExecutor().stub(Self.product, with: .status(503))
        let reason = await Self.cacheThenNetworkFailure(using: socketConfiguration(stub))
        #expect(reason == .unacceptableStatus(.serverError))
    }

    @Test("A loop over a socket, and over its typed messages, throws an APIError")
    func sockets() async throws {
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) else { return }
        let closing = StubWebSocket([.close(code: 4000, reason: "room closed")])
        let closed = socketConfiguration(await StubExecutor().stub(Chat.$lobby, with: .webSocket(closing)))
        #expect(await Self.socketFailure(using: closed) == .transport(.closedByPeer))

        let garbled = StubWebSocket([.send(.text("not json"))])
        let undecodable = socketConfiguration(await StubExecutor().stub(Chat.$lobby, with: .webSocket(garbled)))
        #expect(await Self.typedMessagesFailure(using: undecodable) == .decodingFailed)
    }
}
