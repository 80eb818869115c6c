import Foundation

/// Builds an ``APIRequest`` from an endpoint, its parameters and a configuration, without any I/O.
enum RequestFactory {
    static func make(
        endpoint: APIEndpoint,
        parameters: Parameters,
        parameterHeaders: HTTPHeaders?,
        configuration: APIConfiguration,
        progress: TransferProgress? = nil
    ) throws(APIError) -> APIRequest {
        func fail(_ problem: APIError.RequestProblem, _ underlying: (any Error)? = nil) -> APIError {
            APIError(.invalidRequest(problem), endpoint: endpoint, underlyingError: underlying)
        }

        let template = endpoint.template
        guard template.isValid else { throw fail(.malformedPathTemplate) }
        let encoding = endpoint.effectiveEncoding
        if encoding.writesBody, !endpoint.method.allowsRequestBody { throw fail(.bodyNotAllowed) }
        let options = encoding.options ?? configuration.parameterOptions

        let base = try baseURL(for: endpoint, configuration: configuration)

        // Split the parameters into path values, query names and the rest, which the encoder writes.
        let placed: PlacedParameters
        do {
            let context = ParameterEncodingContext(
                endpoint: endpoint,
                options: options,
                jsonEncoder: encoding.options.map { configuration.encoder.coder.writingDates($0.dates) }
                    ?? configuration.encoder.coder
            )
            placed = try PlacedParameters(parameters, pathNames: template.names, encoding: encoding, context: context)
        } catch let error as RequestProblemError {
            throw fail(error.problem)
        } catch {
            throw fail(.unencodableParameters, error)
        }
        if !placed.body.isEmpty, !endpoint.method.allowsRequestBody { throw fail(.bodyNotAllowed) }
        if !placed.body.checkReadable() { throw fail(.unreadableBody) }

        // A fixed template without query parameters makes the same URL on every call on the same base.
        let isFixed = template.isFixed && (placed.query ?? "").isEmpty
        let url: URL
        if isFixed, let known = endpoint.fixedURL(on: base) {
            url = known
        } else {
            var path: [UInt8] = []
            do {
                try template.render(into: &path) { name throws(RequestProblemError) in
                    guard let value = placed.pathValue(for: name) else {
                        throw RequestProblemError(.missingPathValue(name: name))
                    }
                    return value
                }
            } catch {
                throw fail(
                    error.problem, MissingPathValueHint(error.problem, parameters: parameters, template: template))
            }
            var query =
                template.staticQuery.map { PercentEncoding.encode(String($0), allowing: .queryLiteral) } ?? ""
            if let parameterQuery = placed.query, !parameterQuery.isEmpty {
                query = query.isEmpty ? parameterQuery : query + "&" + parameterQuery
            }
            guard let joined = URLJoiner.join(base: base, path: path, isAbsolute: template.isAbsolute, query: query)
            else {
                throw fail(.invalidURL)
            }
            if isFixed { endpoint.rememberFixedURL(joined, on: base) }
            url = joined
        }

        var headers = configuration.headers
        headers.merge(endpoint.headers)
        if let parameterHeaders { headers.merge(parameterHeaders) }
        // RFC 6265: one `Cookie` field, its pairs separated by `; ` (two fields would reach the wire joined by `,`).
        if headers.count > 1, let cookies = headers.repeatedCookies { headers[.cookie] = cookies }
        if let contentType = placed.contentType, !headers.contains(.contentType) {
            headers[.contentType] = contentType
        }
        if let invalid = headers.firstInvalidName {
            throw fail(.invalidHeader(name: invalid.rawValue))
        }

        var request = APIRequest(
            method: endpoint.method,
            url: url,
            headers: headers,
            body: placed.body,
            timeout: endpoint.timeout ?? configuration.timeout,
            redirectPolicy: endpoint.redirectPolicy ?? configuration.redirectPolicy,
            maxResponseBytes: endpoint.maxResponseBytes ?? configuration.maxResponseBytes,
            sensitiveNames: configuration.sensitiveNames,
            endpoint: endpoint
        )
        request.progress = progress
        return request
    }

    /// The base URL's text, or `nil` when the path is absolute.
    private static func baseURL(
        for endpoint: APIEndpoint,
        configuration: APIConfiguration
    ) throws(APIError) -> String? {
        if endpoint.template.isAbsolute { return nil }
        let base: URL?
        if let declared = endpoint.baseURL {
            base = declared
        } else if let host = endpoint.host {
            guard let url = configuration.hosts[host] else {
                throw APIError(.invalidRequest(.unknownHost(host)), endpoint: endpoint)
            }
            base = url
        } else {
            // The configuration checked its base URL once, when it was set.
            if let text = configuration.baseURLText { return text }
            guard let url = configuration.baseURL else {
                throw APIError(.invalidRequest(.missingBaseURL), endpoint: endpoint)
            }
            base = url
        }
        guard let base, let text = baseText(of: base) else {
            throw APIError(.invalidRequest(.invalidBaseURL), endpoint: endpoint)
        }
        return text
    }

    /// The text of `base` when it can be a base URL (it has a scheme and a host), else `nil`.
    static func baseText(of base: URL) -> String? {
        let text = base.absoluteString
        // Parsing out `scheme` and `host` costs more than the rest of a simple request; the common
        // `scheme://plain-host[:port]` form shows both at a glance.
        if hasPlainSchemeAndHost(text) { return text }
        guard base.scheme != nil, let host = base.host, !host.isEmpty else { return nil }
        return text
    }

    static func hasPlainSchemeAndHost(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            func isLetter(_ byte: UInt8) -> Bool {
                (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            }
            func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
            func isHost(_ byte: UInt8) -> Bool {
                isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
            }
            func isScheme(_ byte: UInt8) -> Bool {
                isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "-")
            }
            var index = 0
            guard index < bytes.count, isLetter(bytes[index]) else { return false }
            index += 1
            while index < bytes.count, isScheme(bytes[index]) { index += 1 }
            for expected in [UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "/")] {
                guard index < bytes.count, bytes[index] == expected else { return false }
                index += 1
            }
            let hostStart = index
            while index < bytes.count, isHost(bytes[index]) { index += 1 }
            guard index > hostStart else { return false }
            if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                index += 1
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            guard index < bytes.count else { return true }
            let next = bytes[index]
            return next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#")
        }
    }
}

/// Appends an endpoint path to a base URL.
enum URLJoiner {
    /// Joins `base` and `path` by appending (`https://h/api/v2` + `/users` → `https://h/api/v2/users`)
    /// whatever the slashes; a `nil` base means `path` is an absolute URL. The base URL's own query comes
    /// first, then `query`. Fragments are dropped.
    static func join(base: String?, path: [UInt8], isAbsolute: Bool, query: String) -> URL? {
        var query = query
        let text: String
        if var base {
            text = base.withUTF8 { base in
                path.withUnsafeBufferPointer { path in
                    query.withUTF8 { query in assemble(base: base, path: path, query: query) }
                }
            }
        } else {
            text = path.withUnsafeBufferPointer { path in
                query.withUTF8 { query in assemble(base: nil, path: path, query: query) }
            }
        }
        return URL(string: text)
    }

    /// The joined text, written straight into one string. Byte-wise: the base comes from
    /// `URL.absoluteString` and the path is percent-encoded, so both are ASCII, and `/`, `?` and `#` always
    /// stand for themselves.
    private static func assemble(
        base: UnsafeBufferPointer<UInt8>?,
        path: UnsafeBufferPointer<UInt8>,
        query: UnsafeBufferPointer<UInt8>
    ) -> String {
        var head = 0..<0
        var baseQuery = 0..<0
        var pathStart = 0
        var slash = false
        if let base {
            var end = base.firstIndex(of: UInt8(ascii: "#")) ?? base.count
            if let question = base[..<end].firstIndex(of: UInt8(ascii: "?")) {
                baseQuery = (question + 1)..<end
                end = question
            }
            while end > 0, base[end - 1] == UInt8(ascii: "/") { end -= 1 }
            head = 0..<end
            pathStart = path.firstIndex { $0 != UInt8(ascii: "/") } ?? path.count
            slash = !path.isEmpty
        }
        let hasQuery = !baseQuery.isEmpty || !query.isEmpty
        let bothQueries = !baseQuery.isEmpty && !query.isEmpty
        let count =
            head.count + (slash ? 1 : 0) + (path.count - pathStart) + (hasQuery ? 1 : 0) + baseQuery.count
            + (bothQueries ? 1 : 0) + query.count
        return String(unsafeUninitializedCapacity: count) { output in
            var written = 0
            func put(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
                guard !bytes.isEmpty, let source = UnsafeBufferPointer(rebasing: bytes).baseAddress,
                    let target = output.baseAddress
                else { return }
                (target + written).initialize(from: source, count: bytes.count)
                written += bytes.count
            }
            func put(_ byte: UInt8) {
                output[written] = byte
                written += 1
            }
            if let base { put(base[head]) }
            if slash { put(UInt8(ascii: "/")) }
            put(path[pathStart...])
            if hasQuery { put(UInt8(ascii: "?")) }
            if let base { put(base[baseQuery]) }
            if bothQueries { put(UInt8(ascii: "&")) }
            put(query[...])
            return written
        }
    }
}
