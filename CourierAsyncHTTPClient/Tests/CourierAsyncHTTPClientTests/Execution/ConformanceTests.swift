import AsyncHTTPClient
@_spi(CourierInternals) import Courier
import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// CourierTesting's executor conformance suite, every check, for `AsyncHTTPClientExecutor`: with the shared
/// client, and with a client of the test's own made from `clientConfiguration(_:)`.
@Suite("AsyncHTTPClientExecutor: executor conformance", .servers)
struct ConformanceTests {
    @Test("The default executor passes", arguments: ExecutorConformance.Check.allCases)
    func sharedClient(_ check: ExecutorConformance.Check) async throws {
        let suite = ExecutorConformance(executor: AsyncHTTPClientExecutor(), servers: try Servers.required())

        let failures = await suite.run(check)

        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
    }

    @Test(
        "The executor passes with cookies for the servers' host in its storage",
        arguments: ExecutorConformance.Check.allCases)
    func withCookies(_ check: ExecutorConformance.Check) async throws {
        // GIVEN a storage of the test's own (HTTPCookieStorage.shared is the whole process's) with two cookies for
        // the servers' host, one named like the Cookie pair of the redirect check
        let servers = try Servers.required()
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "courier-ahc-\(UUID())")
        storage.cookieAcceptPolicy = .always
        CookieJar(storage).store(setCookieFields: ["session=jar; Path=/", "jar=j1; Path=/"], from: servers.faultServer)
        try #require(storage.cookies?.count == 2)
        let suite = ExecutorConformance(executor: AsyncHTTPClientExecutor(cookies: storage), servers: servers)

        // WHEN the check runs, THEN it passes
        let failures = await suite.run(check)
        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
    }

    @Test("An executor over a client of its own, made from a configuration, passes")
    func configuredClient() async throws {
        let executor = AsyncHTTPClientExecutor(configuration: HTTPClient.Configuration())
        let suite = ExecutorConformance(executor: executor, servers: try Servers.required())

        let failures = await suite.run()
        try await executor.client.shutdown()

        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
    }

    @Test("timeoutIsDeadline fails the executor when it is handed twice the timeout")
    func twiceTheTimeoutFails() async throws {
        // GIVEN an executor that gives AsyncHTTPClientExecutor each request with twice its timeout
        let suite = ExecutorConformance(
            executor: TwiceTheTimeout(wrapped: AsyncHTTPClientExecutor()), servers: try Servers.required())

        // WHEN the deadline check runs
        let failures = await suite.run(.timeoutIsDeadline)

        // THEN both of its calls fail it (the executor itself passes it: sharedClient(_:))
        #expect(failures.count == 2, "\(failures.map(\.description).joined(separator: "\n"))")
        #expect(failures.allSatisfy { $0.check == .timeoutIsDeadline && $0.message.contains("ended after") })
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
