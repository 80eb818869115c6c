/// Runs a request through plugins and then the executor.
enum PluginChain {
    static func run(
        _ request: APIRequest,
        plugins: ArraySlice<any APIPlugin>,
        executor: any APIExecutor
    ) async throws -> APIResponse {
        guard let first = plugins.first else {
            return try await sendAttempt(request, to: executor)
        }
        let rest = plugins.dropFirst()
        return try await first.intercept(request) { request in
            if rest.isEmpty, let invalid = request.headers.firstInvalidName {
                // Plugins may add headers after the request was built and checked: check them again.
                throw APIError(.invalidRequest(.invalidHeader(name: invalid.rawValue)), endpoint: request.endpoint)
            }
            return try await run(request, plugins: rest, executor: executor)
        }
    }

    /// Sends the last plugin's `request` to the transport with what is left of the call's deadline as its timeout
    /// (nothing left: a `.timedOut` error, and no attempt). The response's request is the call's: its timeout, not
    /// what was left of it, and no start, so that sending it again starts a call of its own.
    static func sendAttempt(_ request: APIRequest, to executor: any APIExecutor) async throws -> APIResponse {
        let attempt = try request.boundedByDeadline()
        var response = try await send(attempt, to: executor)
        if response.request.timeout == attempt.timeout { response.request.timeout = request.timeout }
        response.request.callStarted = 0
        return response
    }

    /// Sends `request` to the transport (a call without plugins: its one attempt is the whole call); a call that
    /// records its timeline (from the start, or from a plugin that asked for it) or has outcome observers (which
    /// measure each attempt) marks where each attempt enters the transport and how it ends.
    @inline(__always)
    static func send(_ request: APIRequest, to executor: any APIExecutor) async throws -> APIResponse {
        if request.recorder?.recordsAttempts != true { return try await executor.execute(request) }
        return try await RecordingExecutor(base: executor).execute(request)
    }
}
