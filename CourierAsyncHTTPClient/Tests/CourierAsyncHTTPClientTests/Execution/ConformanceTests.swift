import AsyncHTTPClient
import CourierAsyncHTTPClient
import CourierTesting
import Testing

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

    @Test("An executor over an injected client passes")
    func injectedClient() async throws {
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: AsyncHTTPClientExecutor.clientConfiguration())
        let suite = ExecutorConformance(
            executor: try AsyncHTTPClientExecutor(client: client), servers: try Servers.required())

        let failures = await suite.run()
        try await client.shutdown()

        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
    }
}
