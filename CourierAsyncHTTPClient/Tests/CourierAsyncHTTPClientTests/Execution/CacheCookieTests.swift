import Courier
import CourierAsyncHTTPClient
import Foundation
import Testing

/// The response cache sits before the executor, which adds the stored cookies itself: on both executors a session
/// cookie makes a response credentialed for the cache (off the disk unless allowed, a new entry for a new cookie).
@Suite("Cache and the executor's cookies", .servers)
struct CacheCookieTests {
    struct UUIDBody: Decodable, Equatable {
        let uuid: String
    }

    @Test(arguments: CookieTests.Executor.allCases)
    func aSessionCookieIsACredential(_ kind: CookieTests.Executor) async throws {
        // GIVEN an executor holding a session cookie, and a cache with a disk level
        let (executor, _) = kind.make()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-ahc-cache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ResponseCache(memory: MemoryCacheStorage(), disk: DiskCacheStorage(directory: directory))
        let configuration = APIConfiguration(baseURL: try Servers.required().httpbin, executor: executor, cache: cache)
        let setSession = GET<String>("/cookies/set") { ["session": $0] }
        let uuid = GET<Void>(
            "/uuid", tags: [.cache(CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .never))])
        _ = try await setSession.request(with: "ck-ONE", using: configuration) as Data

        // WHEN the endpoint is read twice, then again after the cookie changed
        let first: UUIDBody = try await uuid.request(using: configuration)
        let again: UUIDBody = try await uuid.request(using: configuration)
        _ = try await setSession.request(with: "ck-TWO", using: configuration) as Data
        let other: UUIDBody = try await uuid.request(using: configuration)

        // THEN the cached entry served the same cookie only, and nothing went to disk
        #expect(again == first)
        #expect(other != first)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        #expect(files.filter { $0.hasSuffix(".courier-cache") }.isEmpty)
    }
}
