import Foundation
import Testing

@_spi(Testing) @testable import Courier

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The shipped storages: LRU eviction by cost and bytes, prefix removal, corrupt files, concurrency.
@Suite struct CacheStorageTests {
    static func entry(_ name: String, bytes: Int = 100, prefix: String = "", expiresAt: Date? = nil) -> CacheEntry {
        CacheEntry(
            key: CacheKey(prefix: prefix, digest: SHA256.hex(name)), statusCode: 200,
            headers: ["Content-Type": "application/json", "ETag": "\"\(name)\""],
            body: Data(repeating: UInt8(truncatingIfNeeded: name.hashValue), count: bytes),
            url: URL(string: "https://api.example.com/\(name)"), storedAt: Date(timeIntervalSince1970: 1_000),
            expiresAt: expiresAt, varyNames: ["Accept"], varyDigest: "abc")
    }

    // MARK: SHA-256 and the file format

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func sha256MatchesTheStandardVectors(input: String, digest: String) {
        #expect(SHA256.hex(input) == digest)
    }

    @Test func sha256OverManyBlocksAndUpdates() {
        // 10,000 bytes: 157 blocks, fed in uneven pieces (digest from Python's hashlib).
        var hasher = SHA256()
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 10_000)
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            for size in [1, 63, 64, 65, 127, 1_000, 4_096] {
                hasher.update(UnsafeBufferPointer(rebasing: buffer[start..<(start + size)]))
                start += size
            }
            hasher.update(UnsafeBufferPointer(rebasing: buffer[start...]))
        }
        #expect(hasher.finalizeHex() == "27dd1f61b867b6a0f6e9d8a41c43231de52107e53ae424de8f847b821db4b711")
        #expect(
            SHA256.hex(
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
            ) == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test(arguments: [nil, Date(timeIntervalSince1970: 2_000)])
    func anEntryRoundTripsThroughTheFileFormat(expiresAt: Date?) throws {
        let entry = Self.entry("a", bytes: 2048, prefix: "user-1/", expiresAt: expiresAt)
        let decoded = try #require(CacheEntryCoding.decode(CacheEntryCoding.encode(entry)))
        #expect(decoded == entry)
    }

    @Test func everyTruncationAndEveryFlippedByteDecodesToNil() {
        let data = CacheEntryCoding.encode(Self.entry("a", bytes: 64))
        // One expectation per kind: hundreds of #expect calls would make this CPU-bound test slow in debug builds.
        let truncations = (0..<data.count).filter { CacheEntryCoding.decode(data.prefix($0)) != nil }
        let flips = (0..<data.count).filter { index in
            var damaged = data
            damaged[index] ^= 0x5A
            return CacheEntryCoding.decode(damaged) != nil
        }
        #expect(truncations.isEmpty, "lengths that still decoded: \(truncations)")
        #expect(flips.isEmpty, "flipped bytes that still decoded: \(flips)")
        #expect(CacheEntryCoding.decode(data) != nil)
    }

    @Test func garbageDecodesToNil() {
        var generator = SystemRandomNumberGenerator()
        for size in [0, 7, 8, 16, 100, 4096] {
            let garbage = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
            #expect(CacheEntryCoding.decode(garbage) == nil)
            #expect(CacheEntryCoding.decode(Data("CRCACHE1".utf8) + garbage) == nil)
        }
    }

    // MARK: Memory

    @Test func memoryEvictsTheLeastRecentlyUsedOverItsCostLimit() async {
        let one = Self.entry("1")
        let memory = MemoryCacheStorage(costLimit: one.cost * 3)
        for name in ["1", "2", "3"] { await memory.store(Self.entry(name)) }
        _ = await memory.entry(for: one.key)  // 1 is now the most recently used
        await memory.store(Self.entry("4"))
        #expect(await memory.entry(for: one.key) != nil)
        #expect(await memory.entry(for: Self.entry("2").key) == nil)
        #expect(await memory.entry(for: Self.entry("3").key) != nil)
        #expect(memory.count == 3)
        #expect(memory.totalCost <= memory.costLimit)
    }

    @Test func memoryKeepsNothingLargerThanItsLimit() async {
        let memory = MemoryCacheStorage(costLimit: 1_000)
        await memory.store(Self.entry("big", bytes: 2_000))
        #expect(memory.count == 0)
    }

    @Test func memoryRemovesByPrefix() async {
        let memory = MemoryCacheStorage()
        await memory.store(Self.entry("a", prefix: "user-1/"))
        await memory.store(Self.entry("b", prefix: "user-2/"))
        await memory.removeAll(withPrefix: "user-1")
        #expect(memory.count == 1)
        #expect(await memory.entry(for: Self.entry("b", prefix: "user-2/").key) != nil)
    }

    // MARK: Disk

    @Test func diskRoundTripsAndNamesFilesByDigest() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = DiskCacheStorage(directory: directory)
        let entry = Self.entry("secret-token", prefix: "user-1/")
        try await disk.store(entry)
        #expect(await disk.entry(for: entry.key) == entry.with(url: entry.url))
        let names = cacheFiles(in: directory).map(\.lastPathComponent)
        #expect(names.count == 1)
        #expect(names.allSatisfy { !$0.contains("user") && !$0.contains("secret") })
    }

    @Test func diskEvictsTheLeastRecentlyUsedOverItsByteLimit() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = CacheEntryCoding.encode(Self.entry("1", bytes: 1_000)).count
        let disk = DiskCacheStorage(directory: directory, byteLimit: size * 3)
        for name in ["1", "2", "3"] { try await disk.store(Self.entry(name, bytes: 1_000)) }
        _ = await disk.entry(for: Self.entry("1").key)
        try await disk.store(Self.entry("4", bytes: 1_000))
        #expect(await disk.entry(for: Self.entry("1").key) != nil)
        #expect(await disk.entry(for: Self.entry("2").key) == nil)
        #expect(cacheFiles(in: directory).count == 3)
        #expect(disk.totalBytes <= disk.byteLimit)
    }

    @Test func diskCountsTheFilesAlreadyThere() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = CacheEntryCoding.encode(Self.entry("1", bytes: 1_000)).count
        let first = DiskCacheStorage(directory: directory, byteLimit: size * 2)
        for name in ["1", "2"] { try await first.store(Self.entry(name, bytes: 1_000)) }
        let second = DiskCacheStorage(directory: directory, byteLimit: size * 2)
        try await second.store(Self.entry("3", bytes: 1_000))
        #expect(cacheFiles(in: directory).count == 2)
    }

    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case truncated, garbage, foreign, empty, headerOnly
        var testDescription: String { rawValue }
    }

    @Test(arguments: Damage.allCases)
    func aDamagedFileIsAMissAndIsRemoved(damage: Damage) async throws {
        // GIVEN a stored entry whose file is then damaged
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = DiskCacheStorage(directory: directory)
        let entry = Self.entry("a", bytes: 2_000)
        try await disk.store(entry)
        let file = disk.fileURL(for: entry.key)
        let good = try Data(contentsOf: file)
        let damaged: Data =
            switch damage {
            case .truncated: good.prefix(good.count / 2)
            case .garbage: Data((0..<good.count).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            case .foreign: CacheEntryCoding.encode(Self.entry("b", bytes: 2_000))
            case .empty: Data()
            case .headerOnly: good.prefix(8)
            }
        try damaged.write(to: file)

        // WHEN it is read THEN it is a miss, and the file is gone
        #expect(await disk.entry(for: entry.key) == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        // AND the key works again afterwards
        try await disk.store(entry)
        #expect(await disk.entry(for: entry.key) != nil)
    }

    @Test func aLeftoverTemporaryFileIsNotAnEntry() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = DiskCacheStorage(directory: directory)
        try await disk.store(Self.entry("a"))
        let temporary = directory.appendingPathComponent(".left.courier-tmp")
        try CacheEntryCoding.encode(Self.entry("b")).prefix(50).write(to: temporary)
        #expect(await disk.entry(for: Self.entry("b").key) == nil)
        #expect(cacheFiles(in: directory).count == 1)
    }

    @Test func diskRemovesByPrefixAndAll() async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = DiskCacheStorage(directory: directory)
        try await disk.store(Self.entry("a", prefix: "user-1/"))
        try await disk.store(Self.entry("b", prefix: "user-2/"))
        try await disk.store(Self.entry("c"))
        await disk.removeAll(withPrefix: "user-1/")
        #expect(cacheFiles(in: directory).count == 2)
        #expect(await disk.entry(for: Self.entry("b", prefix: "user-2/").key) != nil)
        await disk.removeAll()
        #expect(cacheFiles(in: directory).isEmpty)
    }

    @Test func anUnwritableDirectoryIsAThrownErrorNotACrash() async throws {
        let file = temporaryCacheDirectory()
        try Data("not a directory".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let disk = DiskCacheStorage(directory: file.appendingPathComponent("inside"))
        await #expect(throws: (any Error).self) { try await disk.store(Self.entry("a")) }
        #expect(await disk.entry(for: Self.entry("a").key) == nil)
    }

    // MARK: Many tasks

    @Test(arguments: ["memory", "disk"])
    func aThousandTasksOnFiftyKeysAlwaysReadTheirOwnKey(level: String) async throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Limits that hold about 20 of the 50 entries, so eviction runs all the time.
        let size = Self.entry("0", bytes: 500).cost
        let storage: any CacheStorage =
            level == "memory"
            ? MemoryCacheStorage(costLimit: size * 20) : DiskCacheStorage(directory: directory, byteLimit: size * 20)
        let wrong = LockedBox(0)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<1_000 {
                group.addTask {
                    let name = "\(task % 50)"
                    let entry = Self.entry(name, bytes: 500)
                    if task % 3 == 0 {
                        try? await storage.store(entry)
                    } else if task % 17 == 0 {
                        await storage.removeEntry(for: entry.key)
                    } else if let found = await storage.entry(for: entry.key), found.body != entry.body {
                        wrong.withLock { $0 += 1 }
                    }
                }
            }
        }
        #expect(wrong.value == 0)
        if let disk = storage as? DiskCacheStorage {
            #expect(disk.totalBytes <= disk.byteLimit)
            #expect(cacheFiles(in: directory).count <= 20)
        } else if let memory = storage as? MemoryCacheStorage {
            #expect(memory.totalCost <= memory.costLimit)
        }
    }
}

extension CacheEntry {
    /// The entry as the disk gives it back: its URL redacted.
    fileprivate func with(url: URL?) -> CacheEntry {
        var copy = self
        copy.url = url.flatMap { URL(string: SensitiveData.redacted($0)) }
        return copy
    }
}

@Suite struct CustomCacheStorageTests {
    @Test func anotherStoragePlugsIn() async throws {
        // The "Implementing" example of `CacheStorage`'s documentation (and of the Caching article).
        let storage = DictionaryStorage()
        let server = NumberingServer()
        let cache = ResponseCache(
            memory: storage, disk: nil, defaultPolicy: .cacheElseNetwork().with { $0.write = .memory })
        let configuration = cachingConfiguration(server, cache: cache)
        let first: Numbered = try await GET<Void>("/items").request(using: configuration)
        let second: Numbered = try await GET<Void>("/items").request(using: configuration)
        #expect(first == second)
        #expect(server.hits == 1)
        let key = try #require(cache.key(for: GET<Void>("/items").makeRequest(using: configuration)))
        #expect(await storage.entry(for: key) != nil)
        await cache.removeAll()
        #expect(await storage.entry(for: key) == nil)
    }
}
