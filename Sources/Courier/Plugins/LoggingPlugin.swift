import Foundation

/// Logs one line per request and one per response or failure, with secrets redacted everywhere.
///
/// ```
/// → GET https://api.example.com/users/octocat?api_key=***
/// ← 200 GET https://api.example.com/users/octocat?api_key=*** (84 ms, 1355 bytes)
/// ```
///
/// Values of the headers in ``Options/redactedHeaders`` (`Authorization`, `Proxy-Authorization`,
/// `Cookie`, `Set-Cookie` and any you add) and of the query or body keys in
/// ``Options/redactedKeys`` are printed as `***` in every form: URL, headers, bodies and cURL. JSON keys
/// that name a redacted header are masked too, and so is any secret value of the request (a token, a
/// cookie, an API key) wherever it reappears, for example in a response body that echoes the request.
///
/// ```swift
/// var options = LoggingPlugin.Options(includeCURL: true)
/// options.redactedKeys.insert("session")
/// configuration.plugins.append(LoggingPlugin(options: options) { line in logger.debug("\(line)") })
/// ```
public struct LoggingPlugin: APIPlugin {
    /// What the plugin prints.
    public struct Options: Sendable {
        /// Print request and response bodies (up to ``maxBodyBytes``), redacted.
        public var includeBodies: Bool
        /// Print headers, redacted.
        public var includeHeaders: Bool
        /// Print each request as a `curl` command line, redacted.
        public var includeCURL: Bool
        /// Headers whose values are never printed.
        public var redactedHeaders: Set<HTTPHeaderName>
        /// Query items and body keys (form fields, JSON object keys at any depth) whose values are never printed.
        public var redactedKeys: Set<String>
        /// The longest body excerpt printed.
        public var maxBodyBytes: Int

        /// Creates options; by default one line per request and per response, nothing else.
        public init(
            includeBodies: Bool = false,
            includeHeaders: Bool = false,
            includeCURL: Bool = false,
            redactedHeaders: Set<HTTPHeaderName> = Options.defaultRedactedHeaders,
            redactedKeys: Set<String> = Options.defaultRedactedKeys,
            maxBodyBytes: Int = 2048
        ) {
            self.includeBodies = includeBodies
            self.includeHeaders = includeHeaders
            self.includeCURL = includeCURL
            self.redactedHeaders = redactedHeaders
            self.redactedKeys = redactedKeys
            self.maxBodyBytes = maxBodyBytes
        }

        /// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`.
        public static let defaultRedactedHeaders: Set<HTTPHeaderName> = [
            .authorization, .proxyAuthorization, .cookie, .setCookie,
        ]
        /// Common secret-bearing keys (compared ignoring case): `access_token`, `api_key`, `apikey`,
        /// `authorization`, `client_secret`, `id_token`, `password`, `refresh_token`, `token`.
        public static let defaultRedactedKeys: Set<String> = [
            "access_token", "api_key", "apikey", "authorization", "client_secret", "id_token", "password",
            "refresh_token", "token",
        ]
    }

    /// What the plugin prints.
    public let options: Options
    private let sink: @Sendable (String) -> Void

    /// Creates the plugin. `sink` receives each log entry (default: standard error).
    public init(
        options: Options = Options(),
        sink: @escaping @Sendable (String) -> Void = LoggingPlugin.standardError
    ) {
        self.options = options
        self.sink = sink
    }

    /// Writes a line to standard error.
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Logs the request, runs the rest of the chain, and logs the outcome.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        let redactor = Redactor(options: options, request: request)
        let url = redactor.url(request.url)
        var entry = "→ \(request.method) \(url)"
        if options.includeHeaders { entry += redactor.headerLines(request.headers) }
        if options.includeBodies, let body = request.body.data, !body.isEmpty {
            entry += "\n" + redactor.body(body, contentType: request.headers[.contentType])
        }
        if options.includeCURL { entry += "\n" + redactor.curl(request) }
        sink(redactor.scrub(entry))

        let start = ContinuousClock.now
        do {
            let response = try await next(request)
            let elapsed = ContinuousClock.now - start
            var line =
                "← \(response.statusCode) \(request.method) \(url) (\(Self.milliseconds(elapsed)) ms, "
                + "\(response.data.count) bytes)"
            if options.includeHeaders { line += redactor.headerLines(response.headers) }
            if options.includeBodies, !response.data.isEmpty {
                line += "\n" + redactor.body(response.data, contentType: response.contentType)
            }
            sink(redactor.scrub(line))
            return response
        } catch {
            let wrapped = APIError.wrapping(error, request: request)
            let elapsed = Self.milliseconds(ContinuousClock.now - start)
            sink(redactor.scrub("✗ \(request.method) \(url) (\(elapsed) ms): \(wrapped)"))
            throw wrapped
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int((duration.timeInterval * 1000).rounded())
    }
}

/// Renders requests and responses with secret values replaced by `***`.
struct Redactor {
    static let mask = "***"
    let options: LoggingPlugin.Options
    private let keys: Set<String>
    /// The request's secret values (redacted header values and their parts, redacted query values),
    /// longest first, masked wherever they reappear.
    private let secrets: [String]

    init(options: LoggingPlugin.Options, request: APIRequest? = nil) {
        self.options = options
        self.keys = Set(options.redactedKeys.map { $0.lowercased() })
            .union(options.redactedHeaders.map { $0.rawValue.lowercased() })
        var secrets: Set<String> = []
        if let request {
            for field in request.headers where options.redactedHeaders.contains(field.name) {
                secrets.formUnion(Self.pieces(of: field.value))
            }
            let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQueryItems ?? []
            for item in items {
                let name = item.name.removingPercentEncoding ?? item.name
                guard keys.contains(name.lowercased()), let value = item.value else { continue }
                secrets.insert(value)
                secrets.insert(value.removingPercentEncoding ?? value)
            }
        }
        self.secrets = secrets.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
    }

    /// A header value and the parts of it that are secrets on their own: what follows an auth scheme
    /// (`Bearer abc` → `abc`) and the values of `name=value` pairs (cookies).
    private static func pieces(of value: String) -> Set<String> {
        var pieces: Set<String> = [value]
        let words = value.split(separator: " ", maxSplits: 1)
        if words.count == 2 { pieces.insert(String(words[1])) }
        for pair in value.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { pieces.insert(parts[1].trimmingCharacters(in: .whitespaces)) }
        }
        return pieces
    }

    /// `text` with every secret value of the request replaced by the mask.
    func scrub(_ text: String) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: Self.mask) }
    }

    func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let items = components.percentEncodedQueryItems, !items.isEmpty
        else { return url.absoluteString }
        components.percentEncodedQueryItems = items.map { item in
            let name = item.name.removingPercentEncoding ?? item.name
            return redacts(name) ? URLQueryItem(name: item.name, value: Self.mask) : item
        }
        if components.user != nil || components.password != nil {
            components.user = Self.mask
            components.password = nil
        }
        return components.string ?? url.absoluteString
    }

    func headerLines(_ headers: HTTPHeaders) -> String {
        headers.map { "\n    \($0.name): \(headerValue($0))" }.joined()
    }

    func headerValue(_ field: HTTPHeaders.Field) -> String {
        options.redactedHeaders.contains(field.name) ? Self.mask : field.value
    }

    private func redacts(_ key: String) -> Bool {
        keys.contains(key.lowercased())
    }

    func body(_ data: Data, contentType: String?) -> String {
        let text = redactedBody(data, contentType: contentType)
        guard text.utf8.count > options.maxBodyBytes else { return text }
        return String(decoding: Array(text.utf8.prefix(options.maxBodyBytes)), as: UTF8.self) + "… (truncated)"
    }

    private func redactedBody(_ data: Data, contentType: String?) -> String {
        let type = contentType?.lowercased() ?? ""
        if type.contains("x-www-form-urlencoded") {
            return String(decoding: data, as: UTF8.self).split(separator: "&", omittingEmptySubsequences: false)
                .map { pair in
                    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    let name = String(parts[0]).replacingOccurrences(of: "+", with: " ")
                    let key = name.removingPercentEncoding ?? name
                    return redacts(key) ? "\(parts[0])=\(Self.mask)" : String(pair)
                }
                .joined(separator: "&")
        }
        if let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
            let redacted = redactJSON(json)
            if let rendered = try? JSONSerialization.data(
                withJSONObject: redacted,
                options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]
            ) {
                return String(decoding: rendered, as: UTF8.self)
            }
            return "<\(data.count) bytes of JSON>"
        }
        if let text = String(data: data, encoding: .utf8) {
            return text
        }
        return "<\(data.count) bytes of binary data>"
    }

    private func redactJSON(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, nested) in object {
                result[key] = redacts(key) ? Self.mask : redactJSON(nested)
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map(redactJSON)
        }
        return value
    }

    /// The request as a `curl` command, every value shell-quoted and redacted.
    func curl(_ request: APIRequest) -> String {
        var parts = ["curl", "-X", request.method.rawValue, shellQuoted(url(request.url))]
        for field in request.headers {
            parts += ["-H", shellQuoted("\(field.name.rawValue): \(headerValue(field))")]
        }
        if let body = request.body.data, !body.isEmpty {
            parts += ["--data-raw", shellQuoted(redactedBody(body, contentType: request.headers[.contentType]))]
        }
        return parts.joined(separator: " ")
    }

    private func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension APIPlugin where Self == LoggingPlugin {
    /// Logs requests and responses with secrets redacted; see ``LoggingPlugin``.
    public static func logging(
        _ options: LoggingPlugin.Options = .init(),
        sink: @escaping @Sendable (String) -> Void = LoggingPlugin.standardError
    ) -> LoggingPlugin {
        LoggingPlugin(options: options, sink: sink)
    }
}
