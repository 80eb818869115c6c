extension API {
    /// Calls the endpoint with `parameter` and decodes the response as `Output`, the type the call site
    /// asks for:
    ///
    /// ```swift
    /// let user: User = try await GitHub.$user.request(with: "octocat")     // JSON
    /// let raw: Data = try await GitHub.$user.request(with: "octocat")      // the bytes
    /// let text: String = try await GitHub.$user.request(with: "octocat")   // charset from Content-Type
    /// let maybe: User? = try await GitHub.$user.request(with: "octocat")   // nil for an empty body
    /// ```
    ///
    /// - Parameters:
    ///   - parameter: The call's parameter.
    ///   - configuration: The configuration for this call; `nil` for ``APIConfiguration/current``.
    ///   - decoder: Decodes the body; `nil` for the endpoint's decoder, else the configuration's
    ///     ``APIConfiguration/responseDecoder``, else JSON with the configuration's `decoder`.
    /// - Throws: ``APIError``.
    public func request<Output: Decodable>(
        with parameter: Parameter,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> Output {
        let configuration = configuration ?? .current
        return try await makeRequest(with: parameter, using: configuration)
            .send(using: configuration, decoder: decoder)
    }

    /// Calls the endpoint with `parameter` and decodes the response as `type`.
    public func request<Output: Decodable>(
        with parameter: Parameter,
        as type: Output.Type,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> Output {
        try await request(with: parameter, using: configuration, decoder: decoder)
    }

    /// Calls the endpoint with `parameter` and returns the decoded value with the response's status and
    /// headers, for lists and resources whose headers matter:
    ///
    /// ```swift
    /// let repos: DecodedResponse<[Repo]> = try await GitHub.$repos.request(with: "apple")
    /// let etag = repos.headers["ETag"]
    /// ```
    /// - Throws: ``APIError``.
    public func request<Value: Decodable>(
        with parameter: Parameter,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> DecodedResponse<Value> {
        let configuration = configuration ?? .current
        return try await makeRequest(with: parameter, using: configuration)
            .send(using: configuration, decoder: decoder)
    }

    /// Calls the endpoint with `parameter` and returns the raw response: status, headers, body and the
    /// request that produced it. Use the call without a result (`try await X.$y.request(with: p)`) when
    /// only success matters.
    ///
    /// The status is validated as in every call form; to see every status, accept them all with
    /// `acceptableStatusCodes: .any`.
    /// - Throws: ``APIError``.
    @discardableResult
    public func request(
        with parameter: Parameter,
        using configuration: APIConfiguration? = nil
    ) async throws(APIError) -> APIResponse {
        let configuration = configuration ?? .current
        return try await makeRequest(with: parameter, using: configuration).send(using: configuration)
    }
}

extension API where Parameter == Void {
    /// Calls the endpoint and decodes the response as `Output`, the type the call site asks for.
    /// - Throws: ``APIError``.
    public func request<Output: Decodable>(
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> Output {
        try await request(with: (), using: configuration, decoder: decoder)
    }

    /// Calls the endpoint and decodes the response as `type`.
    /// - Throws: ``APIError``.
    public func request<Output: Decodable>(
        as type: Output.Type,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> Output {
        try await request(with: (), using: configuration, decoder: decoder)
    }

    /// Calls the endpoint and returns the decoded value with the response's status and headers.
    /// - Throws: ``APIError``.
    public func request<Value: Decodable>(
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> DecodedResponse<Value> {
        try await request(with: (), using: configuration, decoder: decoder)
    }

    /// Calls the endpoint and returns the raw response; discard it when only success matters.
    /// - Throws: ``APIError``.
    @discardableResult
    public func request(using configuration: APIConfiguration? = nil) async throws(APIError) -> APIResponse {
        try await request(with: (), using: configuration)
    }
}
