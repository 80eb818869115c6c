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
    ///   - decoder: Decodes the body; `nil` for JSON with the configuration's `decoder`.
    /// - Throws: ``APIError``.
    public func request<Output: Decodable>(
        with parameter: Parameter,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> Output {
        let configuration = configuration ?? .current
        let response = try await send(with: parameter, configuration: configuration)
        return try ResponseDecoding.decode(
            Output.self,
            from: response,
            decoder: decoder ?? JSONResponseDecoder(configuration.decoder)
        )
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
        try await send(with: parameter, configuration: configuration ?? .current)
    }

    private func send(
        with parameter: Parameter, configuration: APIConfiguration
    ) async throws(APIError)
        -> APIResponse
    {
        let request = try makeRequest(with: parameter, using: configuration)
        return try await CallExecution.execute(request, configuration: configuration)
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

    /// Calls the endpoint and returns the raw response; discard it when only success matters.
    /// - Throws: ``APIError``.
    @discardableResult
    public func request(using configuration: APIConfiguration? = nil) async throws(APIError) -> APIResponse {
        try await request(with: (), using: configuration)
    }
}

/// Runs a built request through the plugins and the executor, then validates the status.
enum CallExecution {
    static func execute(
        _ request: APIRequest, configuration: APIConfiguration
    ) async throws(APIError)
        -> APIResponse
    {
        // What the executor cannot do fails here, before any I/O (never a silent fallback to memory).
        try configuration.executor.checkSupport(for: request)
        let response: APIResponse
        do {
            if Task.isCancelled { throw CancellationError() }
            let endpointPlugins = request.endpoint.plugins
            let plugins = endpointPlugins.isEmpty ? configuration.plugins : configuration.plugins + endpointPlugins
            response = try await PluginChain.run(request, plugins: plugins[...], executor: configuration.executor)
        } catch {
            throw APIError.wrapping(error, request: request)
        }
        let acceptable = request.endpoint.acceptableStatusCodes ?? configuration.acceptableStatusCodes
        guard acceptable.contains(response.statusCode) else {
            throw APIError(
                .unacceptableStatus(APIError.StatusCategory(statusCode: response.statusCode)),
                endpoint: request.endpoint,
                request: request,
                response: response
            )
        }
        return response
    }
}
