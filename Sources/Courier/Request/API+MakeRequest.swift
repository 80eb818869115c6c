extension API {
    /// Builds the request for a call with `parameter`, without any I/O.
    ///
    /// - Parameters:
    ///   - parameter: The call's parameter, of the endpoint's declared type.
    ///   - configuration: The configuration to build with; `nil` for ``APIConfiguration/current``.
    /// - Throws: ``APIError`` with an ``APIError/Reason/invalidRequest(_:)`` reason when the endpoint or
    ///   the parameter cannot make a valid request.
    public func makeRequest(
        with parameter: Parameter, using configuration: APIConfiguration? = nil
    ) throws(APIError)
        -> APIRequest
    {
        try RequestFactory.make(
            endpoint: endpoint,
            parameters: wrappedValue?.build(parameter) ?? .none,
            parameterHeaders: headerBuilder?(parameter),
            configuration: configuration ?? .current
        )
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
