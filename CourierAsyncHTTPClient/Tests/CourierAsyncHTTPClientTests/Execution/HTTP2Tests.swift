import AsyncHTTPClient
import Courier
import CourierObservability
import CourierTesting
import Foundation
import MetricsTestKit
import Testing

@testable import CourierAsyncHTTPClient

/// `AsyncHTTPClientExecutor` over HTTP/2 against nginx (TLS, ALPN `h2`) in front of the fault server, which
/// `scripts/test-ahc` starts (`courier_h2server_start`). nginx's `/connection` answers with the number of the
/// connection it came over and the protocol, so the server itself counts the connections.
@Suite(
    "AsyncHTTPClientExecutor: HTTP/2 against nginx",
    .testEnvironment("COURIER_H2_URL", "COURIER_H2_GOAWAY_URL", "COURIER_TLS_DIR", setBy: "scripts/test-ahc"))
struct HTTP2Tests {
    /// nginx's origins, and the test CA the executor trusts for them.
    struct Server {
        let url: URL
        let goaway: URL
        let trust: TLSTrust

        init() throws {
            let environment = ProcessInfo.processInfo.environment
            url = try #require(environment["COURIER_H2_URL"].flatMap(URL.init(string:)))
            goaway = try #require(environment["COURIER_H2_GOAWAY_URL"].flatMap(URL.init(string:)))
            let folder = URL(fileURLWithPath: try #require(environment["COURIER_TLS_DIR"]))
            let pem = try String(contentsOf: folder.appendingPathComponent("ca.pem"), encoding: .utf8)
            trust = TLSTrust([TLSTrust.Host("127.0.0.1", roots: [try #require(TLSCertificate(pem: pem))])])
        }

        /// A configuration over an executor with a client of its own, so that its connections are this test's only.
        func configuration(
            _ base: URL? = nil, plugins: [any APIPlugin] = [], observers: [any CallObserver] = []
        ) -> (APIConfiguration, HTTPClient) {
            let executor = AsyncHTTPClientExecutor(
                configuration: AsyncHTTPClientExecutor.clientConfiguration(), trust: trust, cookies: nil)
            return (
                APIConfiguration(baseURL: base ?? url, executor: executor, plugins: plugins, observers: observers),
                executor.client
            )
        }
    }

    static let connection = GET<Void>("/connection")

    @Test(
        "Each attempt's HTTP version: on the response, the timeline, HAR and metrics",
        arguments: [("COURIER_H2_URL", "2"), ("COURIER_H1_TLS_URL", "1.1")])
    func version(origin: String, expected: String) async throws {
        let server = try Server()
        let base = try #require(ProcessInfo.processInfo.environment[origin].flatMap(URL.init(string:)))
        let metrics = TestMetrics()
        let har = HARRecorder()
        let (configuration, client) = server.configuration(base, observers: [har, .metrics(factory: metrics)])
        defer { _ = client.shutdown() }

        let response: DecodedResponse<String> = try await Self.connection.request(using: configuration)

        // nginx's own word for the protocol, then each surface's.
        #expect(response.value.hasSuffix(expected == "2" ? " HTTP/2.0" : " HTTP/1.1"))
        #expect(response.response.httpVersion == expected)
        let events = try #require(response.timeline).events
        #expect(events.first { $0.kind == .responseReceived }?.httpVersion == expected)
        #expect(events.first { $0.kind == .responseHeadReceived }?.httpVersion == expected)
        #expect(events.first { $0.kind == .connection }?.detail == "HTTP/" + expected)
        struct Archive: Decodable {
            struct Log: Decodable { let entries: [Entry] }
            struct Entry: Decodable {
                struct Message: Decodable { let httpVersion: String }
                let request: Message
                let response: Message
            }
            let log: Log
        }
        let entries = try JSONDecoder().decode(Archive.self, from: try har.har()).log.entries
        #expect(entries.map(\.response.httpVersion) == ["HTTP/" + expected])
        #expect(entries.map(\.request.httpVersion) == ["HTTP/" + expected])
        let durations = metrics.timers(label: "http.client.request.duration")
        #expect(
            durations.map { Dictionary($0.dimensions, uniquingKeysWith: { $1 })["network.protocol.version"] } == [
                expected
            ])
    }

    @Test("100 concurrent calls share one connection, counted by nginx")
    func oneConnection() async throws {
        let server = try Server()
        let (configuration, client) = server.configuration()
        defer { _ = client.shutdown() }

        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 {
                group.addTask { try await Self.connection.request(using: configuration) }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }

        #expect(answers.count == 100)
        #expect(answers.allSatisfy { $0.hasSuffix(" HTTP/2.0") })
        // nginx's connection number: one for all.
        #expect(Set(answers.map { $0.split(separator: " ").first }).count == 1)
    }

    @Test("A stream the server resets fails its call with connectionLost; a call on another stream goes on")
    func streamReset() async throws {
        let server = try Server()
        let (configuration, client) = server.configuration()
        defer { _ = client.shutdown() }
        let slow = GET<String>("/count") { ["key": $0, "delay": "1"] }
        let key = UUID().uuidString
        // A connection, then a slow call in flight on it, then the reset.
        let _: String = try await Self.connection.request(using: configuration)
        async let slowAnswer: String = slow.request(with: key, using: configuration)
        try await Self.waitForHits(key, server: server, configuration: configuration)

        let failure = await #expect(throws: APIError.self) {
            let _: String = try await GET<Void>("/reset").request(using: configuration)
        }

        #expect(failure?.reason == .transport(.connectionLost))
        #expect(failure?.endpoint.description == "GET /reset")
        #expect(try await slowAnswer.contains(#""hits": 1"#))
    }

    @Test(
        "GOAWAY mid-flight: the calls after the server's last stream were not processed; .retry() sends the GETs again"
    )
    func goaway() async throws {
        let server = try Server()
        struct Hits: Decodable { let hits: Int }
        let stats = GET<String>("/count-stats") { ["key": $0] }
        let (configuration, client) = server.configuration(
            server.goaway, plugins: [.retry(RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(10)))])
        defer { _ = client.shutdown() }
        let (counted, posted) = (
            GET<String>("/count") { ["key": $0, "delay": "0.5"] },
            POST<String>("/count") { ["key": $0, "delay": "0.5"] }
        )

        // 10 GETs, then 10 POSTs, at once on connections that each serve 4 requests.
        let gets = (0..<10).map { _ in UUID().uuidString }
        let posts = (0..<10).map { _ in UUID().uuidString }
        let outcomes = await withTaskGroup(of: (key: String, failure: APIError?).self) { group in
            for key in gets + posts {
                let isGet = gets.contains(key)
                group.addTask {
                    do {
                        let _: Hits =
                            try await isGet
                            ? counted.request(with: key, using: configuration)
                            : posted.request(with: key, using: configuration)
                        return (key, nil)
                    } catch {
                        return (key, error as? APIError)
                    }
                }
            }
            var outcomes: [String: APIError?] = [:]
            for await outcome in group { outcomes[outcome.key] = outcome.failure }
            return outcomes
        }

        // Every GET succeeded and reached the server once: the retried ones had not been processed.
        for key in gets {
            #expect(outcomes[key].map { $0 == nil } == true)
            let hits: Hits = try await stats.request(with: key, using: configuration)
            #expect(hits.hits == 1)
        }
        // A POST is not retried: each one either reached the server once and succeeded, or failed with
        // connectionLost without reaching it.
        var refused = 0
        for key in posts {
            let hits: Hits = try await stats.request(with: key, using: configuration)
            guard let failure = outcomes[key] else {
                Issue.record("no outcome for \(key)")
                continue
            }
            if let failure {
                #expect(failure.reason == APIError.Reason.transport(.connectionLost))
                #expect(hits.hits == 0)
                refused += 1
            } else {
                #expect(hits.hits == 1)
            }
        }
        // The twenty calls start together on one connection (as the 100 above do), which serves 4 of them: at
        // least 6 POSTs were left out by its GOAWAY.
        #expect(refused >= 6)
    }

    /// Waits until the fault server counted a request under `key`.
    static func waitForHits(_ key: String, server: Server, configuration: APIConfiguration) async throws {
        struct Hits: Decodable { let hits: Int }
        let stats = GET<String>("/count-stats") { ["key": $0] }
        for _ in 0..<200 {
            let hits: Hits = try await stats.request(with: key, using: configuration)
            if hits.hits > 0 { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the server never counted \(key)")
    }
}
