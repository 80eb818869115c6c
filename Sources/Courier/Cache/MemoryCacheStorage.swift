/// Keeps entries in memory, up to a total cost (an estimate of their bytes), evicting the least recently
/// used first. Safe to use from many tasks at once; an entry larger than the whole limit is not kept.
public final class MemoryCacheStorage: CacheStorage {
    private struct State {
        var entries: [CacheKey: CacheEntry] = [:]
        var order = LRUList<CacheKey>()
    }

    /// The most the entries may cost together, in bytes (see `CacheEntry.cost`).
    public let costLimit: Int
    private let state = LockedBox(State())

    /// Creates an empty storage.
    /// - Parameter costLimit: The most the entries may cost together, in bytes; 20 MiB by default.
    public init(costLimit: Int = 20 * 1024 * 1024) {
        self.costLimit = max(0, costLimit)
    }

    /// The entry for `key`, which becomes the most recently used.
    public func entry(for key: CacheKey) async -> CacheEntry? {
        lookup(key)
    }

    /// The synchronous form of ``entry(for:)``.
    func lookup(_ key: CacheKey) -> CacheEntry? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            state.order.touch(key)
            return entry
        }
    }

    /// Stores `entry`, then evicts the least recently used entries until the total cost fits the limit.
    public func store(_ entry: CacheEntry) async {
        let cost = entry.cost
        state.withLock { state in
            guard cost <= costLimit else {
                state.entries[entry.key] = nil
                state.order.remove(entry.key)
                return
            }
            state.entries[entry.key] = entry
            state.order.touch(entry.key, size: cost)
            while state.order.totalSize > costLimit, let oldest = state.order.removeOldest() {
                state.entries[oldest] = nil
            }
        }
    }

    /// Removes the entry for `key`.
    public func removeEntry(for key: CacheKey) async {
        state.withLock { state in
            state.entries[key] = nil
            state.order.remove(key)
        }
    }

    /// Removes every entry.
    public func removeAll() async {
        state.withLock { state in
            state.entries = [:]
            state.order.removeAll()
        }
    }

    /// Removes every entry whose key's prefix starts with `prefix`.
    public func removeAll(withPrefix prefix: String) async {
        state.withLock { state in
            for key in state.entries.keys where key.prefix.hasPrefix(prefix) {
                state.entries[key] = nil
                state.order.remove(key)
            }
        }
    }

    /// The number of entries.
    public var count: Int { state.withLock { $0.entries.count } }

    /// The total cost of the entries, in bytes.
    var totalCost: Int { state.withLock { $0.order.totalSize } }
}
