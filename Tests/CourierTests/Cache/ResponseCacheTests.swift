@_spi(Testing) import Courier
import Foundation
import Testing

/// The cache's decisions above the executor: read and write modes, expiry, revalidation, keys, credentials.
@Suite struct ResponseCacheTests {
    static let readModes: [CachePolicy.ReadMode] = [.networkOnly, .cacheElseNetwork, .cacheOnly, .cacheThenNetwork]
    static let writeModes: [CachePolicy.WriteMode] = [.none, .memory, .disk, .memoryAndDisk]

    struct Setup {
        let server: NumberingServer
        let clock = TestClock()
        let memory = MemoryCacheStorage()
        let directory = temporaryCacheDirectory()
        let disk: DiskCacheStorage
        let cache: ResponseCache
        let configuration: APIConfiguration

        init(server: NumberingServer = NumberingServer(), plugins: [any APIPlugin] = []) {
            self.server = server
            disk = DiskCacheStorage(directory: directory)
            cache = ResponseCache(memory: memory, disk: disk, now: clock.now)
            configuration = cachingConfiguration(server, cache: cache, plugins: plugins)
        }

        func call(_ endpoint: GET<Void>) async throws -> Int {
            let value: Numbered = try await endpoint.request(using: configuration)
            return value.n
        }
    }

    static func endpoint(_ policy: CachePolicy, path: String = "/items") -> GET<Void> {
        GET<Void>(path, tags: [.cache(policy)])
    }

    // MARK: Read × write

    @Test(arguments: readModes, writeModes)
    func everyReadModeWithEveryWriteMode(read: CachePolicy.ReadMode, write: CachePolicy.WriteMode) async throws {
        // GIVEN an endpoint with this policy and an entry written by an earlier network call on the same key
        let setup = Setup()
        let policy = CachePolicy(read: read, write: write, expiry: .seconds(60))
        let seed = Self.endpoint(CachePolicy(read: .networkOnly, write: write, expiry: .seconds(60)))
        #expect(try await setup.call(seed) == 1)
        let writesMemory = write == .memory || write == .memoryAndDisk
        let writesDisk = write == .disk || write == .memoryAndDisk
        #expect(setup.memory.count == (writesMemory ? 1 : 0))
        #expect(cacheFiles(in: setup.directory).count == (writesDisk ? 1 : 0))
        let cached = write != .none

        // WHEN the endpoint is called
        let endpoint = Self.endpoint(policy)
        switch read {
        case .networkOnly, .cacheThenNetwork:
            // THEN the network answers (request(with:) returns the network value in cache-then-network)
            #expect(try await setup.call(endpoint) == 2)
            #expect(setup.server.hits == 2)
        case .cacheElseNetwork:
            // THEN a cached entry answers, else the network
            #expect(try await setup.call(endpoint) == 1 + (cached ? 0 : 1))
            #expect(setup.server.hits == (cached ? 1 : 2))
        case .cacheOnly:
            // THEN a cached entry answers, else the call fails without touching the network
            if cached {
                #expect(try await setup.call(endpoint) == 1)
            } else {
                let error = await #expect(throws: APIError.self) { try await setup.call(endpoint) }
                #expect(error?.reason == .notCached)
            }
            #expect(setup.server.hits == 1)
        }
        // AND the responses of network calls were written where the write mode says
        #expect(setup.memory.count == (writesMemory ? 1 : 0))
        #expect(cacheFiles(in: setup.directory).count == (writesDisk ? 1 : 0))
    }

    @Test func aDiskHitIsCopiedToMemory() async throws {
        let setup = Setup()
        let diskOnly = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .disk, expiry: .seconds(60)))
        let both = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .seconds(60)))
        #expect(try await setup.call(diskOnly) == 1)
        #expect(setup.memory.count == 0)
        #expect(try await setup.call(both) == 1)
        #expect(setup.memory.count == 1)
        #expect(setup.server.hits == 1)
    }

    @Test func responseFromTheCacheSaysSoWithItsAge() async throws {
        let setup = Setup()
        let endpoint = Self.endpoint(.cacheElseNetwork(seconds: 60))
        let first = try await endpoint.request(using: setup.configuration)
        #expect(first.cacheHit == nil)
        setup.clock.advance(12)
        let second = try await endpoint.request(using: setup.configuration)
        #expect(second.cacheHit == CacheHit(age: 12))
        #expect(second.data == first.data)
    }

    @Test func aTaskCanOverrideTheReadMode() async throws {
        let setup = Setup()
        let endpoint = Self.endpoint(CachePolicy(read: .networkOnly, write: .memory, expiry: .seconds(60)))
        #expect(try await setup.call(endpoint) == 1)
        let cached = try await ResponseCache.withReadMode(.cacheElseNetwork) { try await setup.call(endpoint) }
        #expect(cached == 1)
        #expect(try await setup.call(endpoint) == 2)  // the endpoint's own mode again outside the scope
        let other = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memory), path: "/other")
        let error = await #expect(throws: APIError.self) {
            try await ResponseCache.withReadMode(.cacheOnly) { try await setup.call(other) }
        }
        #expect(error?.reason == .notCached)
        #expect(setup.server.hits == 2)
    }

    @Test func cachedResponseReadsWithoutTheNetwork() async throws {
        let setup = Setup()
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .disk, expiry: .seconds(60)))
        let request = try endpoint.makeRequest(using: setup.configuration)
        #expect(await setup.cache.cachedResponse(for: request) == nil)
        #expect(try await setup.call(endpoint) == 1)
        let cached = try #require(await setup.cache.cachedResponse(for: request))
        #expect(cached.data == Data("{\"n\":1}".utf8))
        #expect(cached.cacheHit == CacheHit(age: 0))
        setup.clock.advance(60)
        #expect(await setup.cache.cachedResponse(for: request) == nil)
        #expect(setup.server.hits == 1)
    }

    @Test func removeEntryForARequestRemovesItFromBothLevels() async throws {
        let setup = Setup()
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .never))
        #expect(try await setup.call(endpoint) == 1)
        await setup.cache.removeEntry(for: try endpoint.makeRequest(using: setup.configuration))
        #expect(setup.memory.count == 0)
        #expect(cacheFiles(in: setup.directory).isEmpty)
        #expect(try await setup.call(endpoint) == 2)
    }

    // MARK: Expiry

    @Test func secondsExpiryIsFreshUpToTheBoundaryAndStaleAtIt() async throws {
        let setup = Setup()
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .seconds(60)))
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(59.999)
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(0.001)
        #expect(try await setup.call(endpoint) == 2)
    }

    @Test func cacheOnlyDoesNotServeAStaleEntry() async throws {
        let setup = Setup(server: NumberingServer(headers: ["ETag": "\"v1\""]))
        let seed = Self.endpoint(CachePolicy(read: .networkOnly, write: .memory, expiry: .seconds(10)))
        let cacheOnly = Self.endpoint(CachePolicy(read: .cacheOnly, write: .memory, expiry: .seconds(10)))
        #expect(try await setup.call(seed) == 1)
        #expect(try await setup.call(cacheOnly) == 1)
        setup.clock.advance(10)
        let error = await #expect(throws: APIError.self) { try await setup.call(cacheOnly) }
        #expect(error?.reason == .notCached)
        #expect(error?.description.contains("cache") == true)
        #expect(setup.server.hits == 1)  // not even a revalidation
    }

    @Test func dateExpiryIsFreshBeforeTheDateOnly() async throws {
        let setup = Setup()
        let until = setup.clock.date.value.addingTimeInterval(100)
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .date(until)))
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(99)
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(1)
        #expect(try await setup.call(endpoint) == 2)
    }

    @Test func neverExpires() async throws {
        let setup = Setup()
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .never))
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(10 * 365 * 86_400)
        #expect(try await setup.call(endpoint) == 1)
    }

    @Test func serverMaxAgeMinusAgeDecides() async throws {
        let setup = Setup(server: NumberingServer(headers: ["Cache-Control": "public, max-age=30", "Age": "10"]))
        let endpoint = Self.endpoint(
            CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .server(otherwise: .never)))
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(19.5)
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(0.5)
        #expect(try await setup.call(endpoint) == 2)
    }

    @Test func serverExpiryFallsBackWithoutMaxAge() async throws {
        let setup = Setup()
        let endpoint = Self.endpoint(
            CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .server(otherwise: .seconds(5))))
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(4)
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(1)
        #expect(try await setup.call(endpoint) == 2)
    }

    @Test func expiresHeaderCountsFromTheServersDate() async throws {
        let headers: HTTPHeaders = [
            "Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Expires": "Sun, 06 Nov 1994 08:50:37 GMT",
        ]
        let setup = Setup(server: NumberingServer(headers: headers))
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .server))
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(59)
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(1)
        #expect(try await setup.call(endpoint) == 2)
    }

    @Test func noCacheIsStoredButAlwaysRevalidated() async throws {
        let setup = Setup(server: NumberingServer(headers: ["Cache-Control": "no-cache", "ETag": "\"v1\""]))
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .server))
        #expect(try await setup.call(endpoint) == 1)
        #expect(try await setup.call(endpoint) == 1)
        #expect(setup.server.hits == 2)
        #expect(setup.server.requests.value.last?.headers[.ifNoneMatch] == "\"v1\"")
    }

    // MARK: HTTP rules

    @Test func noStoreIsNeverWritten() async throws {
        let setup = Setup(server: NumberingServer(headers: ["Cache-Control": "no-store"]))
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .never))
        #expect(try await setup.call(endpoint) == 1)
        #expect(try await setup.call(endpoint) == 2)
        #expect(setup.memory.count == 0)
        #expect(cacheFiles(in: setup.directory).isEmpty)
    }

    @Test(arguments: [201, 203, 299])
    func successfulStatusesAreWritten(status: Int) async throws {
        let setup = Setup()
        setup.server.status.withLock { $0 = status }
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .never))
        _ = try await endpoint.request(using: setup.configuration)
        #expect(setup.memory.count == 1)
    }

    @Test(arguments: [404, 500, 503])
    func failuresAreNotWrittenByDefault(status: Int) async throws {
        let setup = Setup()
        setup.server.status.withLock { $0 = status }
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .never))
        await #expect(throws: APIError.self) { try await endpoint.request(using: setup.configuration) }
        #expect(setup.memory.count == 0)
    }

    @Test func aStaleEntryIsRevalidatedAndA304RefreshesIt() async throws {
        // GIVEN an entry with an ETag that went stale
        let setup = Setup(server: NumberingServer(headers: ["ETag": "\"v1\"", "X-Version": "1"]))
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .seconds(10)))
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(10)
        setup.server.headers.withLock { $0["X-Version"] = "2" }

        // WHEN it is read
        let response = try await endpoint.request(using: setup.configuration)

        // THEN a conditional request went out, the 304 served the cached body, refreshed headers and freshness
        #expect(setup.server.requests.value.last?.headers[.ifNoneMatch] == "\"v1\"")
        #expect(response.statusCode == 200)
        #expect(response.data == Data("{\"n\":1}".utf8))
        #expect(response.cacheHit?.revalidated == true)
        #expect(response.headers["X-Version"] == "2")
        setup.clock.advance(9)
        #expect(try await setup.call(endpoint) == 1)
        #expect(setup.server.hits == 2)
    }

    @Test func revalidationCanBeTurnedOff() async throws {
        let setup = Setup(server: NumberingServer(headers: ["ETag": "\"v1\""]))
        let policy = CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .seconds(10), revalidates: false)
        let endpoint = Self.endpoint(policy)
        #expect(try await setup.call(endpoint) == 1)
        setup.clock.advance(10)
        #expect(try await setup.call(endpoint) == 2)
        #expect(setup.server.requests.value.last?.headers[.ifNoneMatch] == nil)
    }

    @Test func varyKeepsOtherHeaderValuesApart() async throws {
        let setup = Setup(server: NumberingServer(headers: ["Vary": "Accept-Language"]))
        let policy = CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .never)
        let english = GET<Void>("/items", headers: ["Accept-Language": "en"], tags: [.cache(policy)])
        let french = GET<Void>("/items", headers: ["Accept-Language": "fr"], tags: [.cache(policy)])
        #expect(try await setup.call(english) == 1)
        #expect(try await setup.call(english) == 1)
        #expect(try await setup.call(french) == 2)
    }

    @Test func varyStarIsNotWritten() async throws {
        let setup = Setup(server: NumberingServer(headers: ["Vary": "*"]))
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .never))
        #expect(try await setup.call(endpoint) == 1)
        #expect(setup.memory.count == 0)
    }

    @Test func setCookieIsNotStored() async throws {
        let setup = Setup(server: NumberingServer(headers: ["Set-Cookie": "session=abc", "X-Kept": "1"]))
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memory, expiry: .never))
        _ = try await setup.call(endpoint)
        let hit = try await endpoint.request(using: setup.configuration)
        #expect(hit.cacheHit != nil)
        #expect(hit.headers[.setCookie] == nil)
        #expect(hit.headers["X-Kept"] == "1")
    }

    @Test func postIsNotCachedUnlessThePolicyListsIt() async throws {
        let setup = Setup()
        let plain = POST<[String: String]>(wrappedValue: .init { $0 }, "/search", tags: [.cache(.cacheElseNetwork())])
        let listed = POST<[String: String]>(
            wrappedValue: .init { $0 }, "/search", tags: [.cache(.cacheElseNetwork().with { $0.methods = [.post] })])
        func call(_ endpoint: POST<[String: String]>, _ query: String) async throws -> Int {
            let value: Numbered = try await endpoint.request(with: ["q": query], using: setup.configuration)
            return value.n
        }
        #expect(try await call(plain, "a") == 1)
        #expect(try await call(plain, "a") == 2)
        #expect(try await call(listed, "a") == 3)
        #expect(try await call(listed, "a") == 3)
        #expect(try await call(listed, "b") == 4)  // the body is in the key
    }

    // MARK: Keys

    @Test func ignoredQueryItemsAreLeftOutOfTheKey() async throws {
        let setup = Setup()
        let policy = CachePolicy.cacheElseNetwork().with { $0.ignoredQueryItems = ["ts"] }
        let endpoint = GET<Int>(wrappedValue: .init { ["ts": $0, "q": "x"] }, "/items", tags: [.cache(policy)])
        let first: Numbered = try await endpoint.request(with: 1, using: setup.configuration)
        let second: Numbered = try await endpoint.request(with: 2, using: setup.configuration)
        #expect(first == second)
        #expect(setup.server.hits == 1)
    }

    @Test func extraKeyPartsSeparateEntries() async throws {
        let setup = Setup()
        let v1 = Self.endpoint(.cacheElseNetwork().with { $0.keyParts = ["app-1.0"] })
        let v2 = Self.endpoint(.cacheElseNetwork().with { $0.keyParts = ["app-2.0"] })
        #expect(try await setup.call(v1) == 1)
        #expect(try await setup.call(v2) == 2)
        #expect(try await setup.call(v1) == 1)
    }

    @Test func aCustomKeyFunctionReplacesMethodAndURL() async throws {
        let setup = Setup()
        let policy = CachePolicy.cacheElseNetwork().with { $0.customKey = { _ in "everything" } }
        #expect(try await setup.call(Self.endpoint(policy, path: "/a")) == 1)
        #expect(try await setup.call(Self.endpoint(policy, path: "/b")) == 1)
    }

    @Test func removeAllWithPrefixClearsOneGroupOnly() async throws {
        let setup = Setup()
        let alice = Self.endpoint(.cacheElseNetwork().with { $0.keyPrefix = "user-alice/" }, path: "/me")
        let bob = Self.endpoint(.cacheElseNetwork().with { $0.keyPrefix = "user-bob/" }, path: "/me")
        #expect(try await setup.call(alice) == 1)
        #expect(try await setup.call(bob) == 2)
        #expect(cacheFiles(in: setup.directory).count == 2)
        await setup.cache.removeAll(withPrefix: "user-alice/")
        #expect(cacheFiles(in: setup.directory).count == 1)
        #expect(try await setup.call(alice) == 3)
        #expect(try await setup.call(bob) == 2)
        await setup.cache.removeAll()
        #expect(cacheFiles(in: setup.directory).isEmpty)
        #expect(setup.memory.count == 0)
    }

    // MARK: Write predicate

    struct Envelope: Decodable, Sendable {
        let n: Int
    }

    @Test func aPredicateOverTheDecodedBodyDecidesTheWrite() async throws {
        let setup = Setup()
        let policy = CachePolicy.cacheElseNetwork().with {
            $0.shouldWrite = CachePolicy.onlyIf(Envelope.self) { $0.n.isMultiple(of: 2) }
        }
        let endpoint = Self.endpoint(policy)
        #expect(try await setup.call(endpoint) == 1)  // odd: not written
        #expect(try await setup.call(endpoint) == 2)  // even: written
        #expect(try await setup.call(endpoint) == 2)
        #expect(setup.server.hits == 2)
    }

    // MARK: Credentials

    @Test func anEntryIsNeverServedToOtherCredentials() async throws {
        let server = NumberingServer()
        let setup = Setup(server: server)
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .never))
        let alice = setup.configuration.with { $0.plugins = [.bearer("alice-token")] }
        let bob = setup.configuration.with { $0.plugins = [.bearer("bob-token")] }
        let anonymous = setup.configuration
        func call(_ configuration: APIConfiguration) async throws -> Int {
            let value: Numbered = try await endpoint.request(using: configuration)
            return value.n
        }
        #expect(try await call(alice) == 1)
        #expect(try await call(bob) == 2)
        #expect(try await call(anonymous) == 3)
        #expect(try await call(alice) == 1)
        #expect(try await call(bob) == 2)
        #expect(try await call(anonymous) == 3)
        // Only the anonymous response went to disk.
        #expect(cacheFiles(in: setup.directory).count == 1)
    }

    @Test(arguments: ["Authorization", "Cookie", "X-API-Key"])
    func credentialedResponsesStayOffDiskUnlessAllowed(header: String) async throws {
        let setup = Setup()
        let name = HTTPHeaderName(rawValue: header)
        let denied = GET<Void>(
            "/a", headers: [name: "secret-1"],
            tags: [.cache(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk))])
        let allowed = GET<Void>(
            "/b", headers: [name: "secret-1"],
            tags: [
                .cache(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, allowsCredentialedDiskWrites: true))
            ])
        _ = try await setup.call(denied)
        #expect(cacheFiles(in: setup.directory).isEmpty)
        #expect(setup.memory.count == 1)
        _ = try await setup.call(allowed)
        let files = cacheFiles(in: setup.directory)
        #expect(files.count == 1)
        // Neither the file name nor its content holds the credential.
        for file in files {
            #expect(!file.lastPathComponent.contains("secret"))
            #expect(try !String(decoding: Data(contentsOf: file), as: UTF8.self).contains("secret-1"))
        }
    }

    @Test func anAPIKeyInTheQueryCountsAsACredential() async throws {
        let setup = Setup()
        let endpoint = GET<Void>(
            "/items", tags: [.cache(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .never))])
        let configuration = setup.configuration.with { $0.plugins = [.apiKey("query-secret", queryItem: "api_key")] }
        let value: Numbered = try await endpoint.request(using: configuration)
        #expect(value.n == 1)
        #expect(cacheFiles(in: setup.directory).isEmpty)
        #expect(setup.memory.count == 1)
    }

    @Test func keysAndDescriptionsDoNotShowCredentials() async throws {
        let setup = Setup()
        let endpoint = GET<Void>("/items", tags: [.cache(.cacheElseNetwork())])
        let request = try endpoint.makeRequest(
            using: setup.configuration.with { $0.headers = ["Authorization": "Bearer top-secret"] })
        let key = try #require(setup.cache.key(for: request))
        #expect(!key.description.contains("top-secret"))
        #expect(!key.description.contains("items"))
        #expect(key.digest.count == 64)
        let entry = CacheEntry(
            key: key, statusCode: 200, headers: ["X-Token": "top-secret"], body: Data("top-secret".utf8),
            url: request.url, storedAt: Date(), expiresAt: nil)
        #expect(!entry.description.contains("top-secret"))
        var dumped = ""
        dump(entry, to: &dumped)
        #expect(!dumped.contains("top-secret"))
    }

    struct DownloadToFile: APIPlugin {
        func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
            var request = request
            request.responseDelivery = .file(FileManager.default.temporaryDirectory.appendingPathComponent("x"))
            return try await next(request)
        }
    }

    @Test func onlyInMemoryResponsesAreCached() async throws {
        let setup = Setup(plugins: [DownloadToFile()])
        let endpoint = Self.endpoint(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .never))
        #expect(try await setup.call(endpoint) == 1)
        #expect(try await setup.call(endpoint) == 2)
        #expect(setup.memory.count == 0)
        #expect(cacheFiles(in: setup.directory).isEmpty)
    }

    // MARK: Without a cache

    @Test func withoutACacheTagsChangeNothing() async throws {
        let server = NumberingServer()
        let configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com"), executor: server)
        let endpoint = Self.endpoint(.cacheElseNetwork())
        let first: Numbered = try await endpoint.request(using: configuration)
        let second: Numbered = try await endpoint.request(using: configuration)
        #expect(first.n == 1)
        #expect(second.n == 2)
    }
}
