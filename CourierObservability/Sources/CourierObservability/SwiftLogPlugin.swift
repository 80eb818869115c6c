import Courier
import Foundation
import Logging

/// Logs every call to a swift-log `Logger`: Courier's ``Courier/LoggingPlugin`` lines, with secrets redacted
/// exactly as there (``Courier/SensitiveData``), at a level that says how the call went, with the call's
/// metadata.
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
/// ```
///
/// The request line is logged at ``Levels-swift.struct/request`` (`debug`), a response at
/// ``Levels-swift.struct/success`` (`info`) or, for a status of 400 and above,
/// ``Levels-swift.struct/unacceptableStatus`` (`warning`), and a failure at
/// ``Levels-swift.struct/failure`` (`error`). Each entry carries `courier.endpoint` (the method and path
/// template, never the values), `http.request.method`, and after the call `courier.duration_ms` and either
/// `http.response.status_code` or `error.type` (the ``Courier/APIError/Reason``). ``Courier/LoggingPlugin/Options``
/// decide what the message shows (headers, bodies, cURL), redacted as everywhere in Courier. A logger at `info`
/// (swift-log's default) thus gets one entry per call, at `info`, `warning` or `error`; at `debug` the request line
/// too. When the logger's level is above every level the plugin would use, the plugin formats nothing.
public struct SwiftLogPlugin: APIPlugin {
    /// The level of each kind of entry.
    public struct Levels: Sendable {
        /// The request, before it is sent.
        public var request: Logger.Level
        /// A response with a status below 400.
        public var success: Logger.Level
        /// A response with a status of 400 and above.
        public var unacceptableStatus: Logger.Level
        /// A call that failed without a response (a transport failure, a plugin's error).
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
    }

    /// The logger entries go to.
    public let logger: Logger
    /// What the messages show (headers, bodies, cURL), as for ``Courier/LoggingPlugin``.
    public let options: LoggingPlugin.Options
    /// The level of each kind of entry.
    public let levels: Levels

    /// Creates the plugin.
    public init(logger: Logger, options: LoggingPlugin.Options = .init(), levels: Levels = .init()) {
        self.logger = logger
        self.options = options
        self.levels = levels
    }

    /// Logs the request, runs the rest of the chain, and logs the outcome.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        // A logger logs the entries at its level and above: at `info`, the outcome but not the request line.
        guard logger.logLevel <= levels.highest else { return try await next(request) }
        let call = CallRecord(request: request)
        let logger = self.logger
        let levels = self.levels
        let plugin = LoggingPlugin.logging(options) { line in
            call.log(line, to: logger, levels: levels)
        }
        return try await plugin.intercept(request) { request in
            do {
                let response = try await next(request)
                call.outcome.withLockedValue { $0 = .status(response.statusCode) }
                return response
            } catch {
                let reason = APIError.wrapping(error, request: request).reason
                call.outcome.withLockedValue { $0 = .failure(reason) }
                throw error
            }
        }
    }
}

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

/// What one call's entries share: its metadata, its start, and its status once it arrives.
private final class CallRecord: Sendable {
    let metadata: Logger.Metadata
    let start = ContinuousClock.now
    let outcome = Locked<Outcome?>(nil)

    /// How the rest of the chain ended.
    enum Outcome {
        case status(Int)
        case failure(APIError.Reason)
    }

    init(request: APIRequest) {
        metadata = [
            "courier.endpoint": "\(request.endpoint.name)",
            "http.request.method": "\(request.method.rawValue)",
        ]
    }

    /// Logs one of ``Courier/LoggingPlugin``'s entries (already redacted) at the level its kind gets.
    func log(_ line: String, to logger: Logger, levels: SwiftLogPlugin.Levels) {
        var metadata = self.metadata
        let level: Logger.Level
        switch line.first {
        case "→":
            level = levels.request
        case "←":
            var status = 0
            if case .status(let code) = outcome.withLockedValue({ $0 }) {
                status = code
                metadata["http.response.status_code"] = "\(code)"
            }
            metadata["courier.duration_ms"] = "\(milliseconds)"
            level = status >= 400 ? levels.unacceptableStatus : levels.success
        default:
            if case .failure(let reason) = outcome.withLockedValue({ $0 }) {
                metadata["error.type"] = "\(Self.type(of: reason))"
            }
            metadata["courier.duration_ms"] = "\(milliseconds)"
            level = levels.failure
        }
        logger.log(level: level, "\(line)", metadata: metadata)
    }

    /// The kind of failure, without anything the server said (a service's message can repeat a secret).
    static func type(of reason: APIError.Reason) -> String {
        if let rejection = reason.serviceRejection {
            "rejected by the service with code \(rejection.code)"
        } else {
            reason.description
        }
    }

    /// The time since the call started, in whole milliseconds.
    private var milliseconds: Int64 {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
