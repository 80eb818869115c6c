import Courier
import Foundation
import Testing

/// 1,000 calls on 50 keys through the whole cache (memory and disk with small limits, de-duplication on).
/// CPU-heavy for a few seconds in debug builds: scripts/test runs it with the heavy suites, after the timing checks.
@Suite struct CacheStressTests {
    struct PathEcho: APIExecutor {
        func execute(_ request: APIRequest) async throws -> APIResponse {
            let body = Data("{\"path\":\"\(request.url.path)\"}".utf8)
            return APIResponse(statusCode: 200, body: .data(body), request: request)
        }
    }

    struct Path: Decodable, Sendable {
        let path: String
    }

    @Test func aThousandCallsOnFiftyKeysEachGetTheirOwnResponse() async throws {
        // Small limits (about 20 of the 50 entries fit), de-duplication on: eviction and sharing run all the time.
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ResponseCache(
            memory: MemoryCacheStorage(costLimit: 20 * 300),
            disk: DiskCacheStorage(directory: directory, byteLimit: 20 * 400),
            defaultPolicy: CachePolicy(
                read: .cacheElseNetwork, write: .memoryAndDisk, expiry: .seconds(60),
                deduplicatesInFlightRequests: true))
        let configuration = cachingConfiguration(PathEcho(), cache: cache)
        let endpoint = GET<Int>(wrappedValue: .init { ["key": $0] }, "/keys/{key}")
        let wrong = try await withThrowingTaskGroup(of: Bool.self) { group in
            for task in 0..<1_000 {
                group.addTask {
                    let key = task % 50
                    let answer: Path = try await endpoint.request(with: key, using: configuration)
                    return answer.path != "/keys/\(key)"
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(wrong == 0)
    }

}
