import Courier
import Foundation

// Writes cache entries into a directory in an endless loop, for the crash test in
// Tests/CourierTests/Cache/CacheCrashTests.swift, which kills this process with SIGKILL at random moments and
// then checks that every entry left behind reads back whole and right, or not at all.
//
//     CourierCacheWriter <directory> [--keys 20]
//
// Entry `i` of generation `g` has the headers `X-Key: i` and `X-Generation: g` and a body of
// `CacheCrashEntry.size(g)` bytes, all equal to `CacheCrashEntry.byte(i, g)`, so a reader can tell a torn or
// mixed-up entry from a whole one. Prints "ready" once the first entry is written.

/// The shape of the entries; the test repeats these two formulas.
enum CacheCrashEntry {
    static func size(_ generation: Int) -> Int { 1_024 + (generation &* 7_919) % 300_000 }
    static func byte(_ key: Int, _ generation: Int) -> UInt8 { UInt8(truncatingIfNeeded: key &* 31 &+ generation) }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: CourierCacheWriter <directory> [--keys N]\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)
var keys = 20
if let index = arguments.firstIndex(of: "--keys"), index + 1 < arguments.count, let value = Int(arguments[index + 1]) {
    keys = max(1, value)
}
let storage = DiskCacheStorage(directory: directory, byteLimit: 1 << 30)
var generation = 0
var announced = false
while true {
    generation += 1
    let key = generation % keys
    let entry = CacheEntry(
        key: CacheKey(digest: "crash-test-key-\(key)"), statusCode: 200,
        headers: ["X-Key": String(key), "X-Generation": String(generation)],
        body: Data(repeating: CacheCrashEntry.byte(key, generation), count: CacheCrashEntry.size(generation)),
        url: nil, storedAt: Date(), expiresAt: nil)
    do {
        try await storage.store(entry)
    } catch {
        FileHandle.standardError.write(Data("write failed: \(error)\n".utf8))
        exit(1)
    }
    if !announced {
        announced = true
        FileHandle.standardOutput.write(Data("ready\n".utf8))
    }
}
