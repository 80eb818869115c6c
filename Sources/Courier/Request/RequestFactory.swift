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
        // The one resolution of the call's options (endpoint over configuration); everything below reads it.
        let resolved = ResolvedOptions(endpoint: endpoint, configuration: configuration)
        let encoding = resolved.encoding
        if encoding.writesBody, !endpoint.method.allowsRequestBody { throw fail(.bodyNotAllowed) }

        let base = try resolved.baseURL()

        // Split the parameters into path values, query items and the rest, which the encoder writes.
        let placed: PlacedParameters
        do {
            let context = ParameterEncodingContext(
                endpoint: endpoint, options: resolved.parameterOptions(for: encoding),
                jsonEncoder: resolved.jsonEncoder(for: encoding))
            placed = try PlacedParameters(parameters, pathNames: template.names, encoding: encoding, context: context)
        } catch let error as RequestProblemError {
            throw fail(error.problem)
        } catch {
            throw fail(.unencodableParameters, error)
        }
        if !placed.body.isEmpty, !endpoint.method.allowsRequestBody { throw fail(.bodyNotAllowed) }
        if !placed.body.checkReadable() { throw fail(.unreadableBody) }

        // A fixed template without query parameters makes the same URL on every call on the same base.
        let isFixed = template.isFixed && placed.query.isEmpty
        let target: RequestTarget
        if isFixed, let known = endpoint.fixedTarget(on: base) {
            target = known
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
            var query = template.staticQuery
            query.append(placed.query)
            guard let joined = URLJoiner.join(base: base, path: path, query: query) else {
                throw fail(.invalidURL)
            }
            if isFixed { endpoint.rememberFixedTarget(joined, on: base) }
            target = joined
        }

        var headers = resolved.headers
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
            target: target,
            headers: headers,
            body: placed.body,
            timeout: resolved.timeout,
            redirectPolicy: resolved.redirectPolicy,
            maxResponseBytes: resolved.maxResponseBytes,
            sensitiveNames: configuration.sensitiveNames,
            endpoint: endpoint
        )
        request.progress = progress
        return request
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
    /// whatever the slashes; a `nil` base means `path` is an absolute URL. The base URL's own query items come
    /// first, then `query`'s. Fragments are dropped.
    static func join(base: String?, path: [UInt8], query: EncodedQuery) -> RequestTarget? {
        var query = query
        let joined = path.withUnsafeBufferPointer { path in
            guard var base else { return assemble(base: nil, path: path, query: query) }
            return base.withUTF8 { base in
                // The base URL's own query came from the user: read into items, in front of the call's.
                if let baseQuery = queryRange(of: base), !baseQuery.isEmpty {
                    var items = EncodedQuery(
                        parsing: Substring(
                            decoding: UnsafeBufferPointer(rebasing: base[baseQuery]), as: UTF8.self))
                    items.append(query)
                    query = items
                }
                return assemble(base: base, path: path, query: query)
            }
        }
        return RequestTarget.make(text: joined.text, headCount: joined.headCount, query: query)
    }

    /// The range of `base`'s query, after its `?` and before any `#`; `nil` when it has none.
    private static func queryRange(of base: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let end = base.firstIndex(of: UInt8(ascii: "#")) ?? base.count
        guard let question = base[..<end].firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return (question + 1)..<end
    }

    /// The joined text, written straight into one string, and the length in bytes of the part before the query.
    /// Byte-wise: the base comes from `URL.absoluteString`, the path and the query are percent-encoded, so all are
    /// ASCII, and `/`, `?` and `#` always stand for themselves.
    private static func assemble(
        base: UnsafeBufferPointer<UInt8>?,
        path: UnsafeBufferPointer<UInt8>,
        query: EncodedQuery
    ) -> (text: String, headCount: Int) {
        var head = 0..<0
        var pathStart = 0
        var slash = false
        if let base {
            var end = base.firstIndex(of: UInt8(ascii: "#")) ?? base.count
            if let question = base[..<end].firstIndex(of: UInt8(ascii: "?")) { end = question }
            while end > 0, base[end - 1] == UInt8(ascii: "/") { end -= 1 }
            head = 0..<end
            pathStart = path.firstIndex { $0 != UInt8(ascii: "/") } ?? path.count
            slash = !path.isEmpty
        }
        let headCount = head.count + (slash ? 1 : 0) + (path.count - pathStart)
        let count = headCount + (query.isEmpty ? 0 : 1 + query.utf8Count)
        let text = String(unsafeUninitializedCapacity: count) { output in
            var written = 0
            func put(_ bytes: UnsafeBufferPointer<UInt8>) {
                guard !bytes.isEmpty, let source = bytes.baseAddress, let target = output.baseAddress else { return }
                (target + written).initialize(from: source, count: bytes.count)
                written += bytes.count
            }
            func put(_ byte: UInt8) {
                output[written] = byte
                written += 1
            }
            if let base { put(UnsafeBufferPointer(rebasing: base[head])) }
            if slash { put(UInt8(ascii: "/")) }
            put(UnsafeBufferPointer(rebasing: path[pathStart...]))
            if !query.isEmpty {
                put(UInt8(ascii: "?"))
                query.bytes.withUnsafeBufferPointer { put($0) }
            }
            return written
        }
        return (text, headCount)
    }
}
