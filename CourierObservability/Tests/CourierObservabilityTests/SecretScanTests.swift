import Courier
import CourierObservability
import CourierTesting
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The secret scan of this package's surfaces: a secret planted in every place a call can carry one,
/// real calls to the fault server (and to port 1, where nothing listens), then every span name and attribute, every metric
/// dimension, every swift-log line and its metadata, and the HAR file searched for it. CourierTesting's
/// conformance check `secretsStayMasked` scans the core's surfaces the same way, on every executor.
@Suite("Secrets in observability", .servers)
struct SecretScanTests {
    /// Every planted value contains `SECRET`; nothing else the calls send does.
    static func leaks(in text: String) -> Bool { text.contains("SECRET") }

    @Test("No span, metric dimension, log line or HAR entry holds a secret declared anywhere in a call")
    func noSurfaceHoldsASecret() async throws {
        // GIVEN every observability surface on one configuration, and secrets in every declarable place
        let servers = try Servers.required()
        let base = try #require(URLComponents(url: servers.faultServer, resolvingAgainstBaseURL: false))
        let host = try #require(base.host)
        let port = try #require(base.port)
        let tracer = W3CTestTracer()
        let metrics = TestMetrics()
        let har = HARRecorder()
        let (logger, store) = RecordingLogHandler.logger()
        let configuration = APIConfiguration(
            baseURL: servers.faultServer, headers: ["Cookie": "session=c00kie-SECRET"],
            executor: URLSessionExecutor.shared, plugins: [.tracing(tracer), .swiftLog(logger)],
            observers: [.metrics(factory: metrics), har])
        let templateQuery = GET<String>(
            "/headers?X-Amz-Credential=t3mplate-SECRET&page=1",
            parameters: { ["q": $0, "api_key": "qu3ry-SECRET"] },
            headerBuilder: { _ in ["Authorization": "Bearer h3ader-SECRET"] })
        let absolute = GET<Void>("http://bob:us3rinfo-SECRET@\(host):\(port)/headers?X-Amz-Signature=abs0lute-SECRET")
        let body = POST<String>("/headers") { ["user": $0, "password": "b0dy-SECRET"] }
        let redirect = GET<Void>("/redirect-presigned")
        let unauthorized = GET<Void>("/status/401?X-Amz-Signature=st4tus-SECRET")
        let unreachable = GET<Void>(
            "http://bob:us3rinfo-SECRET@127.0.0.1:1/r.pdf?X-Amz-Signature=unre4chable-SECRET")

        // WHEN four calls succeed (one through a redirect to a pre-signed URL) and two fail
        _ = try await templateQuery.request(with: "shoes", using: configuration) as Data
        _ = try await absolute.request(using: configuration) as Data
        _ = try await body.request(with: "ann", using: configuration) as Data
        let redirected: APIResponse = try await redirect.request(using: configuration)
        await #expect(throws: APIError.self) { try await unauthorized.request(using: configuration) as Data }
        await #expect(throws: APIError.self) { try await unreachable.request(using: configuration) as Data }

        // THEN no surface holds a secret, and each surface has something in it
        #expect(redirected.url?.path == "/headers")
        let spans = tracer.spans.finishedSpans
        #expect(spans.count == 6)
        for span in spans {
            var texts = [span.operationName, span.status.map { "\($0)" } ?? ""]
            span.attributes.forEach { key, value in texts.append("\(key)=\(value)") }
            texts += span.events.map { "\($0.name) \($0.attributes)" }
            let text = texts.joined(separator: "\n")
            #expect(!Self.leaks(in: text), "span \(span.operationName):\n\(text)")
        }
        let dimensions =
            metrics.timers.flatMap(\.dimensions) + metrics.counters.flatMap(\.dimensions)
            + metrics.recorders.flatMap(\.dimensions) + metrics.meters.flatMap(\.dimensions)
        #expect(dimensions.contains { $0.0 == "url.template" && $0.1 == "/headers" })
        for (key, value) in dimensions {
            #expect(!Self.leaks(in: value), "metric dimension \(key)=\(value)")
        }
        let lines = store.entries.map { "\($0.level) \($0.message) \($0.metadata)" }
        #expect(lines.count >= 12)
        for line in lines {
            #expect(!Self.leaks(in: line), "log line: \(line)")
        }
        let file = String(decoding: try har.har(), as: UTF8.self)
        #expect(file.contains("X-Amz-Signature=***"))
        #expect(!Self.leaks(in: file), "HAR:\n\(file)")
    }

    @Test(
        "url.template is the path template: an absolute URL's scheme, host and port go to server.address/port",
        arguments: [
            ("https://bucket.s3.amazonaws.com/r/{key}?X-Amz-Signature=abc", "/r/{key}"),
            ("http://127.0.0.1:8080/status/{code}", "/status/{code}"),
            ("https://api.example.com", "/"),
            ("https://api.example.com?sig=1", "/"),
            ("/users/{login}?fields=all", "/users/{login}"),
            ("/users/{login}#top", "/users/{login}"),
            ("/users/{login}", "/users/{login}"),
        ])
    func urlTemplateOfAnAbsoluteURL(_ path: String, _ template: String) async throws {
        let metrics = TestMetrics()
        let endpoint = GET<Void>(path, parameters: { ["key": "k", "code": 200, "login": "ada"] })
        let configuration = APIConfiguration(
            baseURL: URL(string: "https://api.example.com"),
            executor: StubExecutor().stubEverything(with: .status(200)),
            observers: [.metrics(factory: metrics)])

        _ = try await endpoint.request(using: configuration) as Data

        let timer = try #require(metrics.timers.first)
        let dimensions = Dictionary(timer.dimensions, uniquingKeysWith: { $1 })
        #expect(dimensions["url.template"] == template)
        if path.hasPrefix("http") {
            let url = try #require(URL(string: path))
            #expect(dimensions["server.address"] == url.host)
        }
    }
}
