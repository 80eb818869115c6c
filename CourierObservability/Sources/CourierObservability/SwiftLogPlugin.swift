@_spi(CourierInternals) import Courier
import Foundation
import Logging

/// Logs every call to a swift-log `Logger`: Courier's ``Courier/LoggingPlugin`` entries, with secrets redacted
/// exactly as there (``Courier/SensitiveData``), at a level that says how the call went, each with a one-line
/// message and the rest as metadata.
///
/// ```swift
/// var logger = Logger(label: "api.github")
/// logger.logLevel = .debug
/// configuration.plugins.append(.swiftLog(logger))
/// ```
///
/// ```
/// debug: → GET https://api.github.com/users/octocat [courier.endpoint=GET /users/{login} http.request.method=GET]
/// info: ← 200 GET https://api.github.com/users/octocat (84 ms, 1355 bytes) [… http.response.status_code=200 courier.duration_ms=84]
/// error: ✗ 200 GET https://api.github.com/users/octocat (84 ms, 1355 bytes): GET /users/{login}: the response body could not be decoded: … [… error.type=decoding failed]
/// ```
///
/// The request entry is logged at ``Levels-swift.struct/request`` (`debug`) before the request is sent; the
/// outcome when the call ends, after the call form decoded the body: a response at
/// ``Levels-swift.struct/success`` (`info`) or, for a status of 400 and above,
/// ``Levels-swift.struct/unacceptableStatus`` (`warning`), and a failure — no response, or a body that did not
/// decode — at ``Levels-swift.struct/failure`` (`error`). A logger at `info` (swift-log's default) thus gets one
/// entry per call; at `debug` the request entry too. When the logger's level is above every level the plugin would
/// use, the plugin formats nothing.
///
/// Every message is one line. Each entry carries `courier.endpoint` (the method and path template, never the
/// values) and `http.request.method`; an outcome `courier.duration_ms`, `http.response.status_code` when a response
/// arrived and `error.type` (the ``Courier/APIError/Reason``) on failure; `http.request.body.size` and
/// `http.response.body.size` in bytes when they are known. What ``Courier/LoggingPlugin/Options`` asks for is
/// metadata too, redacted as everywhere in Courier: each header as `http.request.header.<name>` or
/// `http.response.header.<name>` (the name in lowercase, its values as an array, as OpenTelemetry names them), the
/// body excerpt as `courier.request.body` or `courier.response.body`, and the cURL command as `courier.curl`.
public struct SwiftLogPlugin: APIPlugin {
    /// The level of each kind of entry.
    public struct Levels: Sendable {
        /// The request, before it is sent.
        public var request: Logger.Level
        /// A response with a status below 400.
        public var success: Logger.Level
        /// A response with a status of 400 and above.
        public var unacceptableStatus: Logger.Level
        /// A call that failed: without a response (a transport failure, a plugin's error), or with a body that did
        /// not decode.
        public var failure: Logger.Level

        /// Creates the levels; by default `debug`, `info`, `warning` and `error`.
        public init(
            request: Logger.Level = .debug,
            success: Logger.Level = .info,
            unacceptableStatus: Logger.Level = .warning,
            failure: Logger.Level = .error
        ) {
            self.request = request
            self.success = success
            self.unacceptableStatus = unacceptableStatus
            self.failure = failure
        }

        /// The highest of the levels: a logger whose level is above it logs none of the entries.
        var highest: Logger.Level { max(request, success, unacceptableStatus, failure) }

        /// The level of `entry`.
        func level(of entry: LogEntry) -> Logger.Level {
            switch entry.kind {
            case .request: request
            case .response: (entry.statusCode ?? 0) >= 400 ? unacceptableStatus : success
            case .failure: failure
            }
        }
    }

    /// The logger entries go to.
    public let logger: Logger
    /// What the entries carry (headers, bodies, cURL), as for ``Courier/LoggingPlugin``.
    public let options: LoggingPlugin.Options
    /// The level of each kind of entry.
    public let levels: Levels
    /// The plugin that makes the entries, redacted, and logs the outcome when the call ends.
    private let logging: LoggingPlugin

    /// Creates the plugin.
    public init(logger: Logger, options: LoggingPlugin.Options = .init(), levels: Levels = .init()) {
        self.logger = logger
        self.options = options
        self.levels = levels
        self.logging = LoggingPlugin(options: options) { entry in
            logger.log(level: levels.level(of: entry), "\(entry.line)", metadata: Self.metadata(of: entry))
            // A root or pin past its rotation date: a record of its own, at `warning`, whatever the outcome's level.
            for warning in entry.warnings {
                logger.warning("\(warning)", metadata: ["courier.endpoint": "\(entry.endpoint.name)"])
            }
        }
    }

    /// Logs the request, runs the rest of the chain, and logs the outcome when the call ends.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        // A logger logs the entries at its level and above: at `info`, the outcome but not the request line.
        guard logger.logLevel <= levels.highest else { return try await next(request) }
        return try await logging.intercept(request, next: next)
    }

    /// The metadata of `entry`: the call's, the outcome's, and what the options asked for.
    static func metadata(of entry: LogEntry) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "courier.endpoint": "\(entry.endpoint.name)",
            "http.request.method": "\(entry.method.rawValue)",
        ]
        let side = entry.kind == .request ? "request" : "response"
        if let duration = entry.duration { metadata["courier.duration_ms"] = "\(milliseconds(duration))" }
        if let status = entry.statusCode { metadata["http.response.status_code"] = "\(status)" }
        if let failure = entry.failure { metadata["error.type"] = "\(type(of: failure))" }
        if let bytes = entry.bodyBytes, bytes > 0 || entry.kind != .request {
            metadata["http.\(side).body.size"] = "\(bytes)"
        }
        for field in entry.headers {
            let key = "http.\(side).header.\(field.name.lowercased())"
            if case .array(let values)? = metadata[key] {
                metadata[key] = .array(values + [.string(field.value)])
            } else {
                metadata[key] = .array([.string(field.value)])
            }
        }
        if let body = entry.body { metadata["courier.\(side).body"] = "\(body)" }
        if let curl = entry.curl { metadata["courier.curl"] = "\(curl)" }
        return metadata
    }

    /// The kind of failure, without anything the server said (a service's message can repeat a secret).
    static func type(of reason: APIError.Reason) -> String {
        if let rejection = reason.serviceRejection {
            "rejected by the service with code \(rejection.code)"
        } else {
            reason.description
        }
    }

    /// `duration` in whole milliseconds.
    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

// Its outcome entry waits for the call's end: the call forms decode after the plugins.
@_spi(CourierInternals)
extension SwiftLogPlugin: CallEndReportingPlugin {}

extension APIPlugin where Self == SwiftLogPlugin {
    /// Logs every call to `logger`, with secrets redacted; see ``SwiftLogPlugin``.
    public static func swiftLog(
        _ logger: Logger,
        options: LoggingPlugin.Options = .init(),
        levels: SwiftLogPlugin.Levels = .init()
    ) -> SwiftLogPlugin {
        SwiftLogPlugin(logger: logger, options: options, levels: levels)
    }
}
