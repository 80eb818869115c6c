extension APIRequest {
    /// Sends this request through the configuration's plugins, executor and status validation, and decodes
    /// the response as `Output`, the type the call site asks for — as `$endpoint.request(with:)` does for a
    /// request it builds. Use it for a request you already have: a changed copy of a built one, or the next
    /// page of a list.
    ///
    /// ```swift
    /// var next = try GitHub.$repos.makeRequest(with: "apple")
    /// next.url = nextPageURL                        // from the previous page's Link header
    /// let repos: [Repo] = try await next.send()
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: The configuration for this call; `nil` for ``APIConfiguration/current``.
    ///   - decoder: Decodes the body; `nil` for the endpoint's decoder, else the configuration's
    ///     ``APIConfiguration/responseDecoder``, else JSON with the configuration's `decoder`.
    /// - Throws: ``APIError``.
    public func send<Output: Decodable>(
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> Output {
        // Decoded here rather than through `DecodedResponse<Output>`, whose generic type would be made at run time
        // on every call.
        let configuration = configuration ?? .current
        let response = try await CallExecution.execute(self, configuration: configuration, decoder: decoder)
        let decoder = ResponseDecoding.decoder(decoder, for: endpoint, configuration: configuration)
        return try ResponseDecoding.decode(Output.self, from: response, decoder: decoder)
    }

    /// Sends this request and returns the decoded value with the response's status and headers; see
    /// ``DecodedResponse``.
    ///
    /// ```swift
    /// let page: DecodedResponse<[Repo]> = try await next.send()
    /// ```
    /// - Throws: ``APIError``.
    public func send<Value: Decodable>(
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> DecodedResponse<Value> {
        let configuration = configuration ?? .current
        let response = try await CallExecution.execute(self, configuration: configuration, decoder: decoder)
        let decoder = ResponseDecoding.decoder(decoder, for: endpoint, configuration: configuration)
        return DecodedResponse(
            value: try ResponseDecoding.decode(Value.self, from: response, decoder: decoder), response: response)
    }

    /// Sends this request through the configuration's plugins, executor and status validation, and returns
    /// the raw response; discard it when only success matters.
    /// - Parameter configuration: The configuration for this call; `nil` for ``APIConfiguration/current``.
    /// - Throws: ``APIError``.
    @discardableResult
    public func send(using configuration: APIConfiguration? = nil) async throws(APIError) -> APIResponse {
        try await CallExecution.execute(self, configuration: configuration ?? .current)
    }
}
