/// Where a ``ResponseCache`` keeps entries: `MemoryCacheStorage` and `DiskCacheStorage` ship with
/// Courier; a database or a shared app-group container plugs in the same way.
///
/// A storage must be safe to call from many tasks at once. Reads never fail: an entry that cannot be
/// read (corrupt, foreign, from an older format) is a miss, and the storage should remove it.
///
/// ## Implementing
///
/// ```swift
/// actor DictionaryStorage: CacheStorage {
///     private var entries: [CacheKey: CacheEntry] = [:]
///
///     func entry(for key: CacheKey) -> CacheEntry? { entries[key] }
///     func store(_ entry: CacheEntry) { entries[entry.key] = entry }
///     func removeEntry(for key: CacheKey) { entries[key] = nil }
///     func removeAll() { entries = [:] }
///     func removeAll(withPrefix prefix: String) { entries = entries.filter { !$0.key.prefix.hasPrefix(prefix) } }
/// }
/// ```
public protocol CacheStorage: Sendable {
    /// The entry stored for `key`, or `nil`.
    func entry(for key: CacheKey) async -> CacheEntry?

    /// Stores `entry` under its key, replacing any entry there.
    /// - Throws: when the entry could not be written (the cache then goes on without it).
    func store(_ entry: CacheEntry) async throws

    /// Removes the entry for `key`, if any.
    func removeEntry(for key: CacheKey) async

    /// Removes every entry.
    func removeAll() async

    /// Removes every entry whose key's `CacheKey.prefix` starts with `prefix`.
    func removeAll(withPrefix prefix: String) async
}

/// Keys in least-recently-used order, with a size per key: the eviction order of both shipped storages.
struct LRUList<Key: Hashable> {
    private struct Node {
        var size: Int
        var older: Key?
        var newer: Key?
    }

    private var nodes: [Key: Node] = [:]
    private var oldest: Key?
    private var newest: Key?
    /// The sum of the sizes.
    private(set) var totalSize = 0

    var count: Int { nodes.count }

    func contains(_ key: Key) -> Bool { nodes[key] != nil }

    /// Inserts `key` as the newest, or moves it there and updates its size.
    mutating func touch(_ key: Key, size: Int? = nil) {
        if let node = nodes[key] {
            let newSize = size ?? node.size
            unlink(key)
            link(key, size: newSize)
        } else {
            link(key, size: size ?? 0)
        }
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: Key) -> Bool {
        guard nodes[key] != nil else { return false }
        unlink(key)
        return true
    }

    /// Removes and returns the oldest key.
    mutating func removeOldest() -> Key? {
        guard let oldest else { return nil }
        unlink(oldest)
        return oldest
    }

    mutating func removeAll() {
        nodes = [:]
        oldest = nil
        newest = nil
        totalSize = 0
    }

    private mutating func link(_ key: Key, size: Int) {
        nodes[key] = Node(size: size, older: newest, newer: nil)
        if let newest { nodes[newest]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
        totalSize += size
    }

    private mutating func unlink(_ key: Key) {
        guard let node = nodes.removeValue(forKey: key) else { return }
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
        totalSize -= node.size
    }
}
