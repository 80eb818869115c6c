@_spi(CourierInternals) import Courier
import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import MetricsTestKit
import Testing

/// The call timeline and `.metrics()` on `AsyncHTTPClientExecutor`, against the real httpbin and fault server: the
/// same events and series as on `URLSessionExecutor` (CourierTests, CourierObservabilityTests).
@Suite("AsyncHTTPClientExecutor: timeline and metrics", .servers)
struct TimelineMetricsTests {
    struct Flaky: Decodable {
        let hits: Int
    }

    @Test("A 200, a 404 and a refused connection: one duration each, with the right dimensions and error.type")
    func outcomes() async throws {
        let metrics = TestMetrics()
        let configuration = APIConfiguration(
            baseURL: try Servers.required().httpbin, executor: AsyncHTTPClientExecutor(),
            observers: [.metrics(factory: metrics)])
        let status = GET<Int>("/status/{code}") { ["code": $0] }

        _ = try await status.request(with: 200, using: configuration) as Data
        await #expect(throws: APIError.self) { try await status.request(with: 404, using: configuration) as Data }
        let refused = configuration.with { $0.baseURL = URL(string: "http://127.0.0.1:1") }
        await #expect(throws: APIError.self) { try await status.request(with: 200, using: refused) as Data }

        let series = metrics.timers(label: "http.client.request.duration").map {
            Dictionary($0.dimensions, uniquingKeysWith: { $1 })
        }
        #expect(series.count == 3)
        #expect(series.contains { $0["http.response.status_code"] == "200" && $0["error.type"] == nil })
        #expect(series.contains { $0["http.response.status_code"] == "404" && $0["error.type"] == "404" })
        #expect(series.contains { $0["http.response.status_code"] == nil && $0["error.type"] == "cannot_connect" })
        #expect(series.allSatisfy { $0["url.template"] == "/status/{code}" })
    }

    @Test("A 503 with Retry-After then a 200, each through a redirect to another origin: the events in order")
    func retryThroughARedirect() async throws {
        let servers = try Servers.required()
        let metrics = TestMetrics()
        var other = servers.faultServerOtherPort.absoluteString
        while other.hasSuffix("/") { other.removeLast() }
        let configuration = APIConfiguration(
            baseURL: servers.faultServer, executor: AsyncHTTPClientExecutor(),
            plugins: [.retry(RetryPolicy(baseDelay: .milliseconds(10)))],
            // `.metrics()` takes only each call's start and end; the HAR recorder watches events: a timeline.
            observers: [.metrics(factory: metrics), HARRecorder()])
        let redirect = GET<String>("/redirect") { ["to": $0] }

        let result: DecodedResponse<Flaky> = try await redirect.request(
            with: "\(other)/flaky?key=\(UUID().uuidString)&fail=1&retry-after=0", using: configuration)

        let timeline = try #require(result.timeline)
        #expect(timeline.attempts == 2)
        #expect(
            timeline.events.map(\.kind).filter { $0 != .connection } == [
                .started, .built,
                .attemptStarted, .redirected, .responseHeadReceived, .responseReceived, .retryScheduled,
                .attemptStarted, .redirected, .responseHeadReceived, .responseReceived,
                .decoded, .finished,
            ])
        #expect(timeline.events.filter { $0.kind == .connection }.allSatisfy { $0.detail == "HTTP/1.1" })
        #expect(timeline.events.contains { $0.kind == .connection })
        #expect(result.value.hits == 2)
        // One call: one call duration, however many attempts and redirects; one request duration per attempt (the
        // 503 and the 200, each with its redirect inside it), each under its own status.
        #expect(metrics.timers(label: "courier.call.duration").map(\.values.count) == [1])
        #expect(metrics.timers(label: "http.client.request.duration").map(\.values.count) == [1, 1])
    }
}
