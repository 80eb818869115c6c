import Courier
import CourierObservability
import CourierTesting
import Foundation
import InMemoryTracing
import Testing
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `TracingPlugin`: a client span per call named after the endpoint template, the W3C trace context on the
/// wire (checked at the real httpbin), status codes and errors recorded.
@Suite("TracingPlugin", .servers)
struct TracingPluginTests {
    /// `/anything/{id}` echoes the request's headers.
    static let item = GET<String>("/anything/{id}") { ["id": $0] }

    struct Echo: Decodable {
        var headers: [String: String]

        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    static func configuration(_ plugin: TracingPlugin, executor: (any APIExecutor)? = nil) throws -> APIConfiguration {
        APIConfiguration(
            baseURL: try Servers.required().httpbin, executor: executor ?? URLSessionExecutor.shared,
            plugins: [plugin])
    }

    @Test("A call gets a client span named after the endpoint, and the server gets its traceparent")
    func spanAndTraceparent() async throws {
        let tracer = W3CTestTracer()

        let echo: Echo = try await Self.item.request(with: "secret-id-42", using: Self.configuration(.tracing(tracer)))

        let span = try #require(tracer.spans.finishedSpans.only)
        #expect(span.operationName == "GET /anything/{id}")
        #expect(span.kind == .client)
        #expect(span.attributes["http.request.method"]?.toSpanAttribute() == "GET")
        #expect(span.attributes["url.template"]?.toSpanAttribute() == "/anything/{id}")
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(span.status == nil)
        #expect(echo.header("traceparent") == "00-\(span.traceID)-\(span.spanID)-01")
        #expect(!span.operationName.contains("secret-id-42"))
    }

    @Test("url.full is the whole URL with its secrets masked; server.port defaults to the scheme's")
    func fullURLRedacted() async throws {
        let tracer = W3CTestTracer()
        let endpoint = GET<String>("/anything/{id}") { ["id": $0, "access_token": "t0ken-SECRET", "page": 2] }
        let base = try Servers.required().httpbin

        _ = try await endpoint.request(with: "7", using: Self.configuration(.tracing(tracer))) as Data

        let span = try #require(tracer.spans.finishedSpans.only)
        let full = try #require(span.attributes["url.full"]?.toSpanAttribute())
        #expect(full == "\(base.absoluteString)/anything/7?access_token=***&page=2".toSpanAttribute())
        #expect(span.attributes["server.port"]?.toSpanAttribute() == (base.port ?? 80).toSpanAttribute())

        let defaulted = W3CTestTracer()
        let offline = APIConfiguration(
            baseURL: URL(string: "https://api.example.com"),
            executor: StubExecutor().stubEverything(with: .status(200)),
            plugins: [.tracing(defaulted)])
        _ = try await GET<Void>("/x").request(using: offline) as Data
        let stubSpan = try #require(defaulted.spans.finishedSpans.only)
        #expect(stubSpan.attributes["server.port"]?.toSpanAttribute() == 443)
        #expect(stubSpan.attributes["url.full"]?.toSpanAttribute() == "https://api.example.com/x")
    }

    @Test("The span is a child of the caller's span")
    func childOfCurrentContext() async throws {
        let tracer = W3CTestTracer()
        let configuration = try Self.configuration(.tracing(tracer))

        try await tracer.withSpan("handle request", ofKind: .server) { _ in
            _ = try await Self.item.request(with: "1", using: configuration) as Data
        }

        let spans = tracer.spans.finishedSpans
        let server = try #require(spans.first { $0.operationName == "handle request" })
        let client = try #require(spans.first { $0.operationName == "GET /anything/{id}" })
        #expect(client.parentSpanID == server.spanID)
        #expect(client.traceID == server.traceID)
    }

    @Test("A status of 400 and above sets the span's status to error")
    func errorStatus() async throws {
        let tracer = W3CTestTracer()
        let configuration = try Self.configuration(.tracing(tracer))

        await #expect(throws: APIError.self) {
            try await GET<Void>("/status/503").request(using: configuration) as Data
        }

        let span = try #require(tracer.spans.finishedSpans.only)
        #expect(span.status?.code == .error)
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 503)
        #expect(span.attributes["error.type"]?.toSpanAttribute() == "503")
    }

    @Test("A transport failure is recorded on the span, redacted")
    func transportFailure() async throws {
        let tracer = W3CTestTracer()
        let failing = StubExecutor().stubEverything(with: .error(URLError(.cannotConnectToHost)))
        let configuration = try Self.configuration(.tracing(tracer), executor: failing)

        await #expect(throws: APIError.self) {
            try await GET<Void>("/get?api_key=k-1618").request(using: configuration) as Data
        }

        let span = try #require(tracer.spans.finishedSpans.only)
        #expect(span.status?.code == .error)
        #expect(span.errors.count == 1)
        #expect((span.errors.first?.error as? APIError)?.reason == .transport(.cannotConnect))
        #expect(span.attributes["error.type"]?.toSpanAttribute() == "\(APIError.Reason.transport(.cannotConnect))")
        #expect(span.status?.message?.contains("k-1618") == false)
    }

    @Test("Without a tracer of its own, the plugin uses the bootstrapped instrument")
    func bootstrappedTracer() async throws {
        let tracer = BootstrappedTracer.shared
        let configuration = try Self.configuration(.tracing())
        let before = Set(tracer.spans.finishedSpans.map(\.spanID))

        let echo: Echo = try await GET<Void>("/anything/bootstrapped").request(using: configuration)

        let span = try #require(
            tracer.spans.finishedSpans.first {
                !before.contains($0.spanID) && $0.operationName == "GET /anything/bootstrapped"
            })
        #expect(echo.header("traceparent") == "00-\(span.traceID)-\(span.spanID)-01")
    }
}

extension Array {
    /// The one element, `nil` when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
