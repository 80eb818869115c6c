// Caching: a ResponseCache on the configuration, and a `.cache` tag per endpoint saying how it reads, writes
// and expires. The cache sits between the plugins and the executor: the arrows (→ ←) below are the requests
// that really reach the server, so a cache hit prints none.
import Courier
import Foundation

@MainActor
enum Cached {
    /// A fresh UUID on every request: a repeated value means the cache answered.
    @GET("/uuid", tags: [.cache(.cacheElseNetwork(seconds: 60))])
    static var uuid: APIParameterBuilder<Void>? = nil

    @GET("/uuid", tags: [.cache(.networkOnly)])
    static var freshUUID: APIParameterBuilder<Void>? = nil

    /// Fresh for 10 seconds, then revalidated with `If-None-Match`: httpbin answers 304.
    @GET(
        "/etag/{tag}", tags: [.cache(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .seconds(10)))]
    )
    static var etag: APIParameterBuilder<String>? = .init { ["tag": $0] }

    /// httpbin sets the response headers from the query: here `Cache-Control: no-store`.
    @GET("/response-headers", tags: [.cache(.cacheElseNetwork(seconds: 60))])
    static var noStore: APIParameterBuilder<Void>? = .init { ["Cache-Control": "no-store"] }

    /// The token goes into the key: each user gets their own entry, in memory only.
    @GET("/bearer", tags: [.cache(.cacheElseNetwork(seconds: 60).with { $0.keyPrefix = "session/" })])
    static var me: APIParameterBuilder<Void>? = nil

    /// Its own key prefix, so it does not share the entry of `uuid` above (same method and URL).
    @GET("/uuid", tags: [.cache(CachePolicy(read: .cacheThenNetwork, write: .memory).with { $0.keyPrefix = "feed/" })])
    static var feed: APIParameterBuilder<Void>? = nil

    /// Identical calls in flight at once share one request.
    @GET("/delay/1", tags: [.cache(CachePolicy(deduplicatesInFlightRequests: true))])
    static var slow: APIParameterBuilder<Void>? = nil
}

struct UUIDBody: Decodable, Sendable {
    var uuid: String
}

/// A clock the page moves by hand, so that expiry shows without waiting.
final class PageClock: @unchecked Sendable {
    // @unchecked: every access to `date` goes through `lock`.
    private let lock = NSLock()
    private var date = Date()

    var now: Date { lock.withLock { date } }

    func advance(_ seconds: TimeInterval) { lock.withLock { date = date.addingTimeInterval(seconds) } }
}

/// Counts the requests that reach the executor under the cache.
struct CountingTransport: APIExecutor {
    let base: any APIExecutor
    let tally: Tally

    func execute(_ request: APIRequest) async throws -> APIResponse {
        tally.increment()
        return try await base.execute(request)
    }
}

@MainActor
enum CachingPage {
    static func run(_ stage: Stage) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-playground-cache-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = PageClock()
        let sent = Tally()
        let cache = ResponseCache(
            memory: MemoryCacheStorage(costLimit: 1024 * 1024),
            disk: DiskCacheStorage(directory: directory, byteLimit: 10 * 1024 * 1024),
            now: { clock.now })  // storages and a clock of the page's own
        let configuration = APIConfiguration.default.with {
            $0.cache = cache
            $0.executor = CountingTransport(base: $0.executor, tally: sent)
        }

        Console.step("`tags: [.cache(.cacheElseNetwork(seconds: 60))]`: the second call is answered by the cache")
        let first: UUIDBody = try await Cached.$uuid.request(using: configuration)
        let second = try await Cached.$uuid.request(using: configuration)
        let again = try JSONDecoder().decode(UUIDBody.self, from: second.data)
        Console.result("first \(first.uuid), second \(again.uuid): same body, requests sent: \(sent.count)")
        Console.result("second.cacheHit: age \(Int(second.cacheHit?.age ?? -1)) s")
        let fresh: UUIDBody = try await Cached.$freshUUID.request(using: configuration)
        Console.result("the same URL with `.networkOnly`: \(fresh.uuid)")
        clock.advance(60)
        let expired: UUIDBody = try await Cached.$uuid.request(using: configuration)
        Console.result("60 s later (the page's clock) the entry is stale: \(expired.uuid) from the network")

        Console.step("A stale entry with an ETag is revalidated: `If-None-Match` → 304, the cached body is served")
        _ = try await Cached.$etag.request(with: "v1", using: configuration)
        clock.advance(10)
        let revalidated = try await Cached.$etag.request(with: "v1", using: configuration)
        Console.result(
            "status \(revalidated.statusCode), revalidated \(revalidated.cacheHit?.revalidated ?? false), "
                + "body \(revalidated.data.count) bytes from the cache")

        Console.step("`Cache-Control: no-store` from the server is never written")
        let before = sent.count
        try await Cached.$noStore.request(using: configuration)
        try await Cached.$noStore.request(using: configuration)
        Console.result("requests sent for two calls: \(sent.count - before)")

        Console.step("Credentials are part of the key: each token gets its own entry, and only in memory")
        let ann = configuration.with { $0.plugins = [.bearer("secret-token-ann")] }
        let bob = configuration.with { $0.plugins = [.bearer("secret-token-bob")] }
        let beforeUsers = sent.count
        let filesBefore = diskFiles(directory)
        for user in [ann, bob, ann, bob] { try await Cached.$me.request(using: user) }
        Console.result("four calls by two users: \(sent.count - beforeUsers) requests")
        Console.result(
            "new files on disk: \(diskFiles(directory) - filesBefore) (credentialed responses stay off disk by default)"
        )
        await cache.removeAll(withPrefix: "session/")
        Console.note("on sign-out: `await cache.removeAll(withPrefix: \"session/\")`")

        Console.step("`cacheThenNetwork(with:)`: the cached value first (none the first time), then the network's")
        for _ in 0..<2 {
            let updates = Cached.$feed.cacheThenNetwork(using: configuration) as CacheThenNetworkSequence<UUIDBody>
            for try await update in updates {
                switch update {
                case .cached(let value, let age): Console.result("cached \(value.uuid) (age \(Int(age)) s)")
                case .network(let value): Console.result("network \(value.uuid)")
                case .networkFailed(let error): Console.caught(error)
                }
            }
        }

        Console.step("In-flight de-duplication: five identical calls at once share one request to /delay/1")
        let beforeSlow = sent.count
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { try await Cached.$slow.request(using: configuration) } }
            try await group.waitForAll()
        }
        Console.result("requests sent: \(sent.count - beforeSlow)")
        Console.note("a cancelled caller leaves alone; the last one to leave cancels the request")
    }

    static func diskFiles(_ directory: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".courier-cache") }.count
    }
}
