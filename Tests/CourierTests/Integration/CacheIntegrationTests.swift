import Courier
import Foundation
import Testing

/// Records the status of every response that reaches the real server's side of the cache.
final class StatusRecorder: APIExecutor {
    let statuses = LockedBox<[Int]>([])
    let sent = LockedBox<[APIRequest]>([])

    func execute(_ request: APIRequest) async throws -> APIResponse {
        sent.withLock { $0.append(request) }
        let response = try await URLSessionExecutor.shared.execute(request)
        statuses.withLock { $0.append(response.statusCode) }
        return response
    }
}

/// The cache against the real httpbin: `/uuid` tells a cached body from a fresh one, `/cache` and `/etag`
/// answer conditional requests with `304`, `/cache/{n}` sends `max-age`, `/anything` shows what was sent.
@Suite(.httpbin) struct CacheIntegrationTests {
    struct UUIDBody: Decodable, Sendable, Equatable {
        let uuid: String
    }

    struct Echo: Decodable, Sendable {
        let headers: [String: String]
    }

    struct Setup {
        let clock = TestClock()
        let recorder = StatusRecorder()
        let memory = MemoryCacheStorage()
        let directory = temporaryCacheDirectory()
        let cache: ResponseCache
        let configuration: APIConfiguration

        init() throws {
            let cache = ResponseCache(memory: memory, disk: DiskCacheStorage(directory: directory), now: clock.now)
            self.cache = cache
            configuration = try HTTPBin.configuration(executor: recorder).with { $0.cache = cache }
        }
    }

    static func uuid(_ policy: CachePolicy) -> GET<Void> { GET<Void>("/uuid", tags: [.cache(policy)]) }

    @Test func aCachedBodyIsTheSameUUIDAndTheNetworkGivesANewOne() async throws {
        let setup = try Setup()
        let cached = Self.uuid(.cacheElseNetwork(seconds: 60))
        let first: UUIDBody = try await cached.request(using: setup.configuration)
        let second: UUIDBody = try await cached.request(using: setup.configuration)
        let fresh: UUIDBody = try await Self.uuid(.networkOnly).request(using: setup.configuration)
        #expect(first == second)
        #expect(fresh != first)
        #expect(setup.recorder.statuses.value == [200, 200])
    }

    @Test func theDiskLevelOutlivesTheProcessesMemory() async throws {
        // GIVEN a response written to disk by one cache
        let setup = try Setup()
        let policy = CachePolicy(read: .cacheElseNetwork, write: .disk, expiry: .seconds(60))
        let first: UUIDBody = try await Self.uuid(policy).request(using: setup.configuration)
        // WHEN a new cache (a new launch) on the same directory reads it, without a network
        let relaunched = ResponseCache(memory: MemoryCacheStorage(), disk: DiskCacheStorage(directory: setup.directory))
        let offline = setup.configuration.with { $0.cache = relaunched }
        let second: UUIDBody = try await Self.uuid(policy.with { $0.read = .cacheOnly }).request(using: offline)
        // THEN it is the same body
        #expect(first == second)
        #expect(setup.recorder.statuses.value == [200])
    }

    @Test func cacheEndpointAnswers304AndTheEntryIsServed() async throws {
        // GIVEN /cache's response (Last-Modified + ETag), stale at once
        let setup = try Setup()
        let endpoint = GET<Void>(
            "/cache", tags: [.cache(CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .seconds(0)))])
        let first = try await endpoint.request(using: setup.configuration)
        // WHEN it is read again
        let second = try await endpoint.request(using: setup.configuration)
        // THEN httpbin answered the conditional request with 304 and the cached body came back as a 200
        #expect(setup.recorder.statuses.value == [200, 304])
        #expect(setup.recorder.sent.value.last?.headers[.ifNoneMatch] == first.headers[.eTag])
        #expect(second.statusCode == 200)
        #expect(second.data == first.data)
        #expect(second.cacheHit?.revalidated == true)
    }

    @Test func etagEndpointRevalidatesWithIfNoneMatch() async throws {
        let setup = try Setup()
        let endpoint = GET<Void>(
            "/etag/v42",
            tags: [.cache(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .seconds(30)))])
        let first = try await endpoint.request(using: setup.configuration)
        #expect(first.headers[.eTag] == "v42")
        setup.clock.advance(29)
        _ = try await endpoint.request(using: setup.configuration)
        #expect(setup.recorder.statuses.value == [200])
        setup.clock.advance(1)
        let revalidated = try await endpoint.request(using: setup.configuration)
        #expect(setup.recorder.statuses.value == [200, 304])
        #expect(revalidated.data == first.data)
        // The 304 restarted the entry's freshness.
        setup.clock.advance(29)
        _ = try await endpoint.request(using: setup.configuration)
        #expect(setup.recorder.statuses.value == [200, 304])
    }

    @Test func cacheMaxAgeDecidesFreshness() async throws {
        let setup = try Setup()
        let endpoint = GET<Void>(
            "/cache/60",
            tags: [.cache(CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .server(otherwise: .never)))])
        _ = try await endpoint.request(using: setup.configuration)
        setup.clock.advance(59)
        _ = try await endpoint.request(using: setup.configuration)
        #expect(setup.recorder.statuses.value.count == 1)
        setup.clock.advance(1)
        _ = try await endpoint.request(using: setup.configuration)
        #expect(setup.recorder.statuses.value.count == 2)
    }

    @Test func noStoreFromTheServerIsNotWritten() async throws {
        let setup = try Setup()
        let endpoint = GET<Void>(
            "/response-headers",
            tags: [.cache(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .never))])
        let request = try endpoint.makeRequest(using: setup.configuration)
        #expect(request.url.query == nil)
        let noStore = GET<[String: String]>(
            wrappedValue: .init { $0 }, "/response-headers",
            tags: [.cache(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .never))])
        _ = try await noStore.request(with: ["Cache-Control": "no-store"], using: setup.configuration)
        _ = try await noStore.request(with: ["Cache-Control": "no-store"], using: setup.configuration)
        #expect(setup.recorder.statuses.value == [200, 200])
        #expect(setup.memory.count == 0)
        #expect(cacheFiles(in: setup.directory).isEmpty)
        // The same endpoint without no-store is written.
        _ = try await noStore.request(with: ["Cache-Control": "max-age=60"], using: setup.configuration)
        #expect(setup.memory.count == 1)
    }

    @Test func theRevalidationHeadersReachTheServer() async throws {
        // GIVEN an entry with ETag "v7" from /etag/v7, stored under a key /anything shares
        let setup = try Setup()
        let policy = CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .seconds(0))
            .with { $0.customKey = { _ in "shared" } }
        _ = try await GET<Void>("/etag/v7", tags: [.cache(policy)]).request(using: setup.configuration)
        // WHEN /anything is called with it stale
        let echo: Echo = try await GET<Void>("/anything", tags: [.cache(policy)]).request(using: setup.configuration)
        // THEN the echo shows the conditional header the cache added
        #expect(echo.headers["If-None-Match"] == "v7")
    }

    @Test func credentialsReachTheServerAndEachUserGetsTheirOwnEntry() async throws {
        let setup = try Setup()
        let endpoint = GET<Void>("/anything", tags: [.cache(.cacheElseNetwork(seconds: 60))])
        let alice = setup.configuration.with { $0.plugins = [.bearer("alice-token")] }
        let bob = setup.configuration.with { $0.plugins = [.bearer("bob-token")] }
        let aliceEcho: Echo = try await endpoint.request(using: alice)
        let bobEcho: Echo = try await endpoint.request(using: bob)
        let aliceAgain: Echo = try await endpoint.request(using: alice)
        #expect(aliceEcho.headers["Authorization"] == "Bearer alice-token")
        #expect(bobEcho.headers["Authorization"] == "Bearer bob-token")
        #expect(aliceAgain.headers["Authorization"] == "Bearer alice-token")
        #expect(setup.recorder.statuses.value.count == 2)
        #expect(cacheFiles(in: setup.directory).isEmpty)  // credentialed: memory only
    }
}

/// In-flight de-duplication against the fault server's counting route.
@Suite(.faultServer) struct CacheDeduplicationIntegrationTests {
    struct Count: Decodable, Sendable {
        let hits: Int
        var gone: Int?
    }

    static let count = GET<(key: String, delay: Double)>(
        wrappedValue: .init { ["key": $0.key, "delay": $0.delay] }, "/count",
        tags: [.cache(CachePolicy(deduplicatesInFlightRequests: true))])
    static let stats = GET<String>(wrappedValue: .init { ["key": $0] }, "/count-stats")

    func configuration() throws -> APIConfiguration {
        try FaultServer.configuration(timeout: .seconds(30)).with { $0.cache = ResponseCache() }
    }

    /// Polls the server's counts for `key` until `condition` holds or 10 s pass; returns the last counts.
    @discardableResult
    func waitForStats(
        key: String, configuration: APIConfiguration, until condition: (Count) -> Bool
    )
        async throws -> Count
    {
        var stats: Count = try await Self.stats.request(with: key, using: configuration)
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(stats), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            stats = try await Self.stats.request(with: key, using: configuration)
        }
        return stats
    }

    @Test func aHundredIdenticalCallsReachTheServerOnce() async throws {
        let configuration = try configuration()
        let key = UUID().uuidString
        let hits = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    let count: Count = try await Self.count.request(with: (key, 1.0), using: configuration)
                    return count.hits
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(hits.count == 100)
        #expect(Set(hits) == [1])
        let stats: Count = try await Self.stats.request(with: key, using: configuration)
        #expect(stats.hits == 1)
    }

    @Test func cancellingOneWaiterDoesNotCancelTheOthers() async throws {
        let configuration = try configuration()
        let key = UUID().uuidString
        // The server answers 10 s after the call reaches it, so the cancel below lands while all three wait, however
        // busy the machine (with 2 s, a CI run under the load of parallel suites cancelled after the answer came).
        let tasks = (0..<3).map { _ in
            Task { () throws -> Int in
                let count: Count = try await Self.count.request(with: (key, 10.0), using: configuration)
                return count.hits
            }
        }
        try await waitForStats(key: key, configuration: configuration) { $0.hits == 1 }
        tasks[0].cancel()
        #expect(await tasks[0].result.isFailure)
        #expect(try await tasks[1].value == 1)
        #expect(try await tasks[2].value == 1)
        let stats: Count = try await Self.stats.request(with: key, using: configuration)
        #expect(stats.hits == 1)
        #expect(stats.gone == 0)
    }

    @Test func theLastWaiterLeavingCancelsTheCall() async throws {
        let configuration = try configuration()
        let key = UUID().uuidString
        let tasks = (0..<3).map { _ in
            Task { try await Self.count.request(with: (key, 20.0), using: configuration) }
        }
        // Cancel once the call is at the server (a busy machine may take a while to connect).
        try await waitForStats(key: key, configuration: configuration) { $0.hits == 1 }
        for task in tasks { task.cancel() }
        for task in tasks { _ = await task.result }
        // The server notices the closed connection within a few polls of 50 ms (generous slack for a busy CI).
        let stats = try await waitForStats(key: key, configuration: configuration) { $0.gone == 1 }
        #expect(stats.hits == 1)
        #expect(stats.gone == 1)
    }
}

extension Result {
    fileprivate var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
