// `--offline`: a StubExecutor (from CourierTesting) that imitates the httpbin endpoints the pages use, closely
// enough that every page prints what it would print against the real server. It is also a larger example
// of stubbing by predicate with dynamic answers.
import Courier
import CourierTesting
import Foundation

enum OfflineServer {
    /// A host that never resolves (`.invalid` is reserved), so nothing can leave the machine by mistake.
    static let host = "httpbin.invalid"
    static let baseURL = URL(string: "http://\(host)")

    static func makeExecutor() -> StubExecutor {
        StubExecutor()
            // Any other host (e.g. the closed port on the Responses page) cannot be reached.
            .stub(where: { $0.url.host != host }, with: .error(URLError(.cannotConnectToHost)))
            .route("/get", methods: [.get, .head]) { echo($0, ["url", "args", "headers", "origin"]) }
            .route("/post", methods: [.post]) { try await echo(uploaded($0), bodyEchoKeys) }
            .route("/put", methods: [.put]) { echo($0, bodyEchoKeys) }
            .route("/patch", methods: [.patch]) { echo($0, bodyEchoKeys) }
            .route("/delete", methods: [.delete]) { echo($0, bodyEchoKeys) }
            .route("/anything", prefix: true) { try await echo(uploaded($0), bodyEchoKeys + ["method"]) }
            .route("/headers") { json(["headers": receivedHeaders($0)]) }
            .route("/ip") { _ in json(["origin": "127.0.0.1"]) }
            .route("/uuid") { _ in json(["uuid": UUID().uuidString.lowercased()]) }
            .route("/json", with: .json(slideshow))
            .route("/status/", prefix: true, respond: status)
            .route("/bearer", respond: bearer)
            .route("/basic-auth/", prefix: true, respond: basicAuth)
            .route("/delay/", prefix: true, respond: delay)
            .route("/bytes/", prefix: true) { request in
                let count = min(Int(request.url.lastPathComponent) ?? 0, 100 * 1024)
                let bytes = Data((0..<count).map { _ in UInt8.random(in: 0...255) })
                return .data(bytes, headers: ["Content-Type": "application/octet-stream"])
            }
            .route("/base64/", prefix: true) { request in
                .text(decodeBase64URL(request.url.lastPathComponent), headers: html)
            }
            .route("/response-headers", respond: responseHeaders)
            .route("/etag/", prefix: true, respond: etag)
            .route("/range/", prefix: true, respond: range)
            .route("/stream/", prefix: true) { request in
                let count = min(Int(request.url.lastPathComponent) ?? 0, 100)
                let lines = (0..<count).map { #"{"id": \#($0), "url": "\#(request.url.absoluteString)"}"# + "\n" }
                return .chunked(lines, headers: ["Content-Type": "application/json"])
            }
            .route("/drip") { request in
                let query = Dictionary(request.queryItems.map { ($0.name, $0.value ?? "") }) { $1 }
                let count = min(Int(query["numbytes"] ?? "") ?? 10, 1000)
                let seconds = min(Double(query["duration"] ?? "") ?? 2, 60)
                let interval = Duration.milliseconds(Int(seconds * 1000) / max(count, 1))
                return .chunked(Array(repeating: "*", count: count), every: interval)
            }
            .stubEverything(with: .text(notFoundPage, status: 404, headers: html))
    }

    // MARK: - Answers

    /// `/range/{n}`: n bytes of `abc…z` repeated, with an `ETag`; `Range: bytes=N-` gets a 206 with the rest,
    /// sent in 1 KiB chunks over `duration` seconds.
    private static func range(_ request: APIRequest) -> StubResponse {
        let count = min(Int(request.url.lastPathComponent) ?? 0, 100 * 1024)
        let query = Dictionary(request.queryItems.map { ($0.name, $0.value ?? "") }) { $1 }
        let seconds = min(Double(query["duration"] ?? "") ?? 0, 10)
        let bytes = Data((0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        var start = 0
        if let header = request.headers["Range"], header.hasPrefix("bytes="), header.hasSuffix("-"),
            let first = Int(header.dropFirst("bytes=".count).dropLast()), first < count
        {
            start = first
        }
        let body = bytes[start...]
        let chunks = stride(from: body.startIndex, to: body.endIndex, by: 1024).map {
            Data(body[$0..<min($0 + 1024, body.endIndex)])
        }
        let interval = Duration.milliseconds(Int(seconds * 1000) / max(chunks.count, 1))
        let headers: HTTPHeaders = [
            "Content-Type": "application/octet-stream", "ETag": "range\(count)", "Accept-Ranges": "bytes",
            "Content-Range": "bytes \(start)-\(count - 1)/\(count)",
        ]
        return .chunked(chunks, every: interval, status: start > 0 ? 206 : 200, headers: headers)
    }

    fileprivate static let html: HTTPHeaders = ["Content-Type": "text/html; charset=utf-8"]
    private static let bodyEchoKeys = ["url", "args", "headers", "origin", "data", "form", "files", "json"]

    /// A request whose file or multipart body (read again: it is replayable) is in memory, so `echo` sees it. A
    /// one-shot stream was read by the stub already and echoes as empty.
    private static func uploaded(_ request: APIRequest) async throws -> APIRequest {
        guard !request.body.isInMemory, request.body.isReplayable else { return request }
        var copy = request
        var bytes = Data()
        for try await chunk in request.body.chunks() { bytes.append(chunk) }
        copy.body = .data(bytes)
        return copy
    }

    /// What httpbin's `get_dict` returns: the parts of the request named by `keys`.
    private static func echo(_ request: APIRequest, _ keys: [String]) -> StubResponse {
        let body = request.body.data ?? Data()
        let isForm = request.headers[.contentType]?.contains("x-www-form-urlencoded") ?? false
        // httpbin puts multipart fields in `form` and parts with a filename in `files`.
        let multipart = MultipartFormContent(body, contentType: request.headers[.contentType])
        if let multipart {
            var form: [(String, String)] = []
            var files: [String: String] = [:]
            for part in multipart.parts {
                if part.filename == nil { form.append((part.name, part.text)) } else { files[part.name] = part.text }
            }
            let parts: [String: Any] = [
                "url": request.url.absoluteString, "args": [String: String](), "headers": receivedHeaders(request),
                "origin": "127.0.0.1", "data": "", "form": semiflatten(form), "files": files, "json": NSNull(),
                "method": request.method.rawValue,
            ]
            return json(parts.filter { keys.contains($0.key) })
        }
        let parts: [String: Any] = [
            "url": request.url.absoluteString,
            "args": semiflatten(request.queryItems.map { ($0.name, $0.value ?? "") }),
            "headers": receivedHeaders(request),
            "origin": "127.0.0.1",
            "data": isForm ? "" : String(decoding: body, as: UTF8.self),
            "form": isForm ? semiflatten(request.formFields.map { ($0.name, $0.value ?? "") }) : [:],
            "files": [String: String](),
            "json": (try? JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed)) ?? NSNull(),
            "method": request.method.rawValue,
        ]
        return json(parts.filter { keys.contains($0.key) })
    }

    /// `/status/{code}`: an empty body, except for the few codes httpbin decorates.
    private static func status(_ request: APIRequest) -> StubResponse {
        guard let code = Int(request.url.lastPathComponent) else { return .text("Invalid status code", status: 400) }
        switch code {
        case 401: return .status(401, headers: ["WWW-Authenticate": #"Basic realm="Fake Realm""#])
        case 406:
            let problem: [String: Any] = [
                "message": "Client did not request a supported media type.",
                "accept": ["image/webp", "image/svg+xml", "image/jpeg", "image/png", "image/*"],
            ]
            return json(problem, status: 406)
        case 418:
            let teapot = Data("-=[ teapot ]=-".utf8)
            return .data(teapot, status: 418, headers: ["x-more-info": "http://tools.ietf.org/html/rfc2324"])
        default: return .status(code, headers: html)
        }
    }

    /// `/bearer`: any bearer token is accepted and echoed; none is a 401.
    private static func bearer(_ request: APIRequest) -> StubResponse {
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") else {
            return .status(401, headers: ["WWW-Authenticate": "Bearer", "Content-Type": "text/html; charset=utf-8"])
        }
        return json(["authenticated": true, "token": String(authorization.dropFirst("Bearer ".count))])
    }

    /// `/basic-auth/{user}/{passwd}`: 200 when the Basic credentials match the path, else 401.
    private static func basicAuth(_ request: APIRequest) -> StubResponse {
        let parts = request.url.pathComponents.suffix(2)
        let expected = "Basic " + Data(parts.joined(separator: ":").utf8).base64EncodedString()
        guard parts.count == 2, request.headers[.authorization] == expected, let user = parts.first else {
            return .status(401, headers: ["WWW-Authenticate": #"Basic realm="Fake Realm""#])
        }
        return json(["authenticated": true, "user": user])
    }

    /// `/delay/{n}`: the echo after `n` seconds (at most 10), or a timeout when the request gives up first.
    private static func delay(_ request: APIRequest) -> StubResponse {
        let seconds = min(Double(request.url.lastPathComponent) ?? 0, 10)
        let wait = Duration.milliseconds(Int64(seconds * 1000))
        guard wait <= request.timeout else { return .error(URLError(.timedOut)).delayed(by: request.timeout) }
        return echo(request, ["url", "args", "form", "data", "origin", "headers", "files"]).delayed(by: wait)
    }

    /// `/response-headers?Name=value`: each query item becomes a response header, echoed as JSON too.
    private static func responseHeaders(_ request: APIRequest) -> StubResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        for item in request.queryItems { headers.add(HTTPHeaderName(rawValue: item.name), item.value ?? "") }
        var echoed: [String: Any] = ["Content-Type": "application/json"]
        for (name, value) in semiflatten(request.queryItems.map { ($0.name, $0.value ?? "") }) { echoed[name] = value }
        var response = json(echoed)
        response.headers = headers
        return response
    }

    /// `/etag/{etag}`: a 304 when `If-None-Match` names the tag, else the echo with `ETag: {etag}`.
    private static func etag(_ request: APIRequest) -> StubResponse {
        let tag = request.url.lastPathComponent
        let asked = (request.headers[.ifNoneMatch] ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        }
        if asked.contains(tag) || asked.contains("*") { return .status(304, headers: ["ETag": tag]) }
        var response = echo(request, ["url", "args", "headers", "origin"])
        response.headers[.eTag] = tag
        return response
    }

    // MARK: - Helpers

    private static func json(_ object: Any, status: Int = 200) -> StubResponse {
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: options) else {
            return .text("unencodable stub", status: 500)
        }
        return .data(data, status: status, headers: ["Content-Type": "application/json"])
    }

    /// One value per name, or a list when the name repeats (httpbin's `semiflatten`).
    private static func semiflatten(_ pairs: [(String, String)]) -> [String: Any] {
        var grouped: [String: [String]] = [:]
        for (name, value) in pairs { grouped[name, default: []].append(value) }
        return grouped.mapValues { $0.count == 1 ? $0[0] as Any : $0 as Any }
    }

    /// The request's headers as httpbin echoes them: Title-Case names, plus the `Host` the client adds.
    private static func receivedHeaders(_ request: APIRequest) -> [String: String] {
        var headers = ["Host": host, "Accept": "*/*", "User-Agent": "Playground (offline)"]
        for field in request.headers {
            let name = field.name.rawValue.split(separator: "-").map {
                $0.prefix(1).uppercased() + $0.dropFirst().lowercased()
            }
            headers[name.joined(separator: "-")] = field.value
        }
        if let count = request.body.count, count > 0 { headers["Content-Length"] = String(count) }
        return headers
    }

    private static func decodeBase64URL(_ text: String) -> String {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8) else {
            return "Incorrect Base64 data try: SFRUUEJJTiBpcyBhd2Vzb21l"
        }
        return decoded
    }

    private static let notFoundPage = "<!doctype html><title>404 Not Found</title><h1>Not Found</h1>"

    private static let slideshow = """
        {"slideshow": {"author": "Yours Truly", "date": "date of publication", "slides": [\
        {"title": "Wake up to WonderWidgets!", "type": "all"}, {"items": ["Why <em>WonderWidgets</em> are great", \
        "Who <em>buys</em> WonderWidgets"], "title": "Overview", "type": "all"}], "title": "Sample Slide Show"}}
        """
}

extension StubExecutor {
    /// Answers requests whose URL path is `path` with `response`.
    fileprivate func route(_ path: String, with response: StubResponse) -> StubExecutor {
        stub(where: { $0.url.path == path }, with: response)
    }

    /// Answers requests whose URL path is `path` (or starts with it), like a server route; a method the route
    /// does not accept gets httpbin's 405.
    fileprivate func route(
        _ path: String,
        prefix: Bool = false,
        methods: Set<HTTPMethod>? = nil,
        respond: @escaping @Sendable (APIRequest) async throws -> StubResponse
    ) -> StubExecutor {
        stub(where: { prefix ? $0.url.path.hasPrefix(path) : $0.url.path == path }) { request in
            if let methods, !methods.contains(request.method) {
                return .text("Method Not Allowed", status: 405, headers: OfflineServer.html)
            }
            return try await respond(request)
        }
    }
}
