import Courier
import CourierTesting
import Foundation
import Testing

/// The call timeline with the real `URLSessionExecutor` against the fault server: retries after a `503` with
/// `Retry-After`, through a redirect to another origin.
@Suite("Integration: call timeline", .faultServer)
struct CallTimelineIntegrationTests {
    struct Flaky: Decodable, Sendable {
        let hits: Int
    }

    static let redirect = GET<String>("/redirect") { ["to": $0] }

    @Test("A 503 with Retry-After then a 200, each through a redirect to another origin: the events in order")
    func retryThroughARedirect() async throws {
        // GIVEN /redirect to the other port's /flaky, whose first answer is a 503 with Retry-After: 0
        let other = try FaultServer.Origin.otherPort.baseText()
        let key = UUID().uuidString
        let configuration = try FaultServer.configuration(
            plugins: [.retry(RetryPolicy(baseDelay: .milliseconds(10)))]
        ).with { $0.observers = [CallTimelineTests.Recorder()] }

        // WHEN the endpoint is called
        let result: DecodedResponse<Flaky> = try await Self.redirect.request(
            with: "\(other)/flaky?key=\(key)&fail=1&status=503&retry-after=0", using: configuration)

        // THEN two attempts, each redirected; the retry waited what Retry-After said
        #expect(result.value.hits == 2)
        let timeline = try #require(result.timeline)
        #expect(timeline.attempts == 2)
        let kinds = timeline.events.map(\.kind).filter { $0 != .requestSent && $0 != .connection }
        #expect(
            kinds == [
                .started, .built,
                .attemptStarted, .redirected, .responseHeadReceived, .responseReceived, .retryScheduled,
                .attemptStarted, .redirected, .responseHeadReceived, .responseReceived,
                .decoded, .finished,
            ])
        let redirect = try #require(timeline.events.first { $0.kind == .redirected })
        #expect(redirect.statusCode == 302)
        #expect(redirect.detail?.hasSuffix("credentials removed") == true)
        #expect(redirect.detail?.contains("flaky") == false)  // origins only, never a path or a query
        let retry = try #require(timeline.events.first { $0.kind == .retryScheduled })
        #expect(retry.detail == "status 503, Retry-After: 0")
        #expect(retry.delay == .zero)
        #expect(timeline.events.filter { $0.kind == .responseReceived }.map(\.statusCode) == [503, 200])
        #expect(timeline.events.filter { $0.kind == .responseHeadReceived }.map(\.statusCode) == [503, 200])
        #if canImport(FoundationNetworking)
            // FoundationNetworking collects no URLSessionTaskMetrics: nothing about the connection.
            #expect(!timeline.events.contains { $0.kind == .connection })
        #else
            #expect(timeline.events.filter { $0.kind == .connection }.count >= 2)
        #endif
    }
}
