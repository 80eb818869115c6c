import Dispatch

/// The call's deadline across attempts: ``APIRequest/timeout`` counted once, from the start of the call.
///
/// `CallExecution` stamps the start (`callStarted`) on a call that has plugins, before the first one runs; each
/// attempt that reaches the transport (`PluginChain.send`) gets what is left as its `timeout`, so an executor
/// bounds the attempt by the rest of the call's deadline, counted from when it starts the attempt, as any executor
/// written against 1.0 does. An attempt with nothing left is not sent. ``RetryPlugin`` does not start a retry whose
/// wait reaches the deadline, and ``RefreshingAuthPlugin`` stops waiting for a refresh when it passes (a timer runs
/// only while a call waits).
///
/// The start is stamped and the timeout read at different places on purpose: a plugin that changes `timeout`
/// (a longer one for an upload) moves the deadline of the whole call, as the endpoint's `timeout:` would have.
extension APIRequest {
    /// What is left of the call's deadline now (zero or less when it has passed); `nil` for a request whose call
    /// has not been started by the pipeline (then the executor's attempt is the whole call).
    var timeLeft: Duration? {
        guard callStarted != 0 else { return nil }
        // Subtracting the time elapsed, never adding the timeout to an instant: a timeout too long to count
        // (`.seconds(Int64.max)`) must not overflow.
        let now = DispatchTime.now().uptimeNanoseconds
        return timeout - .nanoseconds(Int64(clamping: now &- min(callStarted, now)))
    }

    /// Now, as ``callStarted`` counts (never 0, which means no start).
    static var now: UInt64 { max(DispatchTime.now().uptimeNanoseconds, 1) }

    /// The request one attempt sends: with `timeout` set to what is left of the call's deadline. Throws
    /// ``APIError/TransportProblem/timedOut`` when nothing is left, before any I/O.
    func boundedByDeadline() throws(APIError) -> APIRequest {
        guard let left = timeLeft else { return self }
        guard left > .zero else { throw deadlinePassed() }
        var attempt = self
        attempt.timeout = left
        return attempt
    }

    /// The error of a call whose deadline passed outside an attempt (before a retry, during a wait for a refresh).
    func deadlinePassed(response: APIResponse? = nil, after failure: (any Error)? = nil) -> APIError {
        APIError(.transport(.timedOut), endpoint: endpoint, request: self, response: response, underlyingError: failure)
    }
}
