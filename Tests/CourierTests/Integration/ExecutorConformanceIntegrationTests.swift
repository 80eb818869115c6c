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

    @Test(
        "A transport that breaks the seam fails the check for it; the same transport without the fault passes",
        arguments: SeamFault.allCases)
    func seamFaults(_ fault: SeamFault) async throws {
        // GIVEN URLSessionExecutor's hop behind a transport of public API only, as it is and with a fault planted
        let servers = try #require(ExecutorConformance.Servers.fromEnvironment(), "the test servers are not set")
        let honest = ExecutorConformance(executor: PlantedTransport(fault: nil), servers: servers)
        let faulty = ExecutorConformance(executor: PlantedTransport(fault: fault), servers: servers)

        // WHEN the check for that part of the seam runs on both
        let passed = await honest.run(fault.check)
        let failed = await faulty.run(fault.check)

        // THEN the honest transport passes, and the faulty one fails in that check
        #expect(passed.isEmpty, "\(passed.map(\.description).joined(separator: "\n"))")
        #expect(!failed.isEmpty)
        #expect(failed.allSatisfy { $0.check == fault.check }, "\(failed.map(\.description))")
    }
}

/// What a transport can get wrong at the seam, each with the check that must catch it.
enum SeamFault: String, CaseIterable, CustomTestStringConvertible {
    /// Follows a redirect itself, with every header field: credentials reach the other origin.
    case followsRedirects
    /// Sends only the first value of a repeated header field.
    case dropsRepeatedFields
    /// Throws on a `5xx` instead of returning it.
    case throwsOnServerErrors
    /// Sends the method and headers without the body.
    case dropsTheBody

    var check: ExecutorConformance.Check {
        switch self {
        case .followsRedirects: .redirectCredentialsRemoved
        case .dropsRepeatedFields: .repeatedRequestHeaders
        case .throwsOnServerErrors: .statusCodesPassedThrough
        case .dropsTheBody: .methodsAndBodies
        }
    }

    var testDescription: String { rawValue }
}

/// `URLSessionExecutor`'s hop behind an ``HTTPTransport`` written with public API only, with `fault` planted.
private struct PlantedTransport: HTTPTransport {
    let fault: SeamFault?
    let base = URLSessionExecutor.shared

    func send(_ hop: APIRequest) async throws -> APIResponse {
        var hop = hop
        switch fault {
        case .dropsRepeatedFields:
            var seen: Set<HTTPHeaderName> = []
            hop.headers = HTTPHeaders(hop.headers.filter { seen.insert($0.name).inserted })
        case .dropsTheBody:
            hop.body = .empty
        case .followsRedirects, .throwsOnServerErrors, nil:
            break
        }
        let response = try await base.send(hop)
        switch fault {
        case .followsRedirects:
            guard (300..<400).contains(response.statusCode),
                let location = response.headers[.location],
                let next = URL(string: location, relativeTo: hop.url)
            else { return response }
            hop.url = next.absoluteURL
            return try await send(hop)
        case .throwsOnServerErrors where response.statusCode >= 500:
            throw APIError(.transport(.other), endpoint: hop.endpoint, request: hop)
        default:
            return response
        }
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
