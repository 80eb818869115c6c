import Courier
import Foundation
import Testing

/// What `LoggingPlugin`'s response line says of the cache: a hit, a revalidation, or nothing for the network.
@Suite struct CacheLoggingTests {
    enum Visit: String, CaseIterable, Sendable {
        /// The second call finds a fresh entry: the server is not reached.
        case fresh
        /// The entry went stale and has an `ETag`: the server answers the conditional request with `304`.
        case stale
        /// The endpoint does not read the cache: the server answers.
        case network
    }

    @Test(arguments: [
        (Visit.fresh, ", from cache)", 1),
        (Visit.stale, ", from cache, revalidated: 304)", 2),
        (Visit.network, " bytes)", 2),
    ])
    func theResponseLineSaysWhetherTheCacheAnswered(visit: Visit, ending: String, serverHits: Int) async throws {
        // GIVEN a cached entry, a logging plugin in front of the cache, and a second call to the same URL
        let server = NumberingServer(headers: ["ETag": "\"v1\""])
        let clock = TestClock()
        let cache = ResponseCache(memory: MemoryCacheStorage(), disk: nil, now: clock.now)
        let lines = LockedBox<[String]>([])
        let configuration = cachingConfiguration(
            server, cache: cache, plugins: [.logging { line in lines.withLock { $0.append(line) } }])
        let read: CachePolicy.ReadMode = visit == .network ? .networkOnly : .cacheElseNetwork
        let seed = GET<Void>(
            "/uuid", tags: [.cache(CachePolicy(read: .networkOnly, write: .memory, expiry: .seconds(60)))])
        let endpoint = GET<Void>("/uuid", tags: [.cache(CachePolicy(read: read, write: .memory, expiry: .seconds(60)))])
        let _: Numbered = try await seed.request(using: configuration)
        if visit == .stale { clock.advance(61) }

        // WHEN the second call is made
        let _: Numbered = try await endpoint.request(using: configuration)

        // THEN its response line ends as the cache's part in it says, and the first call's line marks nothing
        #expect(lines.value.count == 4)
        let first = lines.value[1]
        let second = lines.value[3]
        #expect(first.hasPrefix("← 200 GET https://api.example.com/uuid ("))
        #expect(first.hasSuffix(" ms, 7 bytes)"))
        #expect(second.hasPrefix("← 200 GET https://api.example.com/uuid ("))
        #expect(second.hasSuffix(ending))
        #expect(second.contains("from cache") == (visit != .network))
        #expect(server.hits == serverHits)
    }
}
