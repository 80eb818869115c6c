// Observing: every call's timeline — its attempts, retries, redirects, cache decisions and phases on the
// monotonic clock — for observers on the configuration, and on the response or the error afterwards.
// (Metrics with OpenTelemetry names, swift-log and tracing are in the nested package CourierObservability.)
import Courier
import Foundation

@MainActor
enum Watched {
    @GET("/get")
    static var get: APIParameterBuilder<Void>? = nil

    @GET("/status/503")
    static var unavailable: APIParameterBuilder<Void>? = nil
}

/// An observer that prints each event as it happens, with the endpoint it belongs to.
struct PrintEvents: CallObserver {
    func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
        var line = "    event│ \(timeline.request.endpoint): \(event.kind.rawValue)"
        if event.attempt > 0 { line += " #\(event.attempt)" }
        if let status = event.statusCode { line += " \(status)" }
        if let detail = event.detail { line += " (\(detail))" }
        Console.line(line)
    }
}

@MainActor
enum ObservingPage {
    static func run(_ stage: Stage) async throws {
        var configuration = APIConfiguration.default
        configuration.observers = [PrintEvents()]

        Console.step("An observer on the configuration sees each event of each call as it happens")
        let response: APIResponse = try await Watched.$get.request(using: configuration)
        Console.note("the call's timeline is on its response afterwards (DecodedResponse and APIError have it too):")
        for line in "\(response.timeline.map { "\($0)" } ?? "no timeline")".split(separator: "\n") {
            Console.line("    \(line)")
        }

        Console.step("A failing call is explained by its error: the attempts, the retries and why they waited")
        configuration.plugins = [.retry(RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(50), jitter: 0))]
        configuration.observers = []
        do {
            try await Watched.$unavailable.request(using: configuration)
        } catch {
            Console.caught(error)
            Console.note("no observer, no timeline: \(error.timeline == nil ? "nil" : "recorded")")
        }
        configuration.observers = [TimelineOnly()]
        do {
            try await Watched.$unavailable.request(using: configuration)
        } catch {
            let timeline = error.timeline
            Console.result("attempts: \(timeline?.attempts ?? 0), failure: \(timeline?.failure.map { "\($0)" } ?? "-")")
            for line in "\(timeline.map { "\($0)" } ?? "")".split(separator: "\n") { Console.line("    \(line)") }
        }
        Console.note("with no observer a call records nothing and costs nothing more")
    }
}

/// An observer that does nothing: its presence makes calls keep their timelines.
struct TimelineOnly: CallObserver {
    func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {}
}
