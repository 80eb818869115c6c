import Courier
import CourierObservability
import CourierTesting
import Foundation
import Logging
import Testing
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `.tracing()` reads from the call's timeline (resends), how it treats a cancelled call, and that signed-URL
/// query items never reach a span or a log.
@Suite("TracingPlugin and the timeline")
struct TracingTimelineTests {
    @Test("A 503 with Retry-After then a 200, each through a redirect: http.request.resend_count is 3", .servers)
    func resendCount() async throws {
        // GIVEN /redirect to the other port's /flaky (a 503 with Retry-After: 0 first), the tracing plugin first
        let servers = try Servers.required()
        let other = servers.faultServerOtherPort.absoluteString.trimmingSuffix("/")
        let tracer = W3CTestTracer()
        let configuration = APIConfiguration(
            baseURL: servers.faultServer, executor: URLSessionExecutor.shared,
            plugins: [.tracing(tracer), .retry(RetryPolicy(baseDelay: .milliseconds(10)))])
        let redirect = GET<String>("/redirect") { ["to": $0] }

        // WHEN it is called (no observer: the plugin asks for the timeline itself)
        _ =
            try await redirect.request(
                with: "\(other)/flaky?key=\(UUID().uuidString)&fail=1", using: configuration) as Data

        // THEN one span, with 2 attempts and 2 redirects: 3 resends
        let span = try #require(tracer.spans.finishedSpans.only)
        #expect(span.attributes["http.request.resend_count"]?.toSpanAttribute() == 3)
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(span.status == nil)
    }

    @Test("A call its caller cancels does not mark its span as an error")
    func cancelledIsNotAnError() async throws {
        let tracer = W3CTestTracer()
        let slow = StubExecutor().stub(where: { _ in true }) { request in
            try await Task.sleep(for: .seconds(30))
            return StubResponse(statusCode: 200)
        }
        let configuration = APIConfiguration(
            baseURL: URL(string: "https://api.example.com"), executor: slow, plugins: [.tracing(tracer)])
        let call = Task { try await GET<Void>("/slow").request(using: configuration) as Data }
        while tracer.spans.activeSpans.isEmpty { try await Task.sleep(for: .milliseconds(5)) }

        call.cancel()
        let error = await #expect(throws: APIError.self) { try await call.value }

        #expect(error?.isCancellation == true)
        let span = try #require(tracer.spans.finishedSpans.only)
        #expect(span.status == nil)
        #expect(span.errors.isEmpty)
        #expect(span.attributes["error.type"] == nil)
    }

    @Test("A failed call does mark its span: the control for the test above")
    func failureIsAnError() async throws {
        let tracer = W3CTestTracer()
        let failing = StubExecutor().stubEverything(with: .error(URLError(.timedOut)))
        let configuration = APIConfiguration(
            baseURL: URL(string: "https://api.example.com"), executor: failing, plugins: [.tracing(tracer)])
        await #expect(throws: APIError.self) { try await GET<Void>("/x").request(using: configuration) as Data }
        #expect(tracer.spans.finishedSpans.only?.status?.code == .error)
    }

    static let signed: [(name: String, value: String)] = [
        ("X-Amz-Signature", "amzsig0001"), ("X-Amz-Credential", "AKIAEXAMPLE0002"),
        ("X-Amz-Security-Token", "amztoken0003"), ("Signature", "cfsig0004"), ("sig", "azuresig0005"),
        ("X-Goog-Signature", "googsig0006"), ("X-Goog-Credential", "googcred0007"),
    ]

    /// How a call gets its pre-signed URL: declared as the endpoint's path, or set on a built request.
    enum SignedURLSource: String, CaseIterable, Sendable {
        case endpointPath, requestURL
    }

    @Test("A signed URL's query items never appear in a span or a log", arguments: SignedURLSource.allCases)
    func signedURLsAreRedacted(source: SignedURLSource) async throws {
        // GIVEN a pre-signed download URL, traced and logged (headers and cURL too)
        let tracer = W3CTestTracer()
        let (logger, store) = RecordingLogHandler.logger()
        let query = Self.signed.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let configuration = APIConfiguration(
            executor: StubExecutor().stubEverything(with: .status(403)),
            plugins: [
                .tracing(tracer),
                .swiftLog(logger, options: LoggingPlugin.Options(includeHeaders: true, includeCURL: true)),
            ])
        let signed = "https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Expires=300&\(query)"

        // WHEN it is called
        await #expect(throws: APIError.self) {
            switch source {
            case .endpointPath:
                _ = try await GET<Void>(signed).request(using: configuration) as Data
            case .requestURL:
                var request = try GET<Void>("https://bucket.s3.amazonaws.com/report.pdf").makeRequest()
                request.url = try #require(URL(string: signed))
                _ = try await request.send(using: configuration) as Data
            }
        }

        // THEN no secret value is anywhere in the span's attributes or status, or in any log entry
        let span = try #require(tracer.spans.finishedSpans.only)
        var texts = [span.operationName, span.status?.message ?? ""]
        span.attributes.forEach { _, value in texts.append("\(value)") }
        texts += store.entries.map { $0.message + " \($0.metadata)" }
        let full = try #require(span.attributes["url.full"]?.toSpanAttribute())
        #expect("\(full)".contains("X-Amz-Expires=300"))
        #expect(store.entries.count == 2)
        for secret in Self.signed {
            #expect(!texts.contains { $0.contains(secret.value) }, "\(secret.name) leaked")
        }
    }
}

extension String {
    /// The string without `suffix` at its end.
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
