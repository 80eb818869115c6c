import Foundation

/// A two-level response cache, set on ``APIConfiguration/cache``: a memory level, an optional disk level,
/// and the policy for endpoints without a `.cache` tag.
///
/// The cache sits between the plugins and the executor, so it decides from the final request, with the
/// credentials an auth plugin added: an entry is only ever served to a request with the same credentials,
/// and a response to a request with credentials is not written to disk unless the policy allows it.
///
/// ```swift
/// let cache = ResponseCache(diskCapacity: 100 * 1024 * 1024, defaultPolicy: .cacheElseNetwork(seconds: 60))
/// APIConfiguration.default = APIConfiguration(baseURL: api).with { $0.cache = cache }
/// await cache.removeAll(withPrefix: "user-42/")   // on sign-out
/// ```
///
/// Both levels evict the least recently used entries first. Disk entries are files named by a SHA-256
/// digest of their key (no URL or credential in a file name), written atomically; a file that does not read
/// back as its entry is a miss and is removed. Give each cache its own directory: ``removeAll()`` removes
/// every entry file in it.
public final class ResponseCache: Sendable {
    /// The memory level, read first.
    public let memory: (any CacheStorage)?
    /// The disk level, read after memory.
    public let disk: (any CacheStorage)?
    /// The policy of endpoints without a `.cache` tag.
    public let defaultPolicy: CachePolicy
    /// The current date; injectable so that tests move time without sleeping.
    let now: @Sendable () -> Date

    let inFlight = InFlightCalls()

    /// Creates a cache, sized like `URLCache`.
    /// - Parameters:
    ///   - memoryCapacity: The most the memory level may hold, in bytes (an estimate of each entry's size);
    ///     20 MiB by default, 0 for no memory level.
    ///   - diskCapacity: The most the disk level may hold, in bytes; 0 (no disk level) by default.
    ///   - directory: Where the disk level keeps its files; `nil` for `Courier/Responses` in the user's caches
    ///     directory (`~/Library/Caches` on Apple platforms, `~/.cache` on Linux).
    ///   - defaultPolicy: The policy of endpoints without a `.cache` tag; network only by default.
    public convenience init(
        memoryCapacity: Int = 20 * 1024 * 1024,
        diskCapacity: Int = 0,
        directory: URL? = nil,
        defaultPolicy: CachePolicy = .networkOnly
    ) {
        self.init(
            memory: memoryCapacity > 0 ? MemoryCacheStorage(costLimit: memoryCapacity) : nil,
            disk: diskCapacity > 0
                ? DiskCacheStorage(directory: directory ?? DiskCacheStorage.defaultDirectory, byteLimit: diskCapacity)
                : nil,
            defaultPolicy: defaultPolicy
        )
    }

    /// Creates a cache over storages of your own (any `CacheStorage`) and, for tests, a clock.
    /// - Parameters:
    ///   - memory: The memory level, `nil` for none.
    ///   - disk: The disk level, `nil` for none.
    ///   - defaultPolicy: The policy of endpoints without a `.cache` tag; network only by default.
    ///   - now: The clock; the system's by default.
    public init(
        memory: (any CacheStorage)?,
        disk: (any CacheStorage)?,
        defaultPolicy: CachePolicy = .networkOnly,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.memory = memory
        self.disk = disk
        self.defaultPolicy = defaultPolicy
        self.now = now
    }

    /// Removes every entry from both levels.
    public func removeAll() async {
        await memory?.removeAll()
        await disk?.removeAll()
    }

    /// Removes the entries whose key prefix (``CachePolicy/keyPrefix``) starts with `prefix`, from both
    /// levels: for example a signed-out user's.
    public func removeAll(withPrefix prefix: String) async {
        await memory?.removeAll(withPrefix: prefix)
        await disk?.removeAll(withPrefix: prefix)
    }

    /// Removes the entry `request` would be served from (its key under its policy), from both levels.
    public func removeEntry(for request: APIRequest) async {
        guard let key = key(for: request) else { return }
        await memory?.removeEntry(for: key)
        await disk?.removeEntry(for: key)
    }

    /// The policy for `request`: its endpoint's `.cache` tag, else ``defaultPolicy``.
    public func policy(for request: APIRequest) -> CachePolicy {
        ResolvedOptions.cachePolicy(of: request.endpoint, in: self)
    }

    /// The key of `request` under its policy; `nil` when it cannot be cached (a body that is not in memory).
    @_spi(Testing)
    public func key(for request: APIRequest) -> CacheKey? {
        HTTPCaching.key(for: request, policy: policy(for: request))?.key
    }

    /// The response a cache-else-network read of `request` would be served from the cache, or `nil`: a fresh
    /// entry for its key (under its policy) that matches its `Vary` values. Reads only; never the network.
    ///
    /// The request is the final one (with the credentials plugins add), as the cache sees it in a call.
    public func cachedResponse(for request: APIRequest) async -> APIResponse? {
        let policy = policy(for: request)
        guard request.responseDelivery.kind == .memory, policy.methods.contains(request.method),
            let (key, _) = HTTPCaching.key(for: request, policy: policy),
            let entry = await lookup(key, request: request, policy: policy)
        else { return nil }
        let now = now()
        guard entry.isFresh(at: now) else { return nil }
        return response(from: entry, for: request, now: now, isStale: false)
    }

    // MARK: - The stage between the plugins and the executor

    /// How the cache-then-network call form overrides the read mode for its two passes.
    enum Pass: Sendable {
        /// The cached entry whatever its age, never the network.
        case cachedAnyAge
        /// The network (and writing), never the cache.
        case network
    }

    @TaskLocal static var pass: Pass?

    @TaskLocal static var readModeOverride: CachePolicy.ReadMode?

    /// Runs `operation` with every call in it (in this task and the tasks it creates) reading as `mode`,
    /// whatever the endpoints' policies say; writing, expiry and keys still follow the policies.
    ///
    /// ```swift
    /// // Offline: show what the cache has, never wait for the network.
    /// let product: Product = try await ResponseCache.withReadMode(.cacheOnly) {
    ///     try await Shop.$product.request(with: 42)
    /// }
    /// ```
    @discardableResult
    public static func withReadMode<Result>(
        _ mode: CachePolicy.ReadMode,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $readModeOverride.withValue(mode, operation: operation, isolation: isolation)
    }

    /// Answers `request` from the cache or through `executor`, following its policy.
    func respond(to request: APIRequest, executor: any APIExecutor) async throws -> APIResponse {
        // Only in-memory responses are cached: a download to a file or a stream passes straight through.
        guard request.responseDelivery.kind == .memory else {
            if Self.pass == .cachedAnyAge { throw APIError(.notCached, endpoint: request.endpoint, request: request) }
            request.recorder?.record(.cache, detail: "skipped: the body goes to a file or a stream")
            return try await executor.execute(request)
        }
        let policy = policy(for: request)
        let mode: CachePolicy.ReadMode =
            switch Self.pass {
            case .cachedAnyAge?: .cacheOnly
            case .network?: .networkOnly
            // request(with:) returns one value: the network's in cache-then-network.
            case nil:
                switch Self.readModeOverride ?? policy.read {
                case .cacheThenNetwork: .networkOnly
                case let mode: mode
                }
            }
        let uses = policy.methods.contains(request.method) && (mode != .networkOnly || !policy.write.isEmpty)
        guard uses || policy.deduplicatesInFlightRequests,
            let (key, hasCredentials) = HTTPCaching.key(
                for: request, policy: policy,
                cookies: (executor as? any CookieSendingExecutor)?.cookieField(for: request.url))
        else {
            if mode == .cacheOnly { throw APIError(.notCached, endpoint: request.endpoint, request: request) }
            request.recorder?.record(.cache, detail: "skipped: the policy does not cache this request")
            return try await executor.execute(request)
        }
        guard uses else { return try await fetch(request, key: key, policy: policy, executor: executor) }

        var stale: CacheEntry?
        if mode != .networkOnly, let entry = await lookup(key, request: request, policy: policy) {
            let now = now()
            if entry.isFresh(at: now) || Self.pass == .cachedAnyAge {
                let isStale = !entry.isFresh(at: now)
                request.recorder?.record(.cache, statusCode: entry.statusCode, detail: isStale ? "stale" : "hit")
                return response(from: entry, for: request, now: now, isStale: isStale)
            }
            stale = entry
        }
        request.recorder?.record(.cache, detail: stale == nil ? "miss" : "stale")
        if mode == .cacheOnly { throw APIError(.notCached, endpoint: request.endpoint, request: request) }

        if let stale, policy.revalidates, let conditional = HTTPCaching.conditionalRequest(request, for: stale) {
            let answer = try await fetch(conditional, key: key, policy: policy, executor: executor)
            guard answer.statusCode == 304 else {
                await write(answer, key: key, hasCredentials: hasCredentials, request: request, policy: policy)
                return answer
            }
            let now = now()
            let refreshed = HTTPCaching.refreshed(stale, with: answer, expiry: policy.expiry, now: now)
            await write(refreshed, hasCredentials: hasCredentials, request: request, policy: policy)
            var served = response(from: refreshed, for: request, now: now, isStale: false)
            served.cacheHit?.revalidated = true
            request.recorder?.record(.cache, statusCode: 304, detail: "revalidated")
            return served
        }
        let answer = try await fetch(request, key: key, policy: policy, executor: executor)
        await write(answer, key: key, hasCredentials: hasCredentials, request: request, policy: policy)
        return answer
    }

    private func fetch(
        _ request: APIRequest, key: CacheKey, policy: CachePolicy, executor: any APIExecutor
    ) async throws -> APIResponse {
        guard policy.deduplicatesInFlightRequests else { return try await executor.execute(request) }
        // Conditional and plain requests for one key are different calls.
        let shared =
            request.headers.contains(.ifNoneMatch) || request.headers.contains("If-Modified-Since")
            ? CacheKey(prefix: key.prefix, digest: key.digest + "/conditional") : key
        return try await inFlight.run(key: shared, joined: { request.recorder?.record(.joinedInFlight) }) {
            try await executor.execute(request)
        }
    }

    /// The entry for `key` that matches `request`'s `Vary` values: memory first, then disk (copied to memory
    /// when the policy writes there).
    private func lookup(_ key: CacheKey, request: APIRequest, policy: CachePolicy) async -> CacheEntry? {
        var found: CacheEntry?
        if let memory {
            found =
                if let storage = memory as? MemoryCacheStorage { storage.lookup(key) } else {
                    await memory.entry(for: key)
                }
        }
        if found == nil, let disk {
            found =
                if let storage = disk as? DiskCacheStorage { storage.lookup(key) } else { await disk.entry(for: key) }
            if let entry = found, policy.write.contains(.memory) { try? await memory?.store(entry) }
        }
        guard let entry = found, entry.key == key else { return nil }
        guard entry.varyNames.isEmpty || HTTPCaching.varyDigest(entry.varyNames, request: request) == entry.varyDigest
        else { return nil }
        return entry
    }

    private func response(from entry: CacheEntry, for request: APIRequest, now: Date, isStale: Bool) -> APIResponse {
        var response = APIResponse(
            statusCode: entry.statusCode, headers: entry.headers, body: .data(entry.body), url: entry.url,
            request: request)
        response.cacheHit = CacheHit(age: max(0, now.timeIntervalSince(entry.storedAt)), isStale: isStale)
        return response
    }

    private func write(
        _ response: APIResponse, key: CacheKey, hasCredentials: Bool, request: APIRequest, policy: CachePolicy
    ) async {
        guard !policy.write.isEmpty, response.cacheHit == nil,
            HTTPCaching.isStorable(response, request: request, policy: policy),
            let body = response.body.data, let varyNames = HTTPCaching.varyNames(response.headers)
        else {
            if !policy.write.isEmpty, response.cacheHit == nil {
                request.recorder?.record(.cache, detail: "skipped: not storable (status, Cache-Control or Vary)")
            }
            return
        }
        let now = now()
        let entry = CacheEntry(
            key: key, statusCode: response.statusCode, headers: HTTPCaching.storedHeaders(response.headers), body: body,
            url: response.url,
            storedAt: now, expiresAt: HTTPCaching.expiry(policy.expiry, headers: response.headers, now: now),
            varyNames: varyNames, varyDigest: HTTPCaching.varyDigest(varyNames, request: request))
        await write(entry, hasCredentials: hasCredentials, request: request, policy: policy)
    }

    private func write(_ entry: CacheEntry, hasCredentials: Bool, request: APIRequest, policy: CachePolicy) async {
        if let recorder = request.recorder, recorder.recordsEvents {
            let disk = policy.write.contains(.disk) && (!hasCredentials || policy.allowsCredentialedDiskWrites)
            let memory = policy.write.contains(.memory)
            recorder.record(
                .cache, statusCode: entry.statusCode,
                detail: memory || disk ? "stored" : "skipped: credentials are not written to disk")
        }
        if policy.write.contains(.memory) { try? await memory?.store(entry) }
        if policy.write.contains(.disk), !hasCredentials || policy.allowsCredentialedDiskWrites {
            // The disk copy's URL has every secret masked, those the request marks (an API key's `key`) too.
            var stored = entry
            if hasCredentials, let url = entry.url {
                stored.url = URL(string: SensitiveData.redacted(url, for: request))
            }
            try? await disk?.store(stored)
        }
    }
}
