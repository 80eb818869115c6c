extension API {
    /// Builds the request for a call with `parameter`, without any I/O.
    ///
    /// - Parameters:
    ///   - parameter: The call's parameter, of the endpoint's declared type.
    ///   - configuration: The configuration to build with; `nil` for ``APIConfiguration/current``.
    /// - Throws: ``APIError`` with an ``APIError/Reason/invalidRequest(_:)`` reason when the endpoint or
    ///   the parameter cannot make a valid request.
    public func makeRequest(
        with parameter: Parameter, using configuration: consuming APIConfiguration? = nil
    ) throws(APIError)
        -> APIRequest
    {
        try makeRequest(with: parameter, using: configuration, progress: nil)
    }

    /// Builds the request for a call with `parameter`, reporting to `progress`.
    func makeRequest(
        with parameter: Parameter, using configuration: consuming APIConfiguration?, progress: TransferProgress?
    ) throws(APIError)
        -> APIRequest
    {
        var parameterHeaders = headerBuilder?(parameter)
        if !callHeaders.isEmpty {
            parameterHeaders =
                parameterHeaders.map {
                    var headers = $0; headers.merge(callHeaders); return headers
                } ?? callHeaders
        }
        guard let builder = wrappedValue else {
            // A nil builder means "no parameters": on an endpoint whose parameter only a header builder reads,
            // or that has none. On any other the call's value would silently not be sent.
            guard Parameter.self == Void.self || headerBuilder != nil else {
                throw APIError(
                    .invalidRequest(.missingParameterBuilder(String(describing: Parameter.self))), endpoint: endpoint)
            }
            return try make(
                parameters: .none, parameterHeaders: parameterHeaders, configuration: configuration, progress: progress)
        }
        return try make(
            parameters: builder.build(parameter), parameterHeaders: parameterHeaders, configuration: configuration,
            progress: progress)
    }

    private func make(
        parameters: Parameters, parameterHeaders: HTTPHeaders?, configuration: consuming APIConfiguration?,
        progress: TransferProgress?
    ) throws(APIError) -> APIRequest {
        // Consumed and unwrapped without a copy: copying a configuration costs one retain per stored reference.
        if let configuration = consume configuration {
            return try RequestFactory.make(
                endpoint: endpoint, parameters: parameters, parameterHeaders: parameterHeaders,
                configuration: configuration, progress: progress)
        }
        return try RequestFactory.make(
            endpoint: endpoint, parameters: parameters, parameterHeaders: parameterHeaders, configuration: .current,
            progress: progress)
    }
}

extension API where Parameter == Void {
    /// Builds the request for a call of an endpoint without parameters, without any I/O.
    ///
    /// - Parameter configuration: The configuration to build with; `nil` for ``APIConfiguration/current``.
    /// - Throws: ``APIError`` with an ``APIError/Reason/invalidRequest(_:)`` reason when the endpoint
    ///   cannot make a valid request.
    public func makeRequest(using configuration: APIConfiguration? = nil) throws(APIError) -> APIRequest {
        try makeRequest(with: (), using: configuration)
    }
}
