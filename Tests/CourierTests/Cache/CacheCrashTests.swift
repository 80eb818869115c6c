import Foundation
import Testing

@testable import Courier

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A process killed with SIGKILL in the middle of writing disk entries leaves no entry that reads back wrong:
/// the `CourierCacheWriter` child writes entries in a loop and is killed at random moments, several times
/// over one directory; every entry left is then either whole and right, or a miss.
@Suite(.testTools) struct CacheCrashTests {
    /// Repeats the writer's formulas (Tests/Tools/Sources/CourierCacheWriter/main.swift).
    static func size(_ generation: Int) -> Int { 1_024 + (generation &* 7_919) % 300_000 }
    static func byte(_ key: Int, _ generation: Int) -> UInt8 { UInt8(truncatingIfNeeded: key &* 31 &+ generation) }

    static let keys = 20

    static func writer() throws -> URL { try Probe.tool("CourierCacheWriter") }

    /// Starts the writer, waits until it wrote its first entry, lets it run `milliseconds`, kills it with
    /// SIGKILL and waits for it to end.
    static func runAndKill(_ executable: URL, directory: URL, milliseconds: Int) async throws -> Int32 {
        let process = Process()
        process.executableURL = executable
        process.arguments = [directory.path, "--keys", String(keys)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let pid = process.processIdentifier
        // Wait for "ready" (a blocking read).
        let ready: Bool = await onOwnThread {
            String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).contains("ready")
        }
        try await Task.sleep(for: .milliseconds(milliseconds))
        kill(pid, SIGKILL)
        await onOwnThread { process.waitUntilExit() }
        #expect(ready, "the writer never wrote its first entry")
        return process.terminationStatus
    }

    @Test func killedMidWriteLeavesNoEntryThatReadsBackWrong() async throws {
        let executable = try Self.writer()
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        // GIVEN a writer killed with SIGKILL at eight random moments over the same directory
        for _ in 0..<8 {
            let status = try await Self.runAndKill(
                executable, directory: directory, milliseconds: Int.random(in: 20...250))
            #expect(status == SIGKILL)
        }

        // THEN every entry file is whole (written to a temporary file, then renamed): at most the temporary
        // files are torn
        for file in cacheFiles(in: directory) {
            #expect(CacheEntryCoding.decode(try Data(contentsOf: file)) != nil, "torn file \(file.lastPathComponent)")
        }

        // WHEN every key is read back by a new storage
        let storage = DiskCacheStorage(directory: directory)
        var whole = 0
        for key in 0..<Self.keys {
            guard let entry = await storage.entry(for: CacheKey(digest: "crash-test-key-\(key)")) else { continue }
            // THEN each entry found is exactly one generation's entry for that key
            let generation = try #require(entry.headers["X-Generation"].flatMap { Int($0) })
            #expect(entry.headers["X-Key"] == String(key))
            #expect(entry.body.count == Self.size(generation))
            #expect(entry.body.allSatisfy { $0 == Self.byte(key, generation) })
            whole += 1
        }
        // AND the writer did write (the check above is not vacuous)
        #expect(whole > 0)
    }
}
