import Courier
import Foundation
import Testing

/// In-flight de-duplication and the cache-then-network call form, above the executor.
@Suite struct InFlightAndSequenceTests {
    static let dedup = CachePolicy(deduplicatesInFlightRequests: true)

    @Test func identicalCallsInFlightShareOneExecution() async throws {
        let server = NumberingServer(delay: .milliseconds(300))
        let configuration = cachingConfiguration(server, cache: ResponseCache())
        let endpoint = GET<Void>("/items", tags: [.cache(Self.dedup)])
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    let value: Numbered = try await endpoint.request(using: configuration)
                    return value.n
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(server.hits == 1)
        #expect(values.count == 100)
        #expect(Set(values) == [1])
    }

    @Test func withoutTheOptionEveryCallGoesOut() async throws {
        let server = NumberingServer(delay: .milliseconds(50))
        let configuration = cachingConfiguration(server, cache: ResponseCache())
        let endpoint = GET<Void>("/items")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10 { group.addTask { try await endpoint.request(using: configuration) } }
            try await group.waitForAll()
        }
        #expect(server.hits == 10)
    }

    @Test func differentKeysAreNotShared() async throws {
        let server = NumberingServer(delay: .milliseconds(100))
        let configuration = cachingConfiguration(server, cache: ResponseCache())
        async let a: Numbered = GET<Void>("/a", tags: [.cache(Self.dedup)]).request(using: configuration)
        async let b: Numbered = GET<Void>("/b", tags: [.cache(Self.dedup)]).request(using: configuration)
        let values = try await [a.n, b.n]
        #expect(Set(values).count == 2)
        #expect(server.hits == 2)
    }

    @Test func cancellingOneWaiterLeavesTheOthersAndTheCall() async throws {
        // GIVEN three waiters on one slow call
        let server = NumberingServer(delay: .milliseconds(500))
        let configuration = cachingConfiguration(server, cache: ResponseCache())
        let endpoint = GET<Void>("/items", tags: [.cache(Self.dedup)])
        let tasks = (0..<3).map { _ in
            Task { () throws -> Int in
                let value: Numbered = try await endpoint.request(using: configuration)
                return value.n
            }
        }
        try await Task.sleep(for: .milliseconds(100))

        // WHEN one is cancelled
        tasks[0].cancel()

        // THEN it fails as cancelled at once, the others get the one response
        let error = await #expect(throws: APIError.self) { try await tasks[0].value }
        #expect(error?.isCancellation == true)
        #expect(try await tasks[1].value == 1)
        #expect(try await tasks[2].value == 1)
        #expect(server.hits == 1)
    }

    @Test func theLastWaiterLeavingCancelsTheCall() async throws {
        let cancelled = LockedBox(false)
        let server = CancellationObserver(cancelled: cancelled, started: LockedBox(false))
        let configuration = cachingConfiguration(server, cache: ResponseCache())
        let endpoint = GET<Void>("/items", tags: [.cache(Self.dedup)])
        let tasks = (0..<2).map { _ in Task { try await endpoint.request(using: configuration) } }
        // (the call has reached the executor, and the other task has had time to join it)
        while !server.started.value { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        tasks[0].cancel()
        try await Task.sleep(for: .milliseconds(100))
        #expect(cancelled.value == false)
        tasks[1].cancel()
        for task in tasks { _ = await task.result }
        // The executor's task sees the cancellation promptly (it would otherwise sleep 30 s).
        let deadline = ContinuousClock.now + .seconds(5)
        while !cancelled.value, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(cancelled.value)
    }

    /// Records that it started, sleeps 30 s, and records whether its task was cancelled.
    struct CancellationObserver: APIExecutor {
        let cancelled: LockedBox<Bool>
        let started: LockedBox<Bool>

        func execute(_ request: APIRequest) async throws -> APIResponse {
            started.withLock { $0 = true }
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                cancelled.withLock { $0 = true }
                throw error
            }
            return APIResponse(statusCode: 200, request: request)
        }
    }

    // MARK: Cache then network

    static let cacheThenNetwork = CachePolicy(read: .cacheThenNetwork, write: .memory, expiry: .seconds(10))

    func collect(_ sequence: CacheThenNetworkSequence<Numbered>) async throws -> [String] {
        var seen: [String] = []
        for try await update in sequence {
            switch update {
            case .cached(let value, let age): seen.append("cached \(value.n) age \(Int(age))")
            case .network(let value): seen.append("network \(value.n)")
            case .networkFailed(let error): seen.append("failed \(error.statusCode ?? 0)")
            }
        }
        return seen
    }

    @Test func withoutAnEntryOnlyTheNetworkValueComes() async throws {
        let configuration = cachingConfiguration(NumberingServer(), cache: ResponseCache())
        let endpoint = GET<Void>("/items", tags: [.cache(Self.cacheThenNetwork)])
        #expect(try await collect(endpoint.cacheThenNetwork(using: configuration)) == ["network 1"])
    }

    @Test func theCachedValueComesFirstEvenWhenStaleThenTheNetworkValue() async throws {
        let clock = TestClock()
        let server = NumberingServer()
        let configuration = cachingConfiguration(
            server, cache: ResponseCache(memory: MemoryCacheStorage(), disk: nil, now: clock.now))
        let endpoint = GET<Void>("/items", tags: [.cache(Self.cacheThenNetwork)])
        _ = try await collect(endpoint.cacheThenNetwork(using: configuration))
        clock.advance(25)
        #expect(
            try await collect(endpoint.cacheThenNetwork(using: configuration)) == ["cached 1 age 25", "network 2"])
        #expect(try await collect(endpoint.cacheThenNetwork(using: configuration)) == ["cached 2 age 0", "network 3"])
    }

    @Test func aNetworkFailureAfterACachedValueIsAnElementNotAThrow() async throws {
        let server = NumberingServer()
        let configuration = cachingConfiguration(server, cache: ResponseCache())
        let endpoint = GET<Void>("/items", tags: [.cache(Self.cacheThenNetwork)])
        _ = try await collect(endpoint.cacheThenNetwork(using: configuration))
        server.status.withLock { $0 = 503 }
        #expect(
            try await collect(endpoint.cacheThenNetwork(using: configuration)) == [
                "cached 1 age 0", "failed 503",
            ])
    }

    @Test func aNetworkFailureWithoutACachedValueIsThrown() async throws {
        let server = NumberingServer()
        server.status.withLock { $0 = 503 }
        let configuration = cachingConfiguration(server, cache: ResponseCache())
        let endpoint = GET<Void>("/items", tags: [.cache(Self.cacheThenNetwork)])
        let error = await #expect(throws: APIError.self) {
            try await collect(endpoint.cacheThenNetwork(using: configuration))
        }
        #expect(error?.reason == .unacceptableStatus(.serverError))
    }

    @Test func withoutACacheOnlyTheNetworkIsAsked() async throws {
        let server = NumberingServer()
        let configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com"), executor: server)
        let endpoint = GET<Void>("/items", tags: [.cache(Self.cacheThenNetwork)])
        #expect(try await collect(endpoint.cacheThenNetwork(using: configuration)) == ["network 1"])
        #expect(server.hits == 1)
    }
}
