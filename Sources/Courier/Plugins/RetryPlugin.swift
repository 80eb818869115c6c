import Foundation

/// When and how often a failed call is tried again.
///
/// A request whose body is a one-shot stream (`RequestBody.isReplayable` is `false`) is never retried: it
/// gets one attempt whatever the policy. Data, files and multipart forms of those are sent again from the start.
///
/// The default policy makes up to 3 attempts, for idempotent methods only (`GET`, `HEAD`, `PUT`,
/// `DELETE`, `OPTIONS`, `TRACE`), after status 408, 429, 500, 502, 503 or 504 or a transient transport
/// failure (timeout, lost connection, cannot connect). It waits 0.5 s, then 1 s, … (doubling, ±20 %
/// jitter), or what the server's `Retry-After` asks for (seconds or an HTTP date), never longer than
/// `maxDelay`.
///
/// Endpoints override the configuration's policy with a tag:
///
/// ```swift
/// @POST("/payments", tags: [.retryPolicy(.never)])
/// static var pay: APIParameterBuilder<Payment>? = .init { $0 }
///
/// @POST("/search", tags: [.retryPolicy(RetryPolicy(maxAttempts: 5, methods: [.post]))])
/// static var search: APIParameterBuilder<Query>? = .init { $0 }
/// ```
public struct RetryPolicy: Sendable {
    /// The total number of attempts, the first included; 1 means never retry.
    public var maxAttempts: Int
    /// The wait before the first retry; each later wait doubles.
    public var baseDelay: Duration
    /// The longest wait, whatever the backoff or `Retry-After` says.
    public var maxDelay: Duration
    /// The random spread around each backoff wait, as a fraction (0.2 is ±20 %).
    public var jitter: Double
    /// The methods that may be retried.
    public var methods: Set<HTTPMethod>
    /// The status codes that cause a retry.
    public var statusCodes: Set<Int>
    /// The transport failures that cause a retry; by default ``APIError/TransportProblem/transient``.
    public var transportProblems: Set<APIError.TransportProblem>
    /// Whether a `Retry-After` header sets the wait.
    public var honorsRetryAfter: Bool

    /// Creates a policy; every argument has the documented default.
    public init(
        maxAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(30),
        jitter: Double = 0.2,
        methods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, "TRACE"],
        statusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        transportProblems: Set<APIError.TransportProblem> = APIError.TransportProblem.transient,
        honorsRetryAfter: Bool = true
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.methods = methods
        self.statusCodes = statusCodes
        self.transportProblems = transportProblems
        self.honorsRetryAfter = honorsRetryAfter
    }

    /// Never retry.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// The backoff wait before retry number `retry` (1 for the first retry), jitter included.
    func backoff(beforeRetry retry: Int) -> Duration {
        let exponent = Double(max(0, retry - 1))
        let base = baseDelay.timeInterval * pow(2, exponent)
        let spread = jitter > 0 ? Double.random(in: -jitter...jitter) : 0
        return Self.clamp(seconds: base * (1 + spread), max: maxDelay)
    }

    /// The wait a `Retry-After` value asks for (delta-seconds or an HTTP date), capped by `maxDelay`.
    func delay(retryAfter value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0 {
            return Self.clamp(seconds: seconds, max: maxDelay)
        }
        guard let date = Self.httpDate(trimmed) else { return nil }
        return Self.clamp(seconds: date.timeIntervalSince(now), max: maxDelay)
    }

    private static func clamp(seconds: Double, max: Duration) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        // A server may send any number (`1e300`): anything past what a Duration holds is the cap.
        guard let milliseconds = Int64(exactly: (seconds * 1000).rounded()) else { return max }
        return min(.milliseconds(milliseconds), max)
    }

    /// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form RFC 9110 requires senders to use.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}

/// The tag key of a per-endpoint ``RetryPolicy``.
enum RetryPolicyKey: APITagKey {
    /// No per-endpoint policy: the plugin's own applies.
    static let defaultValue: RetryPolicy? = nil
}

extension APITag {
    /// Overrides the retry policy for one endpoint, e.g. `tags: [.retryPolicy(.never)]`; the ``RetryPlugin``
    /// (`.retry()` in the plugins) applies it.
    public static func retryPolicy(_ policy: RetryPolicy) -> APITag {
        APITag(RetryPolicyKey.self, policy)
    }
}

/// Retries failed calls according to a ``RetryPolicy`` (the endpoint's `.retryPolicy` tag, else its own).
///
/// Put it first in ``APIConfiguration/plugins`` so that the plugins after it (authentication, logging)
/// run again for every attempt. Cancelling the calling task stops a wait at once; the call then fails
/// with ``APIError/TransportProblem/cancelled``.
///
/// The call's ``APIRequest/timeout`` is one deadline for all attempts and waits together, not a timeout per
/// attempt: each attempt gets what is left of it, and a retry whose wait would reach the deadline is not
/// started: the call fails at once with ``APIError/TransportProblem/timedOut``, the last response (with the
/// server's `Retry-After`, when that was the wait) or failure attached.
public struct RetryPlugin: APIPlugin {
    /// The policy for endpoints without a `.retryPolicy` tag.
    let policy: RetryPolicy

    /// Creates the plugin (``APIPlugin/retry(_:)`` is the spelling to use).
    init(policy: RetryPolicy = RetryPolicy()) {
        self.policy = policy
    }

    /// Sends the request, and again after each retryable failure while attempts remain.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        let policy = request.endpoint.tags[RetryPolicyKey.self] ?? self.policy
        // A one-shot stream cannot be sent twice: such a request gets one attempt.
        guard policy.maxAttempts > 1, policy.methods.contains(request.method), request.body.isReplayable else {
            return try await next(request)
        }
        // The call's deadline covers every attempt and every wait; a request whose call the pipeline did not start
        // (a plugin called on its own) starts its deadline here.
        var request = request
        if request.callStarted == 0 { request.callStarted = APIRequest.now }
        var attempt = 1
        // What the traffic governors inside this plugin ask before each retry: their origins' retry budgets (none
        // until the program makes a governor with a budget).
        let gate = RetryGate.forCall()
        while true {
            let outcome: Result<APIResponse, APIError>
            do {
                let current = request
                if let gate {
                    outcome = .success(try await RetryGate.$current.withValue(gate) { try await next(current) })
                } else {
                    outcome = .success(try await next(current))
                }
            } catch {
                outcome = .failure(APIError.wrapping(error, request: request))
            }
            let wait: Duration
            switch outcome {
            case .success(let response):
                guard attempt < policy.maxAttempts, policy.statusCodes.contains(response.statusCode) else {
                    return response
                }
                let header = policy.honorsRetryAfter ? response.headers[.retryAfter] : nil
                let retryAfter = header.flatMap { policy.delay(retryAfter: $0) }
                wait = retryAfter ?? policy.backoff(beforeRetry: attempt)
                if !request.hasTime(toWait: wait) {
                    // The retry cannot start in time: the call ends as a timeout, with the response (and the
                    // server's `Retry-After`) attached.
                    throw request.deadlinePassed(response: response)
                }
                // A governor's retry budget that is spent ends the call as its attempt did.
                guard gate?.allowsRetry(of: request) ?? true else { return response }
                request.recorder?.record(
                    .retryScheduled, statusCode: response.statusCode, delay: wait,
                    detail: "status \(response.statusCode)" + (header.map { ", Retry-After: \($0)" } ?? ""))
            case .failure(let failure):
                guard attempt < policy.maxAttempts, let problem = failure.reason.transportProblem,
                    policy.transportProblems.contains(problem)
                else { throw failure }
                wait = policy.backoff(beforeRetry: attempt)
                if !request.hasTime(toWait: wait) {
                    // An attempt that ran into the deadline already says so; any other failure becomes the timeout.
                    if problem == .timedOut { throw failure }
                    throw request.deadlinePassed(after: failure)
                }
                guard gate?.allowsRetry(of: request) ?? true else { throw failure }
                request.recorder?.record(.retryScheduled, delay: wait, detail: "\(problem)")
            }
            do {
                try await Task.sleep(for: wait)
            } catch {
                throw APIError(
                    .transport(.cancelled), endpoint: request.endpoint, request: request, underlyingError: error)
            }
            attempt += 1
        }
    }
}

extension APIRequest {
    /// Whether a retry that waits `wait` first starts before the call's deadline.
    fileprivate func hasTime(toWait wait: Duration) -> Bool {
        guard let left = timeLeft else { return true }
        return wait < left
    }
}

extension APIPlugin where Self == RetryPlugin {
    /// Retries with `policy` (default: `RetryPolicy()`, the policy described on ``RetryPolicy``).
    public static func retry(_ policy: RetryPolicy = RetryPolicy()) -> RetryPlugin {
        RetryPlugin(policy: policy)
    }
}
