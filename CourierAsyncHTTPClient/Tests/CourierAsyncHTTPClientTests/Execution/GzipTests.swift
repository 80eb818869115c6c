import Courier
import CourierAsyncHTTPClient
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A gzip response decodes the same on both executors: decoded bytes are bounded by `maxResponseBytes`, not by a
/// compression ratio, so realistic JSON (~30:1) decodes and a gzip bomb is still `.responseTooLarge`.
@Suite("gzip on both executors", .servers)
struct GzipTests {
    /// One record of the fault server's `/gzip-json`.
    struct Record: Decodable {
        var id: Int
        var user: String
    }

    enum Executor: String, CaseIterable, CustomStringConvertible {
        case asyncHTTPClient
        case urlSession

        var executor: any APIExecutor {
            switch self {
            case .asyncHTTPClient: AsyncHTTPClientExecutor()
            case .urlSession: URLSessionExecutor.shared
            }
        }

        var description: String { rawValue }
    }

    static func configuration(_ executor: Executor, maxResponseBytes: Int) throws -> APIConfiguration {
        APIConfiguration(baseURL: try Servers.required().faultServer, executor: executor.executor).with {
            $0.maxResponseBytes = maxResponseBytes
        }
    }

    @Test("1 MiB of JSON gzipped at ~30:1 decodes", arguments: Executor.allCases)
    func realisticJSON(_ executor: Executor) async throws {
        let configuration = try Self.configuration(executor, maxResponseBytes: 4 << 20)

        let records: [Record] = try await GET<Void>("/gzip-json?kb=1024").request(using: configuration)

        #expect(records.count > 5000)
        #expect(records.last?.id == records.count - 1)
    }

    @Test("A gzip bomb over maxResponseBytes is .responseTooLarge", arguments: Executor.allCases)
    func bomb(_ executor: Executor) async throws {
        let configuration = try Self.configuration(executor, maxResponseBytes: 8 << 20)

        let error = await #expect(throws: APIError.self) {
            try await GET<Void>("/gzip-bomb?mb=64").request(using: configuration) as Data
        }

        #expect(error?.reason == .transport(.responseTooLarge), "\(String(describing: error))")
    }
}
