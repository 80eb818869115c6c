// Public API kept until the next major version (semantic versioning), each with its replacement in its message.

extension API where Parameter == Void {
    /// Calls the endpoint and returns the decoded value with the response's status and headers.
    /// - Throws: ``APIError``.
    @available(*, deprecated, message: "write request(with: (), …): one spelling per call form")
    public func request<Value: Decodable>(
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> DecodedResponse<Value> {
        try await request(with: (), progress: progress, using: configuration, decoder: decoder)
    }
}
