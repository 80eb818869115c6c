import Courier
import CourierCombine
import Foundation
import Testing

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// Values arrive on no particular queue; `receive(on:)` is how code that needs the main queue gets them there.
@Suite struct MainQueueTests {
    /// Marks the main queue, so a closure can tell it runs there (on Linux the main queue may be drained by a
    /// thread other than the main thread, so `Thread.isMainThread` cannot tell).
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    @Test("Without receive(on:), the value arrives off the main queue; with it, on the main queue")
    func receiveOnMainQueue() async throws {
        // GIVEN two subscriptions to a stubbed call, one moved to the main queue
        let world = await StubWorld()
        let key = Self.mainQueueKey
        let direct = Locked<[Bool]>([])
        let moved = Locked<[Bool]>([])
        let publisher = await Book.$user.publisher(with: 6, as: User.self, using: world.configuration)
            .map(\.name)
            .replaceError(with: "unknown")

        // WHEN both receive their value
        let first = publisher.sink { @Sendable _ in
            direct.withLock { $0.append(DispatchQueue.getSpecific(key: key) == true) }
        }
        let second = publisher.receive(on: mainQueue).sink { @Sendable _ in
            moved.withLock { $0.append(DispatchQueue.getSpecific(key: key) == true) }
        }
        #expect(await waitUntil { !direct.current.isEmpty && !moved.current.isEmpty })

        // THEN only the one that asked for it got it on the main queue
        #expect(direct.current == [false])
        #expect(moved.current == [true])
        first.cancel()
        second.cancel()
    }
}
