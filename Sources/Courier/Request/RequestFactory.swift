import Foundation

/// Builds an ``APIRequest`` from an endpoint, its parameters and a configuration, without any I/O.
enum RequestFactory {
    static func make(
        endpoint: APIEndpoint,
        parameters: Parameters,
        parameterHeaders: HTTPHeaders?,
        configuration: APIConfiguration
    ) throws(APIError) -> APIRequest {
        func fail(_ problem: APIError.RequestProblem, _ underlying: (any Error)? = nil) -> APIError {
            APIError(.invalidRequest(problem), endpoint: endpoint, underlyingError: underlying)
        }

        let template = endpoint.template
        guard template.isValid else { throw fail(.malformedPathTemplate) }
        let encoding = endpoint.effectiveEncoding
        if encoding.placement != .query, !endpoint.method.allowsRequestBody { throw fail(.bodyNotAllowed) }
        let options = encoding.options ?? configuration.parameterOptions

        let base = try baseURL(for: endpoint, configuration: configuration).get()

        // Split the parameters into path values and the rest.
        let placed: PlacedParameters
        do {
            placed = try PlacedParameters(
                parameters,
                pathNames: template.names,
                placement: encoding.placement,
                options: options,
                encoder: configuration.encoder
            )
        } catch let error as RequestProblemError {
            throw fail(error.problem)
        } catch {
            throw fail(.unencodableParameters, error)
        }

        let path: String
        do {
            path = try template.render { name throws(RequestProblemError) in
                guard let value = placed.pathValues[name] else {
                    throw RequestProblemError(.missingPathValue(name: name))
                }
                return value
            }
        } catch {
            throw fail(error.problem)
        }

        var query = template.staticQuery.map { PercentEncoding.encode(String($0), allowing: .queryLiteral) } ?? ""
        if let parameterQuery = placed.query, !parameterQuery.isEmpty {
            query = query.isEmpty ? parameterQuery : query + "&" + parameterQuery
        }
        guard let url = URLJoiner.join(base: base, path: path, isAbsolute: template.isAbsolute, query: query) else {
            throw fail(.invalidURL)
        }

        var headers = configuration.headers
        headers.merge(endpoint.headers)
        if let parameterHeaders { headers.merge(parameterHeaders) }
        if let contentType = placed.contentType, !headers.contains(.contentType) {
            headers[.contentType] = contentType
        }
        for field in headers where !field.name.isValidToken || !isValidHeaderValue(field.value) {
            throw fail(.invalidHeader(name: field.name.rawValue))
        }

        return APIRequest(
            method: endpoint.method,
            url: url,
            headers: headers,
            body: placed.body,
            timeout: endpoint.timeout ?? configuration.timeout,
            endpoint: endpoint
        )
    }

    /// The base URL's text, or `nil` when the path is absolute.
    private static func baseURL(
        for endpoint: APIEndpoint,
        configuration: APIConfiguration
    ) -> Result<String?, APIError> {
        if endpoint.template.isAbsolute { return .success(nil) }
        let base: URL?
        if let declared = endpoint.baseURL {
            base = URL(string: declared)
        } else if let host = endpoint.host {
            guard let url = configuration.hosts[host] else {
                return .failure(APIError(.invalidRequest(.unknownHost(host)), endpoint: endpoint))
            }
            base = url
        } else {
            guard let url = configuration.baseURL else {
                return .failure(APIError(.invalidRequest(.missingBaseURL), endpoint: endpoint))
            }
            base = url
        }
        guard let base, base.scheme != nil, let host = base.host, !host.isEmpty else {
            return .failure(APIError(.invalidRequest(.invalidBaseURL), endpoint: endpoint))
        }
        return .success(base.absoluteString)
    }

    private static func isValidHeaderValue(_ value: String) -> Bool {
        !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }
}

/// Appends an endpoint path to a base URL.
enum URLJoiner {
    /// Joins `base` and `path` by appending (`https://h/api/v2` + `/users` → `https://h/api/v2/users`)
    /// whatever the slashes; a `nil` base means `path` is an absolute URL. The base URL's own query comes
    /// first, then `query`. Fragments are dropped.
    static func join(base: String?, path: String, isAbsolute: Bool, query: String) -> URL? {
        var result: String
        var baseQuery: Substring = ""
        if let base {
            var basePart = Substring(base)
            if let hash = basePart.firstIndex(of: "#") { basePart = basePart[..<hash] }
            if let question = basePart.firstIndex(of: "?") {
                baseQuery = basePart[basePart.index(after: question)...]
                basePart = basePart[..<question]
            }
            while basePart.hasSuffix("/") { basePart = basePart.dropLast() }
            var trimmedPath = Substring(path)
            while trimmedPath.hasPrefix("/") { trimmedPath = trimmedPath.dropFirst() }
            result = String(basePart)
            if !trimmedPath.isEmpty || path.hasPrefix("/") {
                result += "/"
                result += trimmedPath
            }
        } else {
            result = path
        }
        if !baseQuery.isEmpty || !query.isEmpty {
            result += "?"
            result += baseQuery
            if !baseQuery.isEmpty, !query.isEmpty { result += "&" }
            result += query
        }
        return URL(string: result)
    }
}
