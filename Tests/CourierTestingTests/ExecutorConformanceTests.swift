import Courier
import CourierTesting
import Foundation
import Testing

/// The conformance suite on an executor without a network: a `StubExecutor` that answers like httpbin and the
/// fault server for the checks that do not depend on real connections (statuses, headers, bodies,
/// cancellation, concurrency). Shows that the suite runs on any executor, and that `StubExecutor` passes
/// responses through as they are. (Both real executors run every check against the real servers: the
/// integration tests and scripts/test-ahc.)
@Suite("ExecutorConformance with StubExecutor")
struct ExecutorConformanceTests {
    /// The checks a stub can answer: everything about connections (redirects, deadlines, size limits,
    /// transport errors) belongs to real executors.
    static let stubChecks: [ExecutorConformance.Check] = [
        .methodsAndBodies, .repeatedRequestHeaders, .repeatedResponseHeaders, .statusCodesPassedThrough,
        .emptyBodies, .cancellation, .concurrency,
    ]

    @Test("A StubExecutor that answers like the servers passes the checks it can", arguments: stubChecks)
    func stubbed(_ check: ExecutorConformance.Check) async throws {
        let servers = try Self.stubServers()
        let suite = ExecutorConformance(executor: Self.emulator(), servers: servers)

        let failures = await suite.run(check)

        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
    }

    @Test("A stub that validates statuses, answers without bodies and drops repeated headers fails each check")
    func brokenStubFails() async throws {
        let servers = try Self.stubServers()
        let broken = StubExecutor().stub(where: { _ in true }) { request in
            try await Task.sleep(for: .milliseconds(1))
            // Throws for every 4xx and 5xx, answers every request with one header and an empty body.
            let status = request.url.path.hasPrefix("/status/") ? Int(request.url.lastPathComponent) ?? 200 : 200
            if status >= 400 {
                throw APIError(
                    .unacceptableStatus(status >= 500 ? .serverError : .clientError), endpoint: request.endpoint)
            }
            return StubResponse(statusCode: status, headers: ["X-Multi": "first"])
        }
        let suite = ExecutorConformance(executor: broken, servers: servers, timeLimit: .seconds(5))

        let failed = Set(await suite.run(Self.stubChecks.filter { $0 != .cancellation }).map(\.check))

        #expect(failed == Set(Self.stubChecks.filter { $0 != .cancellation }))
    }

    /// The checks of transfers (bodies from files and streams, multipart, streamed responses, downloads, progress,
    /// redirected uploads).
    static let transferChecks: [ExecutorConformance.Check] = [
        .fileAndStreamBodies, .multipartBody, .streamedResponse, .downloadToFile, .downloadIdleTimeout,
        .progressReported, .redirectedUploads,
    ]

    /// An executor written before transfers existed: in-memory calls only.
    struct InMemoryOnly: APIExecutor {
        let base: StubExecutor

        func execute(_ request: APIRequest) async throws -> APIResponse {
            try await base.execute(request)
        }
    }

    @Test("An executor that declares no transfers passes the transfer checks: each such call fails before any I/O")
    func undeclaredTransfersFailBeforeIO() async throws {
        let emulator = Self.emulator()
        let suite = ExecutorConformance(
            executor: InMemoryOnly(base: emulator), servers: try Self.stubServers(), timeLimit: .seconds(10))

        let failures = await suite.run(Self.transferChecks)

        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
        #expect(emulator.requests.isEmpty, "\(emulator.requests.map(\.url))")
    }

    @Test("An executor that declares transfers it does not carry out fails each transfer check")
    func declaredButMissingTransfersFail() async throws {
        // The emulator declares every transfer (as StubExecutor does) but knows none of the transfer routes.
        let suite = ExecutorConformance(
            executor: Self.emulator(), servers: try Self.stubServers(), timeLimit: .seconds(10))

        let failed = Set(await suite.run(Self.transferChecks).map(\.check))

        #expect(failed == Set(Self.transferChecks))
    }

    @Test("A check that hangs fails at the time limit")
    func hangFails() async throws {
        let hanging = StubExecutor().stub(where: { _ in true }) { request in
            // Ignores cancellation: sleeps on, uncancellably, for a minute.
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + 60) { continuation.resume() }
            }
            return StubResponse(statusCode: 200)
        }
        let suite = ExecutorConformance(
            executor: hanging, servers: try Self.stubServers(), timeLimit: .milliseconds(300))
        let start = ContinuousClock.now

        let failures = await suite.run(.statusCodesPassedThrough)

        #expect(failures.map(\.message) == ["did not finish within 0.3 seconds"])
        // Far below the 60 s the executor hangs for: a loaded machine is slow, not 30 s slow.
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    // MARK: - The emulator

    static func stubServers() throws -> ExecutorConformance.Servers {
        let httpbin = try #require(URL(string: "http://httpbin.stub"))
        let fault = try #require(URL(string: "http://fault.stub"))
        return ExecutorConformance.Servers(
            httpbin: httpbin, faultServer: fault, faultServerOtherHost: fault, faultServerOtherPort: fault)
    }

    /// Answers the httpbin and fault-server routes that ``stubChecks`` use, as those servers do.
    static func emulator() -> StubExecutor {
        StubExecutor().stub(where: { _ in true }) { request in
            try Task.checkCancellation()
            let path = request.url.path
            let isHead = request.method == .head
            func json(_ object: [String: Any], status: Int = 200) throws -> StubResponse {
                let data = try JSONSerialization.data(withJSONObject: object)
                return StubResponse(
                    statusCode: status, headers: ["Content-Type": "application/json"], body: isHead ? Data() : data)
            }
            var headers: [String: String] = [:]
            for field in request.headers {
                headers[field.name.rawValue] =
                    headers[field.name.rawValue].map { $0 + "," + field.value } ?? field.value
            }
            var args: [String: String] = [:]
            for item in request.queryItems { args[item.name] = item.value ?? "" }
            switch path {
            case "/anything", "/get":
                return try json([
                    "method": request.method.rawValue, "headers": headers, "args": args,
                    "data": String(decoding: request.body.data ?? Data(), as: UTF8.self),
                ])
            case "/headers":
                return try json(["headers": headers])
            case "/response-headers":
                var fields = HTTPHeaders()
                for item in request.queryItems { fields.add(HTTPHeaderName(rawValue: item.name), item.value ?? "") }
                return StubResponse(statusCode: 200, headers: fields)
            case "/no-content-with-body":
                return StubResponse(statusCode: 204)
            case "/slow-headers", "/endless-chunked":
                try await Task.sleep(for: .seconds(10))
                return StubResponse(statusCode: 200)
            default:
                if path.hasPrefix("/status/"), let status = Int(request.url.lastPathComponent) {
                    return StubResponse(statusCode: status)
                }
                if path.hasPrefix("/bytes/"), let count = Int(request.url.lastPathComponent) {
                    let body = isHead ? Data() : Data(repeating: 7, count: count)
                    return StubResponse(statusCode: 200, body: body)
                }
                return try json(["error": "no route"], status: 404)
            }
        }
    }
}
