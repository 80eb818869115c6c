import Courier
import Foundation
import Testing

@testable import CourierTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `ExecutorConformance.Servers.startingFaultServer(httpbin:)`: the fault server CourierTesting ships, started from
/// any package with nothing but Python, so the conformance suite runs outside Courier's repository.
@Suite("ExecutorConformance starts the fault server it ships")
struct FaultServerLaunchTests {
    @Test("The shipped server starts once per process, on three origins, and the fault checks pass against it")
    func startsAndServes() async throws {
        // GIVEN the servers of two calls (httpbin is not contacted: the checks below talk to the fault server only)
        let httpbin = try #require(URL(string: "http://127.0.0.1:9"))
        let first = try await ExecutorConformance.Servers.startingFaultServer(httpbin: httpbin)
        let second = try await ExecutorConformance.Servers.startingFaultServer(httpbin: httpbin)

        // THEN they are one server, on another host and another port too
        #expect(first.faultServer == second.faultServer)
        #expect(first.faultServerOtherHost.host != first.faultServer.host)
        #expect(first.faultServerOtherHost.port == first.faultServer.port)
        #expect(first.faultServerOtherPort.port != first.faultServer.port)
        #expect(first.faultServer.host == "127.0.0.1")

        // AND the checks that need the fault server pass with URLSessionExecutor
        let suite = ExecutorConformance(executor: URLSessionExecutor.shared, servers: first)
        let failures = await suite.run([.redirectCredentialsRemoved, .timeoutIsDeadline, .transportErrors])
        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
    }

    @Test(
        "Without Python the error says so",
        arguments: [["PATH": "/nonexistent"], ["COURIER_PYTHON": "/nonexistent/python3"]])
    func withoutPython(_ environment: [String: String]) {
        #expect(throws: ExecutorConformance.ServerError.pythonNotFound) {
            try FaultServerProcess.python(in: environment)
        }
    }
}
