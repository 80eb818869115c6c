import Foundation

/// Logs one line per request and one per response or failure, with secrets redacted everywhere.
///
/// ```
/// → GET https://api.example.com/users/octocat?api_key=***
/// ← 200 GET https://api.example.com/users/octocat?api_key=*** (84 ms, 1355 bytes)
/// ```
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
    private let sink: @Sendable (String) -> Void

    /// Creates the plugin (``APIPlugin/logging(_:sink:)`` is the spelling to use).
    init(
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
        // The one-line form prints URLs only, redacted by name: the request's secret values (which cost a
        // parse of the body to find) are needed when headers, bodies or cURL are printed.
        let redactor = Redactor(
            request: request, collectingSecrets: options.includeHeaders || options.includeBodies || options.includeCURL)
        let url = redactor.url(of: request)
        var entry = "→ \(request.method) \(url)"
        if options.includeHeaders { entry += redactor.headerLines(request.headers) }
        if options.includeBodies {
            if let body = request.body.data, !body.isEmpty {
                entry +=
                    "\n" + redactor.body(body, contentType: request.headers[.contentType], limit: options.maxBodyBytes)
            } else if !request.body.isInMemory {
                // A file, stream or form is never read to be logged.
                entry += "\n" + request.body.streamedSummary
            }
        }
        if options.includeCURL { entry += "\n" + redactor.curl(request, maxBodyBytes: options.maxBodyBytes) }
        sink(redactor.scrub(entry))

        let start = ContinuousClock.now
        do {
            let response = try await next(request)
            let elapsed = ContinuousClock.now - start
            var line =
                "← \(response.statusCode) \(request.method) \(url) (\(Self.milliseconds(elapsed)) ms, "
                + "\(Self.size(of: response.body))\(Self.cacheNote(response.cacheHit)))"
            if options.includeHeaders { line += redactor.headerLines(response.headers) }
            if options.includeBodies, !response.data.isEmpty {
                line +=
                    "\n"
                    + redactor.body(
                        response.data, contentType: response.headers[.contentType], limit: options.maxBodyBytes)
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
