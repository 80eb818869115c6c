import Courier
import CourierTesting
import Foundation
import Testing

/// The executor conformance suite (CourierTesting's ``ExecutorConformance``) for the default executor,
/// `URLSessionExecutor`, against the real httpbin and fault server. `AsyncHTTPClientExecutor` runs the same
/// suite in the CourierAsyncHTTPClient package (scripts/test-ahc).
@Suite("Integration: executor conformance, URLSessionExecutor", .httpbin, .faultServer)
struct ExecutorConformanceIntegrationTests {
    /// Every check but, on Linux, the bare status line: FoundationNetworking traps on it
    /// (swift-corelibs-foundation#5285), which would end the test process.
    static let checks: [ExecutorConformance.Check] = {
        #if canImport(FoundationNetworking)
            ExecutorConformance.Check.allCases.filter { $0 != .bareStatusLine }
        #else
            ExecutorConformance.Check.allCases
        #endif
    }()

    @Test("URLSessionExecutor passes", arguments: checks)
    func urlSession(_ check: ExecutorConformance.Check) async throws {
        let servers = try #require(ExecutorConformance.Servers.fromEnvironment(), "the test servers are not set")
        let suite = ExecutorConformance(executor: URLSessionExecutor.shared, servers: servers)

        let failures = await suite.run(check)

        for failure in failures {
            Issue.record(Comment(rawValue: failure.description))
        }
    }
}
