import Foundation

/// How one endpoint uses the ``ResponseCache``: where it reads from, where it writes to, how long an entry
/// stays fresh and what the key is made of.
///
/// Set it per endpoint with a tag, and for every other endpoint on ``ResponseCache/defaultPolicy``:
///
/// ```swift
/// @GET("/users/{login}", tags: [.cache(.init(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .seconds(300)))])
/// static var user: APIParameterBuilder<String>? = .init { ["login": $0] }
/// ```
///
/// The default policy reads from the network only and writes nothing: a cache is opt-in.
public struct CachePolicy: Sendable {
    /// Where a call looks for its response.
    public enum ReadMode: Sendable, Hashable {
        /// The network only: the cache is never read (the default). Responses are still written when
        /// the write mode says so.
        case networkOnly
        /// A fresh cached response if there is one, else the network (revalidating a stale entry when
        /// the server gave a validator).
        case cacheElseNetwork
        /// A fresh cached response, else the call fails with ``APIError/Reason/notCached``; never the
        /// network.
        case cacheOnly
        /// The cached response first, whatever its age, then the network's. The
        /// ``API/cacheThenNetwork(with:using:decoder:)`` call form delivers both; `request(with:)`
        /// returns the network's.
        case cacheThenNetwork
    }

    /// Where a response is written.
    public enum WriteMode: Sendable, Hashable {
        /// Nothing is written (the default).
        case none
        /// The memory level.
        case memory
        /// The disk level.
        case disk
        /// Both levels.
        case memoryAndDisk

        /// Whether nothing is written.
        var isEmpty: Bool { self == .none }

        /// Whether this mode writes to `level` (`.memory` or `.disk`).
        func contains(_ level: WriteMode) -> Bool {
            self == level || (self == .memoryAndDisk && level != .none)
        }
    }

    /// How long a written response stays fresh.
    public indirect enum Expiry: Sendable, Hashable {
        /// This many seconds after it was received.
        case seconds(TimeInterval)
        /// Until this date.
        case date(Date)
        /// Always fresh (until evicted or removed).
        case never
        /// The response's own freshness: `Cache-Control: max-age` (minus its `Age`), else `Expires` minus
        /// `Date`; `otherwise` when the response says neither. `Cache-Control: no-cache` makes it stale at
        /// once (it is then revalidated before use).
        case server(otherwise: Expiry)

        /// The response's own `max-age`, else fresh for 0 seconds (stored for revalidation only).
        public static let server = Expiry.server(otherwise: .seconds(0))
    }

    /// Where a call reads from.
    public var read: ReadMode
    /// Where a response is written.
    public var write: WriteMode
    /// How long a written response stays fresh.
    public var expiry: Expiry
    /// Extra parts of the cache key, beyond the method, the URL and the credentials (always in it): for
    /// example the app version or the signed-in user's id.
    public var keyParts: [String] = []
    /// A prefix stored in clear in front of the hashed key, so that ``ResponseCache/removeAll(withPrefix:)``
    /// can clear a group (for example `"user-42/"` on sign-out). Do not put secrets in it.
    public var keyPrefix = ""
    /// Query parameters left out of the key (a cache-busting timestamp, a tracking id).
    public var ignoredQueryItems: Set<String> = []
    /// Replaces the method and URL part of the key: the key is then this text (hashed) plus the credentials
    /// and ``keyParts``.
    public var customKey: (@Sendable (APIRequest) -> String)?
    /// Methods whose responses may be read and written; `GET` and `HEAD` by default. A method with a body
    /// (a `POST` search) has the body's digest in its key.
    public var methods: Set<HTTPMethod>
    /// Statuses that may be written; 2xx by default.
    public var storableStatusCodes: AcceptableStatusCodes
    /// Decides whether a response may be written, after every other rule allowed it; `nil` allows all.
    /// ``onlyIf(_:decoder:_:)`` makes one over the decoded body.
    public var shouldWrite: (@Sendable (APIResponse) -> Bool)?
    /// Whether a response to a request with credentials (`Authorization`, `Cookie`, the header an auth
    /// plugin set, URL user info) may be written to disk. Off by default: such responses stay in memory.
    /// Whatever this says, an entry is only ever served to a request with the same credentials.
    public var allowsCredentialedDiskWrites: Bool
    /// Whether a stale entry with an `ETag` or `Last-Modified` is revalidated with `If-None-Match` /
    /// `If-Modified-Since` (a `304` then refreshes it) instead of fetched again. On by default.
    public var revalidates: Bool
    /// Whether identical requests (the same cache key) in flight at once share one network call.
    public var deduplicatesInFlightRequests: Bool

    /// Creates a policy.
    public init(
        read: ReadMode = .networkOnly,
        write: WriteMode = .none,
        expiry: Expiry = .server(otherwise: .seconds(60)),
        methods: Set<HTTPMethod> = [.get, .head],
        storableStatusCodes: AcceptableStatusCodes = .successful,
        shouldWrite: (@Sendable (APIResponse) -> Bool)? = nil,
        allowsCredentialedDiskWrites: Bool = false,
        revalidates: Bool = true,
        deduplicatesInFlightRequests: Bool = false
    ) {
        self.read = read
        self.write = write
        self.expiry = expiry
        self.methods = methods
        self.storableStatusCodes = storableStatusCodes
        self.shouldWrite = shouldWrite
        self.allowsCredentialedDiskWrites = allowsCredentialedDiskWrites
        self.revalidates = revalidates
        self.deduplicatesInFlightRequests = deduplicatesInFlightRequests
    }

    /// No reading, no writing, no de-duplication: the default.
    public static let networkOnly = CachePolicy()

    /// Serves a fresh entry from memory or disk, else the network; writes to both for `seconds` (or the
    /// server's `max-age` when it gives one).
    public static func cacheElseNetwork(seconds: TimeInterval = 60) -> CachePolicy {
        CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .server(otherwise: .seconds(seconds)))
    }

    /// Returns a copy with a change applied: `.cacheElseNetwork().with { $0.keyPrefix = "user-42/" }`.
    public func with(_ change: (inout CachePolicy) -> Void) -> CachePolicy {
        var copy = self
        change(&copy)
        return copy
    }

    /// A write predicate over the decoded body: the response is written only when its body decodes as
    /// `type` and `predicate` returns `true` (for example when an envelope's `code` is 0).
    ///
    /// ```swift
    /// .cacheElseNetwork().with { $0.shouldWrite = CachePolicy.onlyIf(Envelope.self) { $0.code == 0 } }
    /// ```
    public static func onlyIf<Body: Decodable & SendableMetatype>(
        _ type: Body.Type,
        decoder: JSONDecoder = APIConfiguration.makeDefaultDecoder(),
        _ predicate: @escaping @Sendable (Body) -> Bool
    ) -> @Sendable (APIResponse) -> Bool {
        return { response in
            guard let data = response.body.data, let body = try? decoder.decode(type, from: data) else {
                return false
            }
            return predicate(body)
        }
    }
}

/// The tag key of a per-endpoint ``CachePolicy``.
enum CachePolicyKey: APITagKey {
    /// No per-endpoint policy: ``ResponseCache/defaultPolicy`` applies.
    static let defaultValue: CachePolicy? = nil
}

extension APITag {
    /// Sets the cache policy of one endpoint, e.g. `tags: [.cache(.cacheElseNetwork(seconds: 300))]`.
    public static func cache(_ policy: CachePolicy) -> APITag {
        APITag(CachePolicyKey.self, policy)
    }
}
