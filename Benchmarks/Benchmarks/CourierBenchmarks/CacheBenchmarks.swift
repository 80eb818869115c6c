import Benchmark
import Courier
import CourierBenchmarkSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A cache hit on a 2 KB JSON body, from memory and from disk: Courier's `ResponseCache` against Foundation's
/// `URLCache` holding the same response for the same request.
///
/// - `cache.memory-hit` / `cache.disk-hit`: the lookup alone, before decoding — for Courier
///   `cachedResponse(for:)` (key digest, lookup, `Vary` and freshness check, the response value); for the
///   baseline `URLCache.cachedResponse(for:)`. Targets: ≤ 5 µs from memory, ≤ 200 µs from disk.
/// - `cache.memory-call` / `cache.disk-call`: the whole call — `$repos.request(with:)` answered by the cache
///   (plugins, cache, status check), its body decoded into `[Repository]` — against
///   `URLCache.cachedResponse(for:)` plus `JSONDecoder().decode`.
func registerCacheBenchmarks() {
    let body = Fixtures.small
    let settings = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 50,
        maxDuration: .milliseconds(700),
        maxIterations: 200_000
    )
    typealias Lookup = @Sendable () async throws -> Int
    typealias Call = @Sendable () async throws -> [Repository]

    for level in ["memory", "disk"] {
        for side in ["courier", "baseline"] {
            Benchmark("cache.\(level)-hit.\(side)", configuration: settings) { (benchmark: Benchmark, lookup: Lookup) in
                for _ in benchmark.scaledIterations {
                    do { blackHole(try await lookup()) } catch { benchmark.error("\(error)") }
                }
            } setup: { () async throws -> Lookup in
                let fixture = try await CacheFixture(level: level, body: body)
                if side == "courier" {
                    return {
                        guard let response = await fixture.cache.cachedResponse(for: fixture.request) else {
                            throw BenchmarkSetupError("cache.\(level)-hit: Courier missed")
                        }
                        return response.data.count
                    }
                }
                return {
                    guard let cached = fixture.urlCache.cachedResponse(for: fixture.urlRequest) else {
                        throw BenchmarkSetupError("cache.\(level)-hit: URLCache missed")
                    }
                    return cached.data.count
                }
            }

            Benchmark("cache.\(level)-call.\(side)", configuration: settings) { (benchmark: Benchmark, call: Call) in
                for _ in benchmark.scaledIterations {
                    do { blackHole(try await call()) } catch { benchmark.error("\(error)") }
                }
            } setup: { () async throws -> Call in
                let fixture = try await CacheFixture(level: level, body: body)
                let repos = fixture.repos
                let configuration = fixture.configuration
                if side == "courier" {
                    return {
                        let response: APIResponse = try await repos.request(with: "octocat", using: configuration)
                        guard response.cacheHit != nil else {
                            throw BenchmarkSetupError("cache.\(level)-call: not from the cache")
                        }
                        return try JSONDecoder().decode([Repository].self, from: response.data)
                    }
                }
                return {
                    guard let cached = fixture.urlCache.cachedResponse(for: fixture.urlRequest) else {
                        throw BenchmarkSetupError("cache.\(level)-call: URLCache missed")
                    }
                    return try JSONDecoder().decode([Repository].self, from: cached.data)
                }
            }
        }
    }
}

/// One response stored in both caches, at one level.
struct CacheFixture: Sendable {
    let cache: ResponseCache
    let configuration: APIConfiguration
    let repos: GET<String>
    let request: APIRequest
    let urlCache: URLCache
    let urlRequest: URLRequest

    init(level: String, body: Data) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-cache-bench-\(level)-\(UUID().uuidString)", isDirectory: true)
        let policy = CachePolicy(
            read: .cacheElseNetwork, write: level == "memory" ? .memory : .disk, expiry: .seconds(3600))
        cache = ResponseCache(
            memory: level == "memory" ? MemoryCacheStorage() : nil,
            disk: level == "disk" ? DiskCacheStorage(directory: directory.appendingPathComponent("courier")) : nil,
            defaultPolicy: policy)
        let cache = cache
        configuration = APIConfiguration(
            baseURL: URL(string: "https://api.example.com"), executor: ConstantExecutor(body: body)
        ).with { $0.cache = cache }
        repos = await Endpoints().repos
        // The first call goes to the executor and writes the entry.
        let first: APIResponse = try await repos.request(with: "octocat", using: configuration)
        request = try repos.makeRequest(with: "octocat", using: configuration)
        guard first.cacheHit == nil, await cache.cachedResponse(for: request)?.data == body else {
            throw BenchmarkSetupError("cache.\(level): the entry was not written")
        }

        let memoryCapacity = level == "memory" ? 16 << 20 : 0
        let diskCapacity = level == "disk" ? 64 << 20 : 0
        #if canImport(FoundationNetworking)
            urlCache = URLCache(
                memoryCapacity: memoryCapacity, diskCapacity: diskCapacity,
                diskPath: directory.appendingPathComponent("urlcache").path)
        #else
            urlCache = URLCache(
                memoryCapacity: memoryCapacity, diskCapacity: diskCapacity,
                directory: directory.appendingPathComponent("urlcache"))
        #endif
        urlRequest = request.urlRequest
        guard
            let response = HTTPURLResponse(
                url: request.url, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json", "Cache-Control": "max-age=3600"])
        else { throw BenchmarkSetupError("cache.\(level): no HTTPURLResponse") }
        urlCache.storeCachedResponse(CachedURLResponse(response: response, data: body), for: urlRequest)
        guard urlCache.cachedResponse(for: urlRequest)?.data == body else {
            throw BenchmarkSetupError("cache.\(level): URLCache did not keep the response")
        }
    }
}
