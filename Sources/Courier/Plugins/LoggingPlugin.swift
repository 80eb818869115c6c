import Foundation

/// Logs one line per request and one per response or failure, with secrets redacted everywhere.
///
/// ```
/// → GET https://api.example.com/users/octocat?api_key=***
/// ← 200 GET https://api.example.com/users/octocat?api_key=*** (84 ms, 1355 bytes)
/// ```
///
/// The request line comes before the request is sent; the outcome's when the call ends, after the call form decoded
/// the body, so that a response whose body does not decode is logged as the failure it is, with the status, the
/// size and why:
///
/// ```
/// ✗ 200 GET https://api.example.com/users/octocat?api_key=*** (84 ms, 1355 bytes): GET /users/{login}: the response body could not be decoded: missing key 'login' at top level
/// ```
///
/// A call without a response logs `✗ GET … (84 ms): …` with its reason. Under a retry plugin placed before this one,
/// each attempt gets its lines, the earlier ones before the next attempt's request line.
///
/// A response the ``ResponseCache`` answered says so: `(0 ms, 1355 bytes, from cache)` when the server was not
/// reached, `from cache, revalidated: 304` when the server confirmed a stale entry, `from cache, stale` for a stale
/// entry served before the network's value (``CachePolicy/ReadMode/cacheThenNetwork``).
///
/// What is secret is decided by `SensitiveData`, the one definition every part of Courier uses: the
/// credential headers, every header an auth plugin set (``APIRequest/sensitiveNames``), and headers,
/// query names, form fields and JSON keys whose names say they are secret (`password`, `clientSecret`,
/// `X-Auth-Token`, `filter[password]`, `profile.password`, …). ``APIConfiguration/sensitiveNames`` adds names
/// of your own (a header, a query item, a form field or a JSON key at any depth), for logs, caching and
/// redirects alike. Secret values are printed as `***` in every form: URL
/// (user and password too), headers, bodies and cURL. Every secret value of the request (a token, a cookie,
/// an API key, a password sent in a form or JSON body) is also masked wherever it reappears, for example in
/// a response body that echoes the request.
///
/// Bodies are cut at ``Options/maxBodyBytes`` with a note saying how much was left out; binary bodies, and
/// bodies over 1 MiB (too large to redact), are summarized; a file, stream or multipart body is never read to be
/// logged and shows as `<streamed body, 1048576 bytes>` (or `unknown size`). The cURL command inlines a text body only when it fits in ``Options/maxBodyBytes``; otherwise,
/// and for binary bodies, it reads the body from a file (`--data-binary @request-body.bin`) after a comment
/// line saying how many bytes were not shown, so that a replay fails instead of sending the wrong bytes:
///
/// ```
/// # The request body (4096 bytes, application/octet-stream) is binary and not shown: save it as request-body.bin to replay.
/// curl -X POST 'https://api.example.com/upload' -H 'Content-Type: application/octet-stream' --data-binary @request-body.bin
/// ```
///
/// ```swift
/// configuration.sensitiveNames.insert("session")
/// configuration.plugins.append(.logging(LoggingPlugin.Options(includeCURL: true)) { line in logger.debug("\(line)") })
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
        /// The longest body excerpt printed, and the longest body the cURL command inlines, in bytes.
        public var maxBodyBytes: Int

        /// Creates options; by default one line per request and per response, nothing else.
        public init(
            includeBodies: Bool = false,
            includeHeaders: Bool = false,
            includeCURL: Bool = false,
            maxBodyBytes: Int = 2048
        ) {
            self.includeBodies = includeBodies
            self.includeHeaders = includeHeaders
            self.includeCURL = includeCURL
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// What the plugin prints.
    let options: Options
    private let entries: @Sendable (LogEntry) -> Void
    /// What tells this plugin's entries from another's, in a call's end reports: the same for every copy.
    private let identity = Identity()

    private final class Identity: Sendable {}

    /// Creates the plugin (``APIPlugin/logging(_:sink:)`` is the spelling to use).
    init(
        options: Options = Options(),
        sink: @escaping @Sendable (String) -> Void = LoggingPlugin.standardError
    ) {
        self.init(options: options, entries: { sink($0.text) })
    }

    /// Creates a plugin that hands each entry over in parts (CourierObservability's `.swiftLog`).
    @_spi(CourierInternals)
    public init(options: Options, entries: @escaping @Sendable (LogEntry) -> Void) {
        self.options = options
        self.entries = entries
    }

    /// Writes a line to standard error.
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Logs the request, runs the rest of the chain, and logs the outcome: a response whose body the call form
    /// decodes when the call ends, so that the line says whether it decoded.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        // The one-line form prints URLs only, redacted by name: the request's secret values (which cost a
        // parse of the body to find) are needed when headers, bodies or cURL are printed.
        let redactor = Redactor(
            request: request, collectingSecrets: options.includeHeaders || options.includeBodies || options.includeCURL)
        let url = redactor.url(of: request)
        // A line of this plugin's earlier attempt in the call (retried by a plugin outside it) comes first.
        request.recorder?.supersedeReport(of: ObjectIdentifier(identity))
        entries(requestEntry(request, url: url, redactor: redactor))

        let start = ContinuousClock.now
        let response: APIResponse
        do {
            response = try await next(request)
        } catch {
            let wrapped = APIError.wrapping(error, request: request)
            entries(failureEntry(wrapped, request: request, url: url, elapsed: .now - start, redactor: redactor))
            throw wrapped
        }
        let elapsed = ContinuousClock.now - start
        // A body in memory is decoded after the plugins: its line waits for the call's end. Without a recorder
        // that reports the end (the plugin called outside a call form) the line is logged now.
        if case .memory = request.responseDelivery.kind, let recorder = request.recorder,
            recorder.reportAtEnd(
                owner: ObjectIdentifier(identity),
                { [self] end in
                    switch end {
                    case .failed(let error) where error.reason.statusCategory == nil:
                        entries(
                            failureEntry(
                                error, request: request, url: url, elapsed: elapsed, redactor: redactor,
                                response: response))
                    default:
                        entries(
                            responseEntry(response, request: request, url: url, elapsed: elapsed, redactor: redactor))
                    }
                })
        {
            return response
        }
        entries(responseEntry(response, request: request, url: url, elapsed: elapsed, redactor: redactor))
        return response
    }

    private func requestEntry(_ request: APIRequest, url: String, redactor: Redactor) -> LogEntry {
        var body: String?
        if options.includeBodies {
            if let data = request.body.data, !data.isEmpty {
                body = redactor.body(data, contentType: request.headers[.contentType], limit: options.maxBodyBytes)
            } else if !request.body.isInMemory {
                // A file, stream or form is never read to be logged.
                body = request.body.streamedSummary
            }
        }
        return LogEntry(
            kind: .request, endpoint: request.endpoint, method: request.method,
            line: redactor.scrub("→ \(request.method) \(url)"), statusCode: nil, failure: nil, duration: nil,
            headers: headers(request.headers, redactor), body: body.map(redactor.scrub),
            bodyBytes: request.body.count,
            curl: options.includeCURL ? redactor.scrub(redactor.curl(request, maxBodyBytes: options.maxBodyBytes)) : nil
        )
    }

    private func responseEntry(
        _ response: APIResponse, request: APIRequest, url: String, elapsed: Duration, redactor: Redactor
    ) -> LogEntry {
        let line =
            "← \(response.statusCode) \(request.method) \(url) (\(Self.milliseconds(elapsed)) ms, "
            + "\(Self.size(of: response.body))\(Self.cacheNote(response.cacheHit)))"
        var entry = LogEntry(
            kind: .response, endpoint: request.endpoint, method: request.method, line: redactor.scrub(line),
            statusCode: response.statusCode, failure: nil, duration: elapsed,
            headers: headers(response.headers, redactor), body: responseBody(response, redactor),
            bodyBytes: Self.bytes(of: response.body), curl: nil)
        entry.warnings = response.trustWarnings
        return entry
    }

    /// The entry of a call that failed with `error`, after `response` when the failure came after one (its body
    /// did not decode).
    private func failureEntry(
        _ error: APIError, request: APIRequest, url: String, elapsed: Duration, redactor: Redactor,
        response: APIResponse? = nil
    ) -> LogEntry {
        var line = "✗ "
        if let response { line += "\(response.statusCode) " }
        line += "\(request.method) \(url) (\(Self.milliseconds(elapsed)) ms"
        if let response { line += ", \(Self.size(of: response.body))" }
        line += "): \(error)"
        var entry = LogEntry(
            kind: .failure, endpoint: request.endpoint, method: request.method,
            line: redactor.scrub(Redactor.oneLine(line)), statusCode: response?.statusCode ?? error.statusCode,
            failure: error.reason, duration: elapsed,
            headers: response.map { headers($0.headers, redactor) } ?? [],
            body: response.flatMap { responseBody($0, redactor) },
            bodyBytes: response.flatMap { Self.bytes(of: $0.body) },
            curl: nil)
        entry.warnings = (response ?? error.response)?.trustWarnings ?? []
        return entry
    }

    private func headers(_ headers: HTTPHeaders, _ redactor: Redactor) -> [(name: String, value: String)] {
        guard options.includeHeaders else { return [] }
        return headers.map { (name: $0.name.rawValue, value: redactor.scrub(redactor.headerValue($0))) }
    }

    private func responseBody(_ response: APIResponse, _ redactor: Redactor) -> String? {
        guard options.includeBodies, !response.data.isEmpty else { return nil }
        return redactor.scrub(
            redactor.body(response.data, contentType: response.headers[.contentType], limit: options.maxBodyBytes))
    }

    /// The size of a response body in bytes, when it is known without reading a stream.
    private static func bytes(of body: ResponseBody) -> Int? {
        if let data = body.data { return data.count }
        if let file = body.fileURL { return RequestBody.fileSize(file) }
        return body.stream == nil ? 0 : nil
    }

    /// The size of a response body: never reads a stream (it is logged when its head arrives) nor a file.
    private static func size(of body: ResponseBody) -> String {
        if let data = body.data { return "\(data.count) bytes" }
        if body.stream != nil { return "streamed body" }
        if let file = body.fileURL {
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue
            return "\(size.map { "\($0) bytes" } ?? "a body") in a file"
        }
        return "0 bytes"
    }

    /// What the response line says of a cache hit: nothing when the network answered.
    private static func cacheNote(_ hit: CacheHit?) -> String {
        guard let hit else { return "" }
        if hit.revalidated { return ", from cache, revalidated: 304" }
        return hit.isStale ? ", from cache, stale" : ", from cache"
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int((duration.timeInterval * 1000).rounded())
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
