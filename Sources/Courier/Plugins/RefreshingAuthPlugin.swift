/// Adds a credential that can expire, and refreshes it when the server says it has.
///
/// You supply three things: how to read the current credential, how to refresh it, and how to add it
/// to a request. A response counts as an authentication failure when `isAuthFailure` says so (by
/// default: status 401).
///
/// - When many calls fail at once, **exactly one refresh runs**; the others wait for it and are sent
///   again with the new credential.
/// - **A call sent before a refresh ended shares that refresh's outcome**, success or failure, even when
///   its 401 arrives after the refresh ended: it is sent again with the refreshed credential, or fails
///   with the refresh's error. Only a call sent after the latest refresh ended starts a new one. (A call
///   counts as sent when the plugin reads its credential.) So a wave of 401s that spans several round
///   trips, as when URLSession sends a few requests to a host at a time, runs one refresh, even a failed one.
/// - Calls that start while a refresh is running wait for it instead of sending a stale credential.
/// - If the refresh throws, every call that shares it fails with that error (as ``APIError/Reason/other``
///   with the error as ``APIError/underlyingError``, or the ``APIError`` the refresh threw).
/// - Each call is refreshed and resent **at most once**: a credential that keeps failing ends in the
///   server's 401 (an ``APIError/StatusCategory/unauthorized`` error), never in a loop.
/// - The refresh may itself call endpoints through a configuration that holds this plugin: calls made
///   while the plugin refreshes pass through it untouched instead of waiting for themselves.
/// - A configuration's plugin adds the credential only to requests for the origins the configuration names (its
///   base URL and named hosts), and refreshes only for those; ``sent(to:)`` names others (``CredentialOrigins``).
/// - A call waiting for a refresh stops waiting as soon as its task is cancelled (it fails with
///   ``APIError/TransportProblem/cancelled``) or its deadline passes (``APIError/TransportProblem/timedOut``:
///   the call's timeout covers the refresh and the request sent again); the refresh itself runs on for the
///   other callers.
///
/// ```swift
/// let auth = RefreshingAuthPlugin<Tokens>(
///     credential: { await tokenStore.current },
///     refresh: { expired in try await tokenStore.refresh(expired) },   // store and return the new one
///     apply: { tokens, request in request.headers[.authorization] = "Bearer \(tokens.access)" }
/// )
/// configuration.plugins = [auth]
/// ```
public struct RefreshingAuthPlugin<Credential: Sendable>: APIPlugin {
    typealias CredentialProvider = @Sendable () async throws -> Credential?
    typealias Refresh = @Sendable (_ failed: Credential?) async throws -> Credential
    typealias Apply = @Sendable (Credential, inout APIRequest) -> Void

    private let provider: CredentialProvider
    private let refresh: Refresh
    private let apply: Apply
    private let isAuthFailure: @Sendable (APIResponse) -> Bool
    private let coordinator = RefreshCoordinator<Credential>()
    /// Where the credential goes (``sent(to:)``).
    var origins = CredentialOrigins.configuredOrigins

    /// Creates the plugin.
    ///
    /// - Parameters:
    ///   - credential: Reads the current credential; `nil` sends the request without one.
    ///   - refresh: Returns a fresh credential, given the one that failed. Store the result where
    ///     `credential` reads it.
    ///   - apply: Adds a credential to a request. Every header it adds or changes is marked as secret
    ///     (inserted into ``APIRequest/sensitiveNames``), so logs, descriptions and cross-origin redirects
    ///     never show it; a credential put in the query is redacted only when its name is secret.
    ///   - isAuthFailure: Whether a response means the credential was rejected; default: status 401.
    public init(
        credential: @escaping @Sendable () async throws -> Credential?,
        refresh: @escaping @Sendable (_ failed: Credential?) async throws -> Credential,
        apply: @escaping @Sendable (Credential, inout APIRequest) -> Void,
        isAuthFailure: @escaping @Sendable (APIResponse) -> Bool = { $0.statusCode == 401 }
    ) {
        self.provider = credential
        self.refresh = refresh
        self.apply = apply
        self.isAuthFailure = isAuthFailure
    }

    /// Sends the request with the current credential; on an authentication failure, takes the outcome of
    /// the refresh that ended since the request was sent, else of the running one, else of a new one, and
    /// sends the request again with the refreshed credential.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        if RefreshScope.active.contains(ObjectIdentifier(coordinator)) || !origins.allow(request) {
            // A call made by this plugin's own refresh (it must not wait for the refresh it is part of), or one to
            // an origin the credential is not for.
            return try await next(request)
        }
        let (credential, generation) = try await coordinator.current(provider, for: request)
        let response = try await next(authorized(request, with: credential))
        guard isAuthFailure(response) else { return response }
        try Task.checkCancellation()
        let fresh: Credential
        do {
            fresh = try await coordinator.refreshed(after: generation, failed: credential, refresh, for: request)
        } catch {
            request.recorder?.record(.authRefresh, detail: "failed")
            throw error
        }
        request.recorder?.record(.authRefresh, detail: "finished")
        return try await next(authorized(request, with: fresh))
    }

    private func authorized(_ original: APIRequest, with credential: Credential?) -> APIRequest {
        guard let credential else { return original }
        var request = original
        apply(credential, &request)
        // Whatever header the closure set holds the credential: mark it, as AuthPlugin marks its own.
        for field in request.headers where !original.headers.fields.contains(field) {
            request.sensitiveNames.insert(field.name)
        }
        return request
    }
}

/// Runs one refresh at a time and decides which refresh a failed call shares.
///
/// Every call records how many refreshes had ended when it read its credential (its generation). A call whose
/// credential was rejected shares the outcome of the latest refresh that ended since then, success or failure;
/// only a call read under the current generation starts a refresh, or joins the one running.
private actor RefreshCoordinator<Credential: Sendable> {
    /// What a refresh that ended leaves behind: its outcome and the generation it opened.
    struct Ended: Sendable {
        let outcome: Result<Credential, any Error>
        let generation: Int
    }

    /// How many refreshes have ended, whether they succeeded or failed.
    private var generation = 0
    /// The outcome of the latest refresh that ended; `nil` before the first one ends.
    private var latest: Result<Credential, any Error>?
    /// Whether a refresh is running.
    private var isRefreshing = false
    /// The calls waiting for the running refresh; each leaves early when its task is cancelled.
    private var waiters: [Int: CheckedContinuation<Ended, any Error>] = [:]
    private var nextWaiter = 0

    /// The credential to send and the generation it is sent under: the outcome of a running refresh, else the
    /// provider's credential.
    func current(
        _ provider: @Sendable () async throws -> Credential?, for request: APIRequest
    ) async throws -> (Credential?, Int) {
        if isRefreshing {
            request.recorder?.record(.authRefresh, detail: "joined")
            let ended = try await waitForRefresh(within: request)
            return (try ended.outcome.get(), ended.generation)
        }
        // Read before the provider runs: a refresh that ends while it runs is one this call was sent before.
        let sentUnder = generation
        return (try await provider(), sentUnder)
    }

    /// The outcome a call sent under `sentGeneration` shares after its credential was rejected: the latest
    /// refresh that ended since it was sent, else the running refresh, else a new one.
    func refreshed(
        after sentGeneration: Int,
        failed: Credential?,
        _ refresh: @escaping @Sendable (Credential?) async throws -> Credential, for request: APIRequest
    ) async throws -> Credential {
        let recorder = request.recorder
        if sentGeneration < generation, let latest {
            recorder?.record(.authRefresh, detail: "joined (already finished)")
            return try latest.get()
        }
        recorder?.record(.authRefresh, detail: isRefreshing ? "joined" : "started")
        if !isRefreshing {
            isRefreshing = true
            let scope = RefreshScope.active + [ObjectIdentifier(self)]
            // Unstructured so that it finishes for the other waiters even if this call is cancelled.
            Task {
                let result: Result<Credential, any Error>
                do {
                    result = .success(try await RefreshScope.$active.withValue(scope) { try await refresh(failed) })
                } catch {
                    result = .failure(error)
                }
                self.finish(result)
            }
        }
        return try await waitForRefresh(within: request).outcome.get()
    }

    private func finish(_ result: Result<Credential, any Error>) {
        generation += 1
        latest = result
        isRefreshing = false
        let ended = Ended(outcome: result, generation: generation)
        let waiting = waiters
        waiters = [:]
        for continuation in waiting.values {
            continuation.resume(returning: ended)
        }
    }

    /// Waits for the running refresh until it ends, the task is cancelled or `request`'s call deadline passes
    /// (`.timedOut`); a timer runs only while a call waits.
    private func waitForRefresh(within request: APIRequest) async throws -> Ended {
        let id = nextWaiter
        nextWaiter += 1
        var deadline: Task<Void, Never>?
        if let left = request.timeLeft {
            guard left > .zero else { throw request.deadlinePassed() }
            deadline = Task {
                do { try await Task.sleep(for: left) } catch { return }  // cancelled: the wait ended first
                self.leave(id, throwing: request.deadlinePassed())
            }
        }
        defer { deadline?.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.leave(id) }
        }
    }

    private func leave(_ id: Int, throwing error: any Error = CancellationError()) {
        waiters.removeValue(forKey: id)?.resume(throwing: error)
    }
}

/// The refreshing plugins whose refresh the current task is running.
private enum RefreshScope {
    @TaskLocal static var active: [ObjectIdentifier] = []
}
