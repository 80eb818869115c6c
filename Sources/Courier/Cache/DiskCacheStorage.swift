import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps entries as files in a directory, up to a total size in bytes, evicting the least recently used
/// first.
///
/// - A file's name is a SHA-256 digest of its key: neither URLs nor credentials appear in file names.
/// - Every entry is written to a temporary file, then renamed over the old one, so a reader (or a process
///   killed mid-write) never sees half an entry. A file that does not decode, fails its checksum or holds
///   another key is a miss, and is removed.
/// - Safe to use from many tasks at once; several processes may share a directory (each keeps its own
///   count of the bytes, so the limit is then approximate).
public final class DiskCacheStorage: CacheStorage {
    static let fileExtension = "courier-cache"
    static let temporaryExtension = "courier-tmp"

    /// The directory that holds the files; created on the first write.
    public let directory: URL
    /// The most the files may take together, in bytes.
    public let byteLimit: Int
    /// Least recently used first; loaded from the directory on first use.
    private let index = LockedBox<LRUList<String>?>(nil)

    /// Creates a storage in `directory`.
    /// - Parameters:
    ///   - directory: Where the files go; ``defaultDirectory`` by default. Give each cache its own directory:
    ///     ``removeAll()`` removes every entry file in it.
    ///   - byteLimit: The most the files may take together; 100 MiB by default.
    public init(directory: URL = DiskCacheStorage.defaultDirectory, byteLimit: Int = 100 * 1024 * 1024) {
        self.directory = directory
        self.byteLimit = max(0, byteLimit)
    }

    /// `Courier/Responses` in the user's caches directory (`~/Library/Caches` on Apple platforms,
    /// `~/.cache` on Linux), or in the temporary directory when there is none.
    public static var defaultDirectory: URL {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
        return (caches ?? FileManager.default.temporaryDirectory)
            .appendingPathComponent("Courier", isDirectory: true)
            .appendingPathComponent("Responses", isDirectory: true)
    }

    /// The file for `key`.
    func fileURL(for key: CacheKey) -> URL {
        directory.appendingPathComponent(Self.fileName(for: key), isDirectory: false)
    }

    static func fileName(for key: CacheKey) -> String {
        SHA256.hex(key.rawValue) + "." + fileExtension
    }

    /// The entry for `key`; a file that cannot be read back as that key's entry is removed.
    public func entry(for key: CacheKey) async -> CacheEntry? {
        lookup(key)
    }

    /// The synchronous form of ``entry(for:)``.
    func lookup(_ key: CacheKey) -> CacheEntry? {
        let name = Self.fileName(for: key)
        let url = directory.appendingPathComponent(name, isDirectory: false)
        guard let data = try? Data(contentsOf: url) else {
            index.withLock { _ = $0?.remove(name) }
            return nil
        }
        guard let entry = CacheEntryCoding.decode(data), entry.key == key else {
            unlink(url.path)
            index.withLock { _ = $0?.remove(name) }
            return nil
        }
        index.withLock { index in
            if index?.contains(name) == true { index?.touch(name) }
        }
        return entry
    }

    /// Writes `entry` atomically (a temporary file renamed over the old one), then evicts the least
    /// recently used files until the total fits the limit. An entry larger than the whole limit is not
    /// written.
    /// - Throws: when the directory or the file cannot be written.
    public func store(_ entry: CacheEntry) async throws {
        try write(entry)
    }

    /// The synchronous form of ``store(_:)``.
    func write(_ entry: CacheEntry) throws {
        let data = CacheEntryCoding.encode(entry)
        let name = Self.fileName(for: entry.key)
        let url = directory.appendingPathComponent(name, isDirectory: false)
        guard data.count <= byteLimit else {
            unlink(url.path)
            index.withLock { _ = $0?.remove(name) }
            return
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(
            ".\(UUID().uuidString).\(Self.temporaryExtension)", isDirectory: false)
        do {
            try data.write(to: temporary)
        } catch {
            unlink(temporary.path)
            throw error
        }
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw CocoaError(
                .fileWriteUnknown, userInfo: [NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)])
        }
        index.withLock { index in
            var list = index ?? loadIndex()
            list.touch(name, size: data.count)
            while list.totalSize > byteLimit, let oldest = list.removeOldest() {
                unlink(directory.appendingPathComponent(oldest, isDirectory: false).path)
            }
            index = list
        }
    }

    /// Removes the file for `key`.
    public func removeEntry(for key: CacheKey) async {
        let name = Self.fileName(for: key)
        unlink(directory.appendingPathComponent(name, isDirectory: false).path)
        index.withLock { _ = $0?.remove(name) }
    }

    /// Removes every entry file (and leftover temporary file) in the directory.
    public func removeAll() async {
        index.withLock { index in
            for url in contents() { unlink(url.path) }
            index = LRUList()
        }
    }

    /// Removes every entry whose key's prefix starts with `prefix`; reads each file to find its key.
    public func removeAll(withPrefix prefix: String) async {
        guard !prefix.isEmpty else { return await removeAll() }
        index.withLock { index in
            for url in contents() where url.pathExtension == Self.fileExtension {
                guard let data = try? Data(contentsOf: url) else { continue }
                let entry = CacheEntryCoding.decode(data)
                if entry == nil || entry?.key.prefix.hasPrefix(prefix) == true {
                    unlink(url.path)
                    _ = index?.remove(url.lastPathComponent)
                }
            }
        }
    }

    /// The total size of the entry files this storage knows of, in bytes.
    var totalBytes: Int {
        index.withLock { index in
            let list = index ?? loadIndex()
            index = list
            return list.totalSize
        }
    }

    private func contents() -> [URL] {
        let urls =
            (try? FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: [.fileSizeKey, .contentModificationDateKey]))
        return (urls ?? []).filter {
            $0.pathExtension == Self.fileExtension || $0.pathExtension == Self.temporaryExtension
        }
    }

    /// Lists the directory: entry files oldest first by modification date; temporary files older than a
    /// minute (left by a crash mid-write) are removed.
    private func loadIndex() -> LRUList<String> {
        var files: [(name: String, size: Int, date: Date)] = []
        let now = Date()
        for url in contents() {
            let values = try? url.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey])
            let date = values?.contentModificationDate ?? now
            if url.pathExtension == Self.temporaryExtension {
                if now.timeIntervalSince(date) > 60 { unlink(url.path) }
                continue
            }
            files.append((url.lastPathComponent, values?.fileSize ?? 0, date))
        }
        var list = LRUList<String>()
        for file in files.sorted(by: { $0.date < $1.date }) { list.touch(file.name, size: file.size) }
        return list
    }
}
