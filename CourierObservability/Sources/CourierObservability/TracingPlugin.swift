@_spi(CourierInternals) import Courier
import Foundation
import Tracing

/// Traces every call with swift-distributed-tracing: a client span per call, named after the endpoint
/// (`GET /users/{login}`: the method and path template, never the values), with the trace context injected
/// into the request's headers so that the server joins the trace.
///
/// ```swift
/// InstrumentationSystem.bootstrap(tracer)           // once, at start-up (swift-otel, for one)
/// configuration.plugins.append(.tracing())
/// ```
///
/// The context goes out through the tracer's own propagation: with a W3C propagator (swift-otel's default)
/// the request carries `traceparent` (and `tracestate`). The span is a child of `ServiceContext.current` (the
/// server's request span in Vapor or Hummingbird), and the rest of the chain runs inside it, so spans that
/// the executor starts (AsyncHTTPClient's own, when its client has a tracer) are its children.
///
/// The span records `http.request.method`, `url.template` (the path template), `url.full` (redacted: user,
/// password and secret query items and path parameters masked, as in every log line), `url.scheme`,
/// `server.address`, `server.port` (the scheme's default when the URL names none),
/// `http.response.status_code` and, when the call sent its request more than once, `http.request.resend_count`:
/// the retries and redirects after the first send (read from the call's timeline, which the plugin asks the call
/// to record from where it sits). Signed-URL query items (`X-Amz-Signature`, `X-Amz-Credential`,
/// `X-Amz-Security-Token`, `Signature`, `sig`, `X-Goog-Signature`, …) are masked in `url.full` like every secret.
/// A status of 400 and above sets the span's status to error (the convention for client spans), with `error.type`
/// the status code; a failure records the error (its description, redacted as Courier's errors always are) and
/// sets `error.type` to the ``Courier/APIError/Reason`` — except a call its caller cancelled, which is not an
/// error of the call: its span ends without an error status. Put the plugin first in the list to get one span per
/// call, or after a retrying plugin to get one per attempt.
public struct TracingPlugin: APIPlugin {
    private let tracer: (any Tracer)?

    /// Traces with `tracer`, or with the bootstrapped `InstrumentationSystem.tracer` when `nil` (read at
    /// every call, so the plugin can be created before the bootstrap).
    public init(tracer: (any Tracer)? = nil) {
        self.tracer = tracer
    }

    /// Runs the rest of the chain inside a client span, with the trace context in the request's headers.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        let tracer: any Tracer = self.tracer ?? InstrumentationSystem.tracer
        return try await Self.trace(request, next: next, with: tracer)
    }

    private static func trace(
        _ request: APIRequest,
        next: APIPluginNext,
        with tracer: some Tracer
    ) async throws -> APIResponse {
        let span = tracer.startSpan(
            request.endpoint.name, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        defer { span.end() }
        span.attributes["http.request.method"] = request.method.rawValue
        span.attributes["url.template"] = request.endpoint.template
        // The URL with every secret masked: user and password, secret query items, secret path parameters.
        span.attributes["url.full"] = SensitiveData.redacted(request.url, for: request)
        if let scheme = request.url.scheme { span.attributes["url.scheme"] = scheme }
        if let host = request.url.host { span.attributes["server.address"] = host }
        if let port = request.url.port ?? Self.defaultPort(of: request.url.scheme) {
            span.attributes["server.port"] = port
        }

        var traced = request
        traced.recordTimeline()
        tracer.inject(span.context, into: &traced.headers, using: HeaderInjector())
        do {
            let response = try await ServiceContext.withValue(span.context) {
                try await next(traced)
            }
            Self.recordResends(traced.timeline, on: span)
            span.attributes["http.response.status_code"] = response.statusCode
            if response.statusCode >= 400 {
                span.attributes["error.type"] = "\(response.statusCode)"
                span.setStatus(SpanStatus(code: .error))
            }
            return response
        } catch {
            Self.recordResends(traced.timeline, on: span)
            let failure = APIError.wrapping(error, request: request)
            if let status = failure.statusCode { span.attributes["http.response.status_code"] = status }
            // The caller gave up: not a failure of the call, nor of the server.
            if failure.isCancellation { throw error }
            span.attributes["error.type"] = Self.type(of: failure.reason)
            span.recordError(failure)
            span.setStatus(SpanStatus(code: .error, message: failure.description))
            throw error
        }
    }

    /// Sets `http.request.resend_count` when the request went out more than once: retries and redirects.
    private static func recordResends(_ timeline: CallTimeline?, on span: some Span) {
        guard let events = timeline?.events else { return }
        let attempts = events.count { $0.kind == .attemptStarted }
        let redirects = events.count { $0.kind == .redirected }
        let resends = max(0, attempts - 1) + redirects
        if resends > 0 { span.attributes["http.request.resend_count"] = resends }
    }

    /// The port a URL without one uses.
    private static func defaultPort(of scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "https": 443
        case "http": 80
        default: nil
        }
    }

    /// The kind of failure, without anything the server said.
    private static func type(of reason: APIError.Reason) -> String {
        if let rejection = reason.serviceRejection {
            "rejected by the service with code \(rejection.code)"
        } else {
            reason.description
        }
    }
}

extension APIPlugin where Self == TracingPlugin {
    /// Traces every call in a client span, with the trace context in the request's headers; see
    /// ``TracingPlugin``.
    public static func tracing(_ tracer: (any Tracer)? = nil) -> TracingPlugin {
        TracingPlugin(tracer: tracer)
    }
}

/// Writes trace-context fields into Courier's request headers, replacing any of the same name.
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        carrier[HTTPHeaderName(rawValue: key)] = value
    }
}
