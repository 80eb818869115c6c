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
    ///     ``APIConfiguration/responseDecoder``.
    /// - Throws: ``APIError``.
    public func send<Output: Decodable>(
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> Output {
        let configuration = configuration ?? .current
        return try await recording(configuration).call(using: configuration, decoder: decoder)
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
        return try await recording(configuration).call(using: configuration, decoder: decoder)
    }

    /// Sends this request through the configuration's plugins, executor and status validation, and returns
    /// the raw response; discard it when only success matters.
    /// - Parameter configuration: The configuration for this call; `nil` for ``APIConfiguration/current``.
    /// - Throws: ``APIError``.
    @discardableResult
    public func send(using configuration: APIConfiguration? = nil) async throws(APIError) -> APIResponse {
        let configuration = configuration ?? .current
        return try await recording(configuration).call(using: configuration)
    }

    /// This request with a new recorder for a call with `configuration` (a request sent again, a response's
    /// request, must not add to the timeline of the call it came from); itself when there is nothing to change.
    private func recording(_ configuration: APIConfiguration) -> APIRequest {
        if recorder == nil, configuration.observers.isEmpty, !configuration.reportsAtCallEnd(endpoint) { return self }
        var request = self
        request.recorder = CallRecorder.make(for: self, configuration: configuration, start: .now)
        return request
    }

    // The calls themselves, for a request that carries its recorder (or none). Decoded here rather than through
    // `DecodedResponse<Output>`, whose generic type would be made at run time on every call.

    func call<Output: Decodable>(
        using configuration: APIConfiguration, decoder: (any ResponseDecoder)?
    ) async throws(APIError) -> Output {
        do {
            let response = try await CallExecution.execute(self, configuration: configuration, decoder: decoder)
            let decoder = resolvedOptions(for: configuration).decoder(forCall: decoder)
            let output = try ResponseDecoding.decode(Output.self, from: response, decoder: decoder)
            recorder?.decoded(response, request: self)
            return output
        } catch {
            throw recorder?.finished(error, request: self) ?? error
        }
    }

    func call<Value: Decodable>(
        using configuration: APIConfiguration, decoder: (any ResponseDecoder)?
    ) async throws(APIError) -> DecodedResponse<Value> {
        do {
            let response = try await CallExecution.execute(self, configuration: configuration, decoder: decoder)
            let decoder = resolvedOptions(for: configuration).decoder(forCall: decoder)
            let value: Value = try ResponseDecoding.decode(Value.self, from: response, decoder: decoder)
            recorder?.decoded(response, request: self)
            return DecodedResponse(value: value, response: response)
        } catch {
            throw recorder?.finished(error, request: self) ?? error
        }
    }

    func call(using configuration: APIConfiguration) async throws(APIError) -> APIResponse {
        do {
            let response = try await CallExecution.execute(self, configuration: configuration)
            recorder?.finish(response, request: self)
            return response
        } catch {
            throw recorder?.finished(error, request: self) ?? error
        }
    }
}
