import Courier
import CourierTesting
import Foundation
import MetricsTestKit
import Testing

@testable import CourierObservability

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `.metrics()`: the OpenTelemetry HTTP client metrics of each call, checked with swift-metrics' test backend.
@Suite("MetricsObserver")
struct MetricsObserverTests {
    static let duration = "http.client.request.duration"
    static let callDuration = "courier.call.duration"

    /// A configuration on a stub (answering 200 unless `executor` says otherwise) with `.metrics()` on `metrics`.
    static func stubbed(
        _ metrics: TestMetrics, baseURL: String = "https://api.example.com",
        executor: StubExecutor = StubExecutor().stubEverything(with: .status(200))
    ) -> APIConfiguration {
        APIConfiguration(baseURL: URL(string: baseURL), executor: executor, observers: [.metrics(factory: metrics)])
    }

    /// The dimensions of a metric as a dictionary.
    static func dimensions(_ pairs: [(String, String)]) -> [String: String] {
        Dictionary(pairs, uniquingKeysWith: { $1 })
    }

    @Test(
        "A 200, a 404 and a refused connection: one duration each, with the right dimensions and error.type",
        .servers)
    func outcomes() async throws {
        // GIVEN the real httpbin, and a port where nothing listens
        let metrics = TestMetrics()
        let base = try Servers.required().httpbin
        let configuration = APIConfiguration(
            baseURL: base, executor: URLSessionExecutor.shared, observers: [.metrics(factory: metrics)])
        let status = GET<Int>("/status/{code}") { ["code": $0] }

        // WHEN a call gets a 200, one a 404, and one cannot connect
        _ = try await status.request(with: 200, using: configuration) as Data
        await #expect(throws: APIError.self) { try await status.request(with: 404, using: configuration) as Data }
        let refused = configuration.with { $0.baseURL = URL(string: "http://127.0.0.1:1") }
        let error = await #expect(throws: APIError.self) {
            try await status.request(with: 200, using: refused) as Data
        }
        #expect(error?.reason == .transport(.cannotConnect))

        // THEN three durations, each in its own series, with the dimensions of its outcome
        let timers = metrics.timers(label: Self.duration)
        #expect(timers.count == 3)
        #expect(timers.allSatisfy { $0.values.count == 1 && $0.displayUnit == .seconds })
        let series = timers.map { Self.dimensions($0.dimensions) }
        let ok = try #require(series.first { $0["http.response.status_code"] == "200" })
        #expect(ok["http.request.method"] == "GET")
        #expect(ok["server.address"] == base.host)
        #expect(ok["server.port"] == "\(base.port ?? 80)")
        #expect(ok["url.template"] == "/status/{code}")
        #expect(ok["error.type"] == nil)
        let notFound = try #require(series.first { $0["http.response.status_code"] == "404" })
        #expect(notFound["error.type"] == "404")
        let failed = try #require(series.first { $0["http.response.status_code"] == nil })
        #expect(failed["error.type"] == "cannot_connect")
        #expect(failed["server.port"] == "1")
        // Every call ended: no request is active any more.
        #expect(metrics.meters(label: "http.client.active_requests").allSatisfy { $0.lastValue == 0 })
        #expect(!metrics.meters(label: "http.client.active_requests").isEmpty)
        // The response body's size, for the calls that got one.
        #expect(metrics.recorders(label: "http.client.response.body.size").count == 2)
    }

    @Test("10,000 calls to 10,000 path values make one url.template series")
    func boundedSeries() async throws {
        let metrics = TestMetrics()
        let configuration = Self.stubbed(metrics)
        let user = GET<Int>("/users/{id}") { ["id": $0] }

        for id in 0..<10_000 { _ = try await user.request(with: id, using: configuration) as Data }

        let timers = metrics.timers(label: Self.duration)
        #expect(timers.count == 1)
        #expect(timers.first?.values.count == 10_000)
        #expect(timers.first.map { Self.dimensions($0.dimensions)["url.template"] } == "/users/{id}")
    }

    @Test("A body sent is recorded with its size; a decoding failure after a 200 is error.type decoding_failed")
    func sizesAndDecoding() async throws {
        struct Model: Decodable { let id: Int }
        let metrics = TestMetrics()
        let configuration = Self.stubbed(metrics, executor: StubExecutor().stubEverything(with: .json("[]")))
        let create = POST<String>("/items") { ["a": $0] }

        await #expect(throws: APIError.self) { try await create.request(with: "b", using: configuration) as Model }

        let sent = try #require(metrics.recorders(label: "http.client.request.body.size").first)
        #expect(sent.values == [9])  // {"a":"b"}
        let timer = try #require(metrics.timers(label: Self.callDuration).first)
        #expect(Self.dimensions(timer.dimensions)["error.type"] == "decoding_failed")
        #expect(Self.dimensions(timer.dimensions)["http.response.status_code"] == "200")
        // The request itself succeeded: its duration has no error.type.
        let request = try #require(metrics.timers(label: Self.duration).only)
        #expect(Self.dimensions(request.dimensions)["error.type"] == nil)
    }

    @Test("Calls alternating between origins that share a prefix keep one series per origin")
    func originsThatShareAPrefix() async throws {
        let metrics = TestMetrics()
        let user = GET<Int>("/users/{id}") { ["id": $0] }
        let bases = ["https://api.example.com", "https://api.example.com:8443", "https://api.example.com.evil"]
        let configurations = bases.map { Self.stubbed(metrics, baseURL: $0) }
        // One observer shared by the three configurations, as an app's single `.metrics()` would be.
        let shared = configurations.map { $0.with { $0.observers = configurations[0].observers } }

        for round in 0..<3 {
            for configuration in shared { _ = try await user.request(with: round, using: configuration) as Data }
        }

        let timers = metrics.timers(label: Self.duration)
        #expect(timers.count == 3)
        #expect(timers.allSatisfy { $0.values.count == 3 })
        let ports = Set(timers.map { Self.dimensions($0.dimensions)["server.port"] ?? "" })
        let hosts = Set(timers.map { Self.dimensions($0.dimensions)["server.address"] ?? "" })
        #expect(ports == ["443", "8443"])
        #expect(hosts == ["api.example.com", "api.example.com.evil"])
    }

    @Test(".metrics() alone records no timeline; beside another observer both work")
    func noTimelineForMetricsAlone() async throws {
        let metrics = TestMetrics()
        let configuration = Self.stubbed(metrics)
        let user = GET<Int>("/users/{id}") { ["id": $0] }

        let alone = try await user.request(with: 1, using: configuration)
        #expect(alone.timeline == nil)

        let har = HARRecorder()
        let both = configuration.with { $0.observers.append(har) }
        let observed = try await user.request(with: 2, using: both)
        #expect(observed.timeline?.events.last?.kind == .finished)
        #expect(metrics.timers(label: Self.duration).first?.values.count == 2)
        #expect(metrics.meters(label: "http.client.active_requests").allSatisfy { $0.lastValue == 0 })
    }

    @Test(
        "A 503 from httpbin retried once: two request durations (one per request sent), one call duration",
        .servers)
    func retriedCall() async throws {
        let metrics = TestMetrics()
        let configuration = APIConfiguration(
            baseURL: try Servers.required().httpbin, executor: URLSessionExecutor.shared,
            plugins: [.retry(RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1), jitter: 0))],
            observers: [.metrics(factory: metrics)])

        await #expect(throws: APIError.self) { try await GET<Void>("/status/503").request(using: configuration) }

        let requests = try #require(metrics.timers(label: Self.duration).only)
        #expect(requests.values.count == 2)
        #expect(Self.dimensions(requests.dimensions)["error.type"] == "503")
        let calls = try #require(metrics.timers(label: Self.callDuration).only)
        #expect(calls.values.count == 1)
        #expect(Self.dimensions(calls.dimensions)["error.type"] == "503")
        #expect(calls.values[0] >= requests.values.max() ?? 0, "the call lasts as long as its attempts together")
    }

    @Test("Attempts that end differently record each under its own outcome; the call under its own")
    func attemptsOfDifferentOutcomes() async throws {
        let metrics = TestMetrics()
        let answers = Locked(0)
        let executor = StubExecutor().stub(where: { _ in true }) { _ in
            let answer = answers.withLockedValue { count in
                count += 1
                return count
            }
            return answer == 1 ? .status(503) : .json("{}")
        }
        var configuration = Self.stubbed(metrics, executor: executor)
        configuration.plugins = [.retry(RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1), jitter: 0))]

        _ = try await GET<Void>("/items").request(using: configuration) as Data

        let requests = metrics.timers(label: Self.duration).map {
            (Self.dimensions($0.dimensions)["http.response.status_code"], $0.values.count)
        }
        #expect(requests.sorted { ($0.0 ?? "") < ($1.0 ?? "") }.map(\.0) == ["200", "503"])
        #expect(requests.allSatisfy { $0.1 == 1 })
        let calls = try #require(metrics.timers(label: Self.callDuration).only)
        #expect(Self.dimensions(calls.dimensions)["http.response.status_code"] == "200")
    }

    @Test("With .tracing() beside it (a timeline recorded half-way), every attempt is still measured")
    func attemptsUnderTracing() async throws {
        let metrics = TestMetrics()
        var configuration = Self.stubbed(metrics)
        configuration.plugins = [.tracing()]

        _ = try await GET<Void>("/items").request(using: configuration) as Data

        #expect(metrics.timers(label: Self.duration).only?.values.count == 1)
        #expect(metrics.timers(label: Self.callDuration).only?.values.count == 1)
    }

    @Test("A streamed body from httpbin is counted as it is read and recorded when its stream ends", .servers)
    func streamedBodySize() async throws {
        let metrics = TestMetrics()
        let configuration = APIConfiguration(
            baseURL: try Servers.required().httpbin, executor: URLSessionExecutor.shared,
            observers: [.metrics(factory: metrics)])
        let bytes = GET<Int>("/stream-bytes/{count}") { ["count": $0, "chunk_size": 1000] }

        var read = 0
        for try await chunk in try await bytes.stream(with: 5000, using: configuration) { read += chunk.count }

        #expect(read == 5000)
        let sizes = try #require(metrics.recorders(label: "http.client.response.body.size").only)
        #expect(sizes.values == [5000])
        #expect(Self.dimensions(sizes.dimensions)["http.response.status_code"] == "200")
    }

    @Test("A download from httpbin records the file's size", .servers)
    func downloadedBodySize() async throws {
        let metrics = TestMetrics()
        let configuration = APIConfiguration(
            baseURL: try Servers.required().httpbin, executor: URLSessionExecutor.shared,
            observers: [.metrics(factory: metrics)])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }

        try await GET<Void>("/bytes/3000").download(to: file, using: configuration)

        #expect(metrics.recorders(label: "http.client.response.body.size").only?.values == [3000])
    }

    /// A transport that answers `200` over the HTTP version it is given, as an executor that knows it does.
    struct VersionedTransport: HTTPTransport {
        let version: String?

        func send(_ hop: APIRequest) async throws -> APIResponse {
            var response = APIResponse(statusCode: 200, body: .data(Data("ok".utf8)), request: hop)
            response.httpVersion = version
            return response
        }
    }

    @Test(
        "network.protocol.version: each attempt's HTTP version, on request durations only, with and without a timeline",
        arguments: [false, true])
    func protocolVersion(withTimeline: Bool) async throws {
        let metrics = TestMetrics()
        var observers: [any CallObserver] = [.metrics(factory: metrics)]
        // A HAR recorder watches events: the calls then record a timeline, which `.metrics()` reads instead.
        if withTimeline { observers.append(HARRecorder()) }
        let base = URL(string: "https://api.example.com")
        let h2 = APIConfiguration(baseURL: base, executor: VersionedTransport(version: "2"), observers: observers)
        let unknown = h2.with { $0.executor = VersionedTransport(version: nil) }

        _ = try await GET<Void>("/items").request(using: h2) as Data
        _ = try await GET<Void>("/items").request(using: unknown) as Data

        let versions = metrics.timers(label: Self.duration).map {
            Self.dimensions($0.dimensions)["network.protocol.version"]
        }
        #expect(versions.sorted { ($0 ?? "") < ($1 ?? "") } == [nil, "2"])
        let calls = metrics.timers(label: Self.callDuration).map { Self.dimensions($0.dimensions) }
        #expect(calls.count == 1)
        #expect(calls.allSatisfy { $0["network.protocol.version"] == nil })
    }
}
