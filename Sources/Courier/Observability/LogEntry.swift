/// One entry of ``LoggingPlugin``'s log in parts, every text redacted: what CourierObservability's `.swiftLog` writes
/// as a one-line message (``line``) with the rest as metadata, and ``LoggingPlugin`` prints as ``text``.
@_spi(CourierInternals)
public struct LogEntry: Sendable {
    /// What an entry is about.
    public enum Kind: Sendable {
        /// The request, before it is sent.
        case request
        /// A response the call ended with (its body decoded, when the call form decodes it).
        case response
        /// A call that failed: without a response, or after one (its body did not decode).
        case failure
    }

    /// What the entry is about.
    public let kind: Kind
    /// The endpoint of the call.
    public let endpoint: APIEndpoint
    /// The request's method.
    public let method: HTTPMethod
    /// The entry on one line: `→ GET https://…`, `← 200 GET https://… (84 ms, 1355 bytes)`, `✗ GET https://… (84 ms):
    /// <why>`.
    public let line: String
    /// The response's status, when one arrived.
    public let statusCode: Int?
    /// Why the call failed, for a ``Kind/failure``.
    public let failure: APIError.Reason?
    /// From the request to the response (or the failure), for a response or a failure.
    public let duration: Duration?
    /// The request's (for a ``Kind/request``) or the response's header fields, redacted; empty unless
    /// ``LoggingPlugin/Options/includeHeaders``.
    public let headers: [(name: String, value: String)]
    /// The body, redacted and cut at ``LoggingPlugin/Options/maxBodyBytes``, or its summary; `nil` unless
    /// ``LoggingPlugin/Options/includeBodies`` (and for an empty body).
    public let body: String?
    /// The size of the request's (for a ``Kind/request``) or the response's body in bytes, when it is known.
    public let bodyBytes: Int?
    /// The request as a `curl` command, redacted, for a ``Kind/request`` with ``LoggingPlugin/Options/includeCURL``.
    public let curl: String?

    /// What the call's trust warned about on its way (a root or pin past its rotation date,
    /// ``TLSPin/rotating(by:)``), for a response or a failure: each once, on the first call after the date.
    public internal(set) var warnings: [String] = []

    /// The entry as ``LoggingPlugin`` prints it: ``line``, then one line per header, the body and the cURL command,
    /// then one line per warning (`⚠ the pin … is past its rotation date …`).
    public var text: String {
        var text = line
        for field in headers { text += "\n    \(field.name): \(field.value)" }
        if let body { text += "\n" + body }
        if let curl { text += "\n" + curl }
        for warning in warnings { text += "\n⚠ " + warning }
        return text
    }
}

/// A plugin that logs a call when it ends, not when its response passes the plugin: the call forms decode after
/// the plugins, and the line must say whether the body decoded. A call made with one (the configuration's or the
/// endpoint's) carries a `CallRecorder` that tells the plugin how the call ended (`APIRequest.reportAtCallEnd`).
@_spi(CourierInternals)
public protocol CallEndReportingPlugin: APIPlugin {}

// Its response line waits for the call's end: the call forms decode after the plugins.
@_spi(CourierInternals)
extension LoggingPlugin: CallEndReportingPlugin {}
