import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Timeouts, cancellation and refused connections with the real `URLSessionExecutor`.
@Suite("Integration: transport", .httpbin)
struct TransportIntegrationTests {
    /// A session made by the caller rather than by Courier, for ``URLSessionExecutor/init(session:)``.
    static let ownSession = URLSession(configuration: .default)

    enum TimeoutSource: String, CaseIterable, Sendable {
        case endpointOneSecond = "endpoint timeout: 1 s"
        case endpointHalfSecond = "endpoint timeout: 0.5 s"
        case configurationOneSecond = "configuration timeout: 1 s"
        case callerSessionOneSecond = "endpoint timeout: 1 s, caller's own URLSession"

        var timeout: Duration {
            self == .endpointHalfSecond ? .milliseconds(500) : .seconds(1)
        }

        /// Calls `/delay/{seconds}` with this source's timeout in force.
        func call(delay seconds: Int) async throws -> APIResponse {
            let configuration = try HTTPBin.configuration()
            switch self {
            case .endpointOneSecond:
                return try await HTTPBinAPI.$delayWithOneSecondTimeout.request(with: seconds, using: configuration)
            case .endpointHalfSecond:
                return try await HTTPBinAPI.$delayWithHalfSecondTimeout.request(with: seconds, using: configuration)
            case .configurationOneSecond:
                let shortTimeout = try HTTPBin.configuration(timeout: .seconds(1))
                return try await HTTPBinAPI.$delay.request(with: seconds, using: shortTimeout)
            case .callerSessionOneSecond:
                let ownExecutor = configuration.with {
                    $0.executor = URLSessionExecutor(session: TransportIntegrationTests.ownSession)
                }
                return try await HTTPBinAPI.$delayWithOneSecondTimeout.request(with: seconds, using: ownExecutor)
            }
        }
    }

    @Test(
        "A response slower than the timeout fails with .transport(.timedOut) soon after it",
        arguments: TimeoutSource.allCases)
    func timeout(_ source: TimeoutSource) async throws {
        let clock = ContinuousClock()
        let start = clock.now

        let error = try await #require(throws: APIError.self) {
            try await source.call(delay: 10)
        }

        let elapsed = clock.now - start
        #expect(error.reason == .transport(.timedOut))
        #expect(error.underlyingError is URLError)
        #expect(elapsed >= source.timeout - .milliseconds(50))
        // Before httpbin's 10 s answer: the bound is the server's, not the timeout plus a slack (a 2-core machine busy
        // with builds was seen to end a 0.5 s timeout after 7.5 s); an unenforced timeout succeeds and fails above.
        #expect(elapsed < .seconds(10), "timed out after \(elapsed)")
        #expect(error.description.hasPrefix("GET /delay/{seconds}: the request timed out"))
    }

    @Test("An endpoint's longer timeout wins over the configuration's shorter one")
    func endpointTimeoutWins() async throws {
        // GIVEN a configuration that would time out after 1 s
        let configuration = try HTTPBin.configuration(timeout: .seconds(1))

        // WHEN an endpoint with an 8 s timeout waits 2 s for its response
        let raw: APIResponse = try await HTTPBinAPI.$delayWithEightSecondTimeout.request(with: 2, using: configuration)

        // THEN the call succeeds
        #expect(raw.statusCode == 200)
        #expect(raw.request.timeout == .seconds(8))
    }

    @Test("Cancelling the calling task stops a /delay/10 call long before its end with .transport(.cancelled)")
    func cancellation() async throws {
        let configuration = try HTTPBin.configuration(timeout: .seconds(30))
        let clock = ContinuousClock()

        // GIVEN a call that would take 10 s, started in its own task
        let call = Task { () async throws -> APIResponse in
            try await HTTPBinAPI.$delay.request(with: 10, using: configuration)
        }
        try await Task.sleep(for: .milliseconds(200))

        // WHEN the task is cancelled while the request is in flight
        let cancelledAt = clock.now
        call.cancel()
        let result = await call.result
        let latency = clock.now - cancelledAt

        // THEN the call ends before the 10 s answer could (8 s: room for a loaded machine), as a cancellation
        #expect(latency < .seconds(8), "cancellation took \(latency)")
        let error = try #require(throws: APIError.self) { try result.get() }
        #expect(error.reason == .transport(.cancelled))
        #expect(error.isCancellation)
        #expect(error.description.hasPrefix("GET /delay/{seconds}: the request was cancelled"))
    }

    @Test("A task that is already cancelled fails with .transport(.cancelled) without waiting")
    func alreadyCancelled() async throws {
        let configuration = try HTTPBin.configuration()
        let clock = ContinuousClock()

        let call = Task { () async throws -> APIResponse in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await HTTPBinAPI.$delay.request(with: 10, using: configuration)
        }
        let start = clock.now
        let result = await call.result
        let elapsed = clock.now - start

        let error = try #require(throws: APIError.self) { try result.get() }
        #expect(error.reason == .transport(.cancelled))
        #expect(elapsed < .seconds(8), "took \(elapsed) for a 10 s delay")
    }

    @Test("Several cancelled calls in parallel all end promptly")
    func parallelCancellation() async throws {
        let configuration = try HTTPBin.configuration(timeout: .seconds(30))
        let clock = ContinuousClock()

        // GIVEN eight slow calls in flight
        let calls = (0..<8).map { _ in
            Task { () async throws -> APIResponse in
                try await HTTPBinAPI.$delay.request(with: 10, using: configuration)
            }
        }
        try await Task.sleep(for: .milliseconds(300))

        // WHEN they are all cancelled
        let cancelledAt = clock.now
        for call in calls { call.cancel() }
        var reasons: [APIError.Reason?] = []
        for call in calls {
            if case .failure(let error) = await call.result {
                reasons.append((error as? APIError)?.reason)
            } else {
                reasons.append(nil)
            }
        }
        let latency = clock.now - cancelledAt

        // THEN every one of them is a cancellation, and all of them ended before the 10 s delay could (8 s: room for a loaded machine)
        #expect(reasons == Array(repeating: .transport(.cancelled), count: calls.count))
        #expect(latency < .seconds(8), "cancellation took \(latency)")
    }

    @Test("A 401 with a Basic challenge ends at once as .unauthorized, with the challenge header")
    func basicChallenge() async throws {
        // GIVEN wrong credentials for httpbin's Basic-auth endpoint, and a timeout far away
        let configuration = try HTTPBin.configuration(timeout: .seconds(30))
        let clock = ContinuousClock()
        let start = clock.now

        // WHEN it is called (FoundationNetworking alone would wait for an answer to the challenge forever)
        let error = try await #require(throws: APIError.self) {
            try await HTTPBinAPI.$basicAuth.request(with: (user: "user", password: "secret"), using: configuration)
        }

        // THEN the 401 comes back as a status error well before the timeout (the bound leaves room for an httpbin
        // busy with the suites that run beside this one: 2.85 s was seen under CI's parallel load)
        #expect(clock.now - start < .seconds(10))
        #expect(error.reason == .unacceptableStatus(.unauthorized))
        #expect(error.response?.headers["WWW-Authenticate"] == #"Basic realm="Fake Realm""#)
    }

    @Test("The right Basic credentials, sent as a header, succeed")
    func basicCredentials() async throws {
        let credentials = Data("user:secret".utf8).base64EncodedString()
        let configuration = try HTTPBin.configuration(headers: ["Authorization": "Basic \(credentials)"])

        let raw: APIResponse = try await HTTPBinAPI.$basicAuth.request(
            with: (user: "user", password: "secret"),
            using: configuration
        )

        #expect(raw.statusCode == 200)
    }

    @Test("A closed port on 127.0.0.1 gives .transport(.cannotConnect)")
    func closedPort() async throws {
        // GIVEN a port that is bound but does not listen, so the connection is refused
        let port = try #require(RefusingPort())
        let configuration = try HTTPBin.configuration(timeout: .seconds(5))
        var closed = configuration
        closed.baseURL = URL(string: "http://127.0.0.1:\(port.number)")

        // WHEN an endpoint is called there
        let error = try await #require(throws: APIError.self) {
            try await HTTPBinAPI.$get.request(with: (a: "x", b: 1), using: closed)
        }

        // THEN the error says so, and carries the URLError
        #expect(error.reason == .transport(.cannotConnect))
        #expect(error.response == nil)
        #expect((error.underlyingError as? URLError)?.code == .cannotConnectToHost)
        #expect(error.request?.url.port == Int(port.number))
    }
}
