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
    /// To watch an upload (or the response arriving), pass a ``TransferProgress`` and read it from another task:
    ///
    /// ```swift
    /// let progress = TransferProgress()
    /// let watcher = Task { for await snapshot in progress { print(snapshot.sent, "bytes sent") } }
    /// let photo: Photo = try await Photos.$upload.request(with: file, progress: progress)
    /// await watcher.value
    /// ```
    ///
    /// - Parameters:
    ///   - parameter: The call's parameter.
    ///   - progress: Where bytes sent and received are reported while the call runs; it ends when the call
    ///     returns or throws. Needs an executor that declares ``TransferFeatures/progress``.
    ///   - configuration: The configuration for this call; `nil` for ``APIConfiguration/current``.
    ///   - decoder: Decodes the body; `nil` for the endpoint's decoder, else the configuration's
    ///     ``APIConfiguration/responseDecoder``.
    /// - Throws: ``APIError``.
    public func request<Output: Decodable>(
        with parameter: Parameter,
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> Output {
        let configuration = configuration ?? .current
        defer { progress?.finish() }
        return try await makeCall(with: parameter, using: configuration, progress: progress)
            .call(using: configuration, decoder: decoder)
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
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> DecodedResponse<Value> {
        let configuration = configuration ?? .current
        defer { progress?.finish() }
        return try await makeCall(with: parameter, using: configuration, progress: progress)
            .call(using: configuration, decoder: decoder)
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
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil
    ) async throws(APIError) -> APIResponse {
        let configuration = configuration ?? .current
        defer { progress?.finish() }
        return try await makeCall(with: parameter, using: configuration, progress: progress)
            .call(using: configuration)
    }
}

extension API {
    /// The request of a call with `parameter`: with a recorder, started before the request was built, when the
    /// configuration has observers.
    func makeCall(
        with parameter: Parameter, using configuration: APIConfiguration, progress: TransferProgress?
    ) throws(APIError) -> APIRequest {
        if configuration.observers.isEmpty, !configuration.reportsAtCallEnd(endpoint) {
            return try makeRequest(with: parameter, using: configuration, progress: progress)
        }
        let start = ContinuousClock.now
        // Made before the request is a `var`: passing a variable to the recorder would copy it.
        let built = try makeRequest(with: parameter, using: configuration, progress: progress)
        let recorder = CallRecorder.make(for: built, configuration: configuration, start: start)
        var request = consume built
        request.recorder = recorder
        return request
    }
}

extension API where Parameter == Void {
    /// Calls the endpoint and decodes the response as `Output`, the type the call site asks for.
    /// - Throws: ``APIError``.
    public func request<Output: Decodable>(
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> Output {
        try await request(with: (), progress: progress, using: configuration, decoder: decoder)
    }

    /// Calls the endpoint and returns the decoded value with the response's status and headers.
    /// - Throws: ``APIError``.
    public func request<Value: Decodable>(
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError) -> DecodedResponse<Value> {
        try await request(with: (), progress: progress, using: configuration, decoder: decoder)
    }

    /// Calls the endpoint and returns the raw response; discard it when only success matters.
    /// - Throws: ``APIError``.
    @discardableResult
    public func request(
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil
    ) async throws(APIError) -> APIResponse {
        try await request(with: (), progress: progress, using: configuration)
    }
}
