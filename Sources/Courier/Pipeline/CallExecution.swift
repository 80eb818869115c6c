/// The call pipeline: every call form (`request(with:)`, `download`, `stream`, `APIRequest.send()`)
/// hands its built request to ``execute(_:configuration:)``, which runs
///
///     resolved options → executor support check → plugins (configuration's, then the endpoint's)
///       → transport stages (the response cache) → executor → status validation
///
/// and the typed call forms then decode with ``ResponseDecoding``.
///
/// The call's ``APIRequest/timeout`` is one deadline for all of it, counted from here: each attempt's executor
/// gets what is left (`APIRequest+Deadline.swift`).
///
/// A call made with ``APIConfiguration/observers`` carries a `CallRecorder` on its request: the call forms record
/// its start, build, decoding and end, ``RecordingExecutor`` each attempt, and the layers between (retry, cache,
/// refresh, executor) what they decide.
///
/// Extension points:
/// - a stage between the plugins and the executor (it decides from the final request, after the plugins
///   that add credentials) is an `APIExecutor` wrapping the next one, added in ``transport(for:)``;
/// - a new call form sets what it needs on the request (`APIRequest.responseDelivery`,
///   ``APIRequest/progress``) and calls ``execute(_:configuration:)``; it never re-implements a step.
enum CallExecution {
    /// Runs `request` through the plugins and the executor, then validates the status. `decoder` is the
    /// call's own `decoder:` argument, kept on a status error for ``APIError/decodeBody(as:using:)``.
    static func execute(
        _ request: APIRequest, configuration: APIConfiguration, decoder: (any ResponseDecoder)? = nil
    ) async throws(APIError)
        -> APIResponse
    {
        // What the executor cannot do fails here, before any I/O (never a silent fallback to memory).
        try configuration.executor.checkSupport(for: request)
        let options = request.resolvedOptions(for: configuration)
        let response: APIResponse
        do {
            if Task.isCancelled { throw CancellationError() }
            let plugins = options.plugins
            let executor = transport(for: configuration)
            if plugins.isEmpty {
                // Without plugins the executor is called here: one async frame less on every such call. Its one
                // attempt is the whole call, so the executor's own deadline is the call's.
                response = try await PluginChain.send(request, to: executor)
            } else {
                // The call's deadline starts now and covers every attempt, wait and refresh the plugins make
                // (APIRequest+Deadline.swift); the configuration's plugins add credentials only for the origins it
                // names.
                var started = request
                started.callStarted = APIRequest.now
                started.credentialContext = .configuration(configuration.configuredOrigins)
                response = try await PluginChain.run(started, plugins: plugins[...], executor: executor)
            }
        } catch {
            throw APIError.wrapping(error, request: request)
        }
        try validateStatus(of: response, for: request, options: options, decoder: decoder)
        return response
    }

    /// The executor the plugin chain ends in: the configuration's executor wrapped by the stages that sit
    /// between the plugins and the I/O, outermost first. A new stage is one more wrapper here.
    static func transport(for configuration: APIConfiguration) -> any APIExecutor {
        var executor = configuration.executor
        // The cache decides from the final request, after the plugins that add credentials.
        if let cache = configuration.cache { executor = CachingExecutor(cache: cache, base: executor) }
        return executor
    }

    /// Throws ``APIError/Reason/unacceptableStatus(_:)`` unless the call's resolved options accept the response's
    /// status.
    static func validateStatus(
        of response: APIResponse, for request: APIRequest, options: ResolvedOptions,
        decoder: (any ResponseDecoder)? = nil
    ) throws(APIError) {
        // A WebSocket's `101 Switching Protocols`, with its socket.
        if response.body.webSocket != nil { return }
        guard options.acceptableStatusCodes.contains(response.statusCode) else {
            var error = APIError(
                .unacceptableStatus(APIError.StatusCategory(statusCode: response.statusCode)),
                endpoint: request.endpoint,
                request: request,
                response: response
            )
            // An error body is not inside the success envelope: decode it with the key-path decoder's base.
            let resolved = options.decoder(forCall: decoder)
            error.responseDecoder = (resolved as? KeyPathResponseDecoder)?.base ?? resolved
            throw error
        }
    }
}

/// The outermost stage of the transport of a call that records its timeline: each attempt's start and end.
struct RecordingExecutor: APIExecutor {
    let base: any APIExecutor

    func execute(_ request: APIRequest) async throws -> APIResponse {
        request.recorder?.record(.attemptStarted)
        do {
            var response = try await base.execute(request)
            // A response shared with an identical call in flight, or made by an executor from a request of its
            // own, must still lead to this call's timeline.
            if response.request.recorder !== request.recorder { response.request.recorder = request.recorder }
            request.recorder?.received(response)
            return response
        } catch {
            request.recorder?.attemptEnded(.failure(error), request: request)
            throw error
        }
    }

    var supportedTransfers: TransferFeatures { base.supportedTransfers }
}
