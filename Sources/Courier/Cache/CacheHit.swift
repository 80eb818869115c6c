import Foundation

/// What a response served by the cache carries in ``APIResponse/cacheHit``.
public struct CacheHit: Sendable, Hashable {
    /// How long ago the entry was received or last revalidated, in seconds.
    public var age: TimeInterval
    /// Whether the server confirmed the entry just now (a `304 Not Modified` to a conditional request).
    public var revalidated: Bool
    /// Whether the entry was past its expiry (served by ``CachePolicy/ReadMode/cacheThenNetwork`` before the
    /// network value).
    public var isStale: Bool

    /// Creates a description of a hit.
    @_spi(Testing)
    public init(age: TimeInterval, revalidated: Bool = false, isStale: Bool = false) {
        self.age = age
        self.revalidated = revalidated
        self.isStale = isStale
    }
}
