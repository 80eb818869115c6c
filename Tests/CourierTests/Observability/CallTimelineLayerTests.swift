import Courier
import CourierTesting
import Foundation
import Testing

/// What the layers between the plugins and the executor add to the call timeline (stubs): the cache's decisions,
/// de-duplicated waits, credential refreshes.
@Suite struct CallTimelineLayerTests {
    typealias Recorder = CallTimelineTests.Recorder

    /// The cache events of a timeline, in order.
    static func cacheDetails(_ timeline: CallTimeline?) -> [String] {
        timeline?.events.filter { $0.kind == .cache }.compactMap(\.detail) ?? []
    }

    @Test("A miss is stored; the stale entry is revalidated with a 304 and shows as such")
    func cacheRevalidation() async throws {
        // GIVEN an entry with an ETag written by a first call (a miss, then stored)
        let setup = ResponseCacheTests.Setup(server: NumberingServer(headers: ["ETag": "\"v1\""]))
        let configuration = setup.configuration.with { $0.observers = [Recorder()] }
        let endpoint = ResponseCacheTests.endpoint(
            CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .seconds(10)))
        let first: APIResponse = try await endpoint.request(using: configuration)
        #expect(Self.cacheDetails(first.timeline) == ["miss", "stored"])

        // WHEN it went stale and is read again
        setup.clock.advance(10)
        let second: APIResponse = try await endpoint.request(using: configuration)

        // THEN the timeline says stale, then revalidated by a 304, then stored again; a fresh read is a hit
        #expect(second.cacheHit?.revalidated == true)
        #expect(Self.cacheDetails(second.timeline) == ["stale", "stored", "revalidated"])
        let revalidated = try #require(second.timeline?.events.first { $0.detail == "revalidated" })
        #expect(revalidated.statusCode == 304)
        let third: APIResponse = try await endpoint.request(using: configuration)
        #expect(Self.cacheDetails(third.timeline) == ["hit"])
        #expect(third.timeline?.attempts == 1)
    }

    @Test("Cache then network: the cached value and the network's are two calls, each with a timeline of its own")
    func cacheThenNetworkTimelines() async throws {
        // GIVEN an entry written by an earlier call, and an observer
        let recorder = Recorder()
        let configuration = cachingConfiguration(NumberingServer(), cache: ResponseCache()).with {
            $0.observers = [recorder]
        }
        let endpoint = GET<Void>("/items", tags: [.cache(CachePolicy(read: .cacheThenNetwork, write: .memory))])
        let _: Numbered = try await endpoint.request(using: configuration)
        recorder.seen.withLock { $0.removeAll() }

        // WHEN the cache-then-network form delivers both values
        var updates = 0
        for try await _ in endpoint.cacheThenNetwork(using: configuration) as CacheThenNetworkSequence<Numbered> {
            updates += 1
        }

        // THEN the observer saw two calls in order: the cache's answer (a hit), then the network's (stored)
        let finished = recorder.seen.value.filter { $0.0.kind == .finished }.map(\.1)
        #expect(updates == 2)
        #expect(finished.count == 2)
        #expect(finished.first.map { Self.cacheDetails($0) } == ["hit"])
        #expect(finished.last.map { Self.cacheDetails($0) }?.last == "stored")
    }

    @Test("A response the policy may not store says why")
    func cacheSkips() async throws {
        let setup = ResponseCacheTests.Setup(server: NumberingServer(headers: ["Cache-Control": "no-store"]))
        let configuration = setup.configuration.with { $0.observers = [Recorder()] }
        let endpoint = ResponseCacheTests.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memory))
        let response: APIResponse = try await endpoint.request(using: configuration)
        #expect(Self.cacheDetails(response.timeline).last?.hasPrefix("skipped: not storable") == true)

        let post = POST<Void>(wrappedValue: nil, "/items")
        let posted: APIResponse = try await post.request(using: configuration)
        #expect(Self.cacheDetails(posted.timeline) == ["skipped: the policy does not cache this request"])
    }

    @Test("Calls that wait for an identical call in flight say so")
    func deduplicatedWait() async throws {
        let server = NumberingServer(delay: .milliseconds(300))
        let configuration = cachingConfiguration(server, cache: ResponseCache()).with { $0.observers = [Recorder()] }
        let endpoint = GET<Void>("/items", tags: [.cache(CachePolicy(deduplicatesInFlightRequests: true))])
        let timelines = try await withThrowingTaskGroup(of: CallTimeline?.self) { group in
            for _ in 0..<5 { group.addTask { try await endpoint.request(using: configuration).timeline } }
            return try await group.reduce(into: [CallTimeline?]()) { $0.append($1) }
        }
        #expect(server.hits == 1)
        let joined = timelines.filter { $0?.events.contains { $0.kind == .joinedInFlight } == true }
        #expect(joined.count == 4)
    }

    @Test("A 401 refreshes the credential once: started, finished, and the second attempt")
    func authRefresh() async throws {
        let stub = StubExecutor().stub(where: { _ in true }) { request in
            let ok = request.headers[.authorization] == "Bearer fresh"
            return StubResponse(statusCode: ok ? 200 : 401, body: Data("{}".utf8))
        }
        let plugin = RefreshingAuthPlugin<String>(
            credential: { "stale" }, refresh: { _ in "fresh" },
            apply: { token, request in request.headers[.authorization] = "Bearer \(token)" })
        let configuration = testConfiguration.with {
            $0.executor = stub
            $0.plugins = [plugin]
            $0.observers = [Recorder()]
        }

        let response: APIResponse = try await GET<Void>(wrappedValue: nil, "/me").request(using: configuration)

        let timeline = try #require(response.timeline)
        #expect(
            timeline.events.map(\.kind) == [
                .started, .built, .attemptStarted, .responseReceived, .authRefresh, .authRefresh, .attemptStarted,
                .responseReceived, .finished,
            ])
        #expect(timeline.events.filter { $0.kind == .authRefresh }.map(\.detail) == ["started", "finished"])
        #expect(timeline.attempts == 2)
        #expect(timeline.statusCode == 200)
    }
}
