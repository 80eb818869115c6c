import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
        let suite = ExecutorConformance(executor: FaultServer.executor, servers: servers)

        let failures = await suite.run(check)

        for failure in failures {
            Issue.record(Comment(rawValue: failure.description))
        }
    }

    // One check at a time: the run above already loads the servers and both cores with every check at once.
    @Test(
        "URLSessionExecutor passes with cookies for the servers' host in its cookie store", .serialized,
        arguments: checks)
    func withCookies(_ check: ExecutorConformance.Check) async throws {
        // GIVEN an executor over a store of its own (the shared one is the whole test process's) that holds cookies
        // for the host of the fault server and httpbin, one named like the redirect check's own Cookie pair
        let servers = try #require(ExecutorConformance.Servers.fromEnvironment(), "the test servers are not set")
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "courier-tests-\(UUID())")
        storage.cookieAcceptPolicy = .always
        let url = servers.faultServer
        for field in ["session=from-the-jar; Path=/", "jar=j1; Path=/"] {
            let cookies = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": field], for: url)
            storage.setCookies(cookies, for: url, mainDocumentURL: nil)
        }
        try #require(storage.cookies(for: url)?.count == 2)
        let configuration = URLSessionConfiguration.default
        configuration.httpCookieStorage = storage
        let suite = ExecutorConformance(executor: URLSessionExecutor(configuration: configuration), servers: servers)

        // WHEN the check runs
        let failures = await suite.run(check)

        // THEN it passes
        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
    }

    @Test("timeoutIsDeadline passes URLSessionExecutor, and fails it when it is given twice the timeout")
    func timeoutCheckTellsTheDeadlineFromTwiceIt() async throws {
        // GIVEN the executor, and the executor given twice each request's timeout
        let servers = try #require(ExecutorConformance.Servers.fromEnvironment(), "the test servers are not set")
        let kept = ExecutorConformance(executor: URLSessionExecutor.shared, servers: servers)
        let doubled = ExecutorConformance(
            executor: TwiceTheTimeout(wrapped: URLSessionExecutor.shared), servers: servers)

        // WHEN the deadline check runs on both
        async let keptFailures = kept.run(.timeoutIsDeadline)
        async let doubledFailures = doubled.run(.timeoutIsDeadline)
        let (passed, failed) = await (keptFailures, doubledFailures)

        // THEN the executor passes, and the one that waits twice the timeout fails for each of the two calls
        #expect(passed.isEmpty, "\(passed.map(\.description).joined(separator: "\n"))")
        #expect(failed.count == 2, "\(failed.map(\.description).joined(separator: "\n"))")
        #expect(failed.allSatisfy { $0.check == .timeoutIsDeadline && $0.message.contains("ended after") })
    }
}

/// Hands `wrapped` each request with twice its timeout: an executor that does not keep the deadline.
private struct TwiceTheTimeout: APIExecutor {
    let wrapped: any APIExecutor

    var supportedTransfers: TransferFeatures { wrapped.supportedTransfers }

    func execute(_ request: APIRequest) async throws -> APIResponse {
        var request = request
        request.timeout = request.timeout * 2
        return try await wrapped.execute(request)
    }
}
