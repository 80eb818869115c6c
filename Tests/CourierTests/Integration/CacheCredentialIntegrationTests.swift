import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every credential makes a response credentialed for the cache, against the real httpbin: an API key in a query
/// item (whatever its name), a header the configuration marks sensitive, a cookie the session sends. A credentialed
/// response is kept apart per credential, stays off the disk unless the policy allows it, and no cache file holds
/// the secret in its name or its bytes.
@Suite("Integration: credentials in the cache", .httpbin)
struct CacheCredentialIntegrationTests {
    struct UUIDBody: Decodable, Sendable, Equatable {
        let uuid: String
    }

    static let diskPolicy = CachePolicy(read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .never)
    static let allowingDisk = diskPolicy.with { $0.allowsCredentialedDiskWrites = true }

    struct Setup {
        let recorder = StatusRecorder()
        let memory = MemoryCacheStorage()
        let directory = temporaryCacheDirectory()
        let configuration: APIConfiguration

        init(executor: (any APIExecutor)? = nil, _ change: (inout APIConfiguration) -> Void = { _ in }) throws {
            let cache = ResponseCache(memory: memory, disk: DiskCacheStorage(directory: directory))
            var configuration = try HTTPBin.configuration(executor: executor ?? recorder).with { $0.cache = cache }
            change(&configuration)
            self.configuration = configuration
        }

        /// Every byte of every cache file and every file name, as text.
        func filesText() throws -> String {
            try cacheFiles(in: directory).map {
                $0.lastPathComponent + String(decoding: try Data(contentsOf: $0), as: UTF8.self)
            }
            .joined()
        }
    }

    @Test("An API key in a query item named `key` keeps the response off the disk", arguments: ["key", "api_key"])
    func queryAPIKeyStaysOffTheDisk(item: String) async throws {
        let setup = try Setup { $0.plugins = [.apiKey("qk-SECRET-1", queryItem: item)] }
        let endpoint = GET<Void>("/uuid", tags: [.cache(Self.diskPolicy)])

        let first: UUIDBody = try await endpoint.request(using: setup.configuration)
        let second: UUIDBody = try await endpoint.request(using: setup.configuration)

        #expect(first == second)
        #expect(setup.recorder.statuses.value == [200])
        #expect(setup.memory.count == 1)
        #expect(cacheFiles(in: setup.directory).isEmpty)
    }

    @Test("Allowed on disk, each query API key has its own entry and no file holds a key")
    func queryAPIKeysHaveEntriesOfTheirOwn() async throws {
        let setup = try Setup()
        let endpoint = GET<Void>("/uuid", tags: [.cache(Self.allowingDisk)])
        func call(_ key: String) async throws -> UUIDBody {
            try await endpoint.request(
                using: setup.configuration.with { $0.plugins = [.apiKey(key, queryItem: "key")] })
        }

        let alice = try await call("qk-ALICE-1")
        let bob = try await call("qk-BOB-22")
        #expect(try await call("qk-ALICE-1") == alice)
        #expect(try await call("qk-BOB-22") == bob)

        #expect(alice != bob)
        #expect(setup.recorder.statuses.value == [200, 200])
        #expect(cacheFiles(in: setup.directory).count == 2)
        let text = try setup.filesText()
        #expect(!text.contains("ALICE"))
        #expect(!text.contains("BOB"))
    }

    @Test("A header the configuration marks sensitive is a credential")
    func configuredSensitiveHeader() async throws {
        let setup = try Setup {
            $0.headers["X-Session"] = "sess-SECRET-9"
            $0.sensitiveNames = ["X-Session"]
        }
        let endpoint = GET<Void>("/uuid", tags: [.cache(Self.diskPolicy)])

        let _: UUIDBody = try await endpoint.request(using: setup.configuration)
        let other: UUIDBody = try await endpoint.request(
            using: setup.configuration.with { $0.headers["X-Session"] = "sess-OTHER-8" })
        let again: UUIDBody = try await endpoint.request(
            using: setup.configuration.with { $0.headers["X-Session"] = "sess-OTHER-8" })

        #expect(other == again)
        #expect(setup.recorder.statuses.value == [200, 200])
        #expect(cacheFiles(in: setup.directory).isEmpty)
    }

    @Test("A cookie the session sends is a credential: off the disk, and a new cookie is a new entry")
    func sessionCookie() async throws {
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "courier-tests-\(UUID())")
        storage.cookieAcceptPolicy = .always
        let configuration = URLSessionConfiguration.default
        configuration.httpCookieStorage = storage
        let setup = try Setup(executor: URLSessionExecutor(configuration: configuration))
        let setCookie = GET<String>("/cookies/set") { ["session": $0] }
        let endpoint = GET<Void>(
            "/uuid", tags: [.cache(Self.allowingDisk.with { $0.allowsCredentialedDiskWrites = false })])
        let allowed = GET<Void>("/uuid", tags: [.cache(Self.allowingDisk.with { $0.keyPrefix = "allowed/" })])

        let _: APIResponse = try await setCookie.request(with: "ck-SECRET-1", using: setup.configuration)
        let first: UUIDBody = try await endpoint.request(using: setup.configuration)
        #expect(try await endpoint.request(using: setup.configuration) == first)
        #expect(cacheFiles(in: setup.directory).isEmpty)

        let _: APIResponse = try await setCookie.request(with: "ck-SECRET-2", using: setup.configuration)
        let second: UUIDBody = try await endpoint.request(using: setup.configuration)
        #expect(second != first)

        let _: UUIDBody = try await allowed.request(using: setup.configuration)
        #expect(cacheFiles(in: setup.directory).count == 1)
        #expect(!(try setup.filesText()).contains("ck-SECRET"))
    }
}
