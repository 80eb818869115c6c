/// The rest of a plugin chain: the plugins after this one, then the executor.
public typealias APIPluginNext = @Sendable (APIRequest) async throws -> APIResponse

/// A middleware around every call: it may change the request, observe it, call the rest of the chain
/// zero, one or many times, transform or replace the response, or throw.
///
/// Plugins are set on ``APIConfiguration/plugins`` and per endpoint (`@GET("/x", plugins: [...])`).
/// The first plugin is the outermost: configuration plugins run first, in order, then the endpoint's;
/// on the way back the order reverses. Status validation and decoding happen after the whole chain, so
/// every plugin sees every response, whatever its status.
///
/// A plugin sees the endpoint through `request.endpoint`: its method, path template, host and tags.
///
/// ## Implementing
///
/// Most plugins need one of the hooks, whose defaults do nothing:
///
/// ```swift
/// struct RequestID: APIPlugin {
///     func prepare(_ request: APIRequest) async throws -> APIRequest {
///         var request = request
///         request.headers["X-Request-ID"] = UUID().uuidString
///         return request
///     }
/// }
/// ```
///
/// Plugins that control the flow (retry, caching, refreshing credentials) implement
/// ``intercept(_:next:)`` instead:
///
/// ```swift
/// struct Timing: APIPlugin {
///     func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
///         let start = ContinuousClock.now
///         defer { print("\(request.endpoint) took \(ContinuousClock.now - start)") }
///         return try await next(request)
///     }
/// }
/// ```
public protocol APIPlugin: Sendable {
    /// Runs the call: the default implementation calls ``prepare(_:)``, ``willSend(_:)``, `next`,
    /// ``didReceive(_:for:)`` and ``process(_:)`` in that order.
    func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse

    /// Returns the request to send; the default returns it unchanged.
    func prepare(_ request: APIRequest) async throws -> APIRequest

    /// Observes the request just before it is sent; the default does nothing.
    func willSend(_ request: APIRequest) async

    /// Observes the outcome of the rest of the chain; the default does nothing.
    func didReceive(_ result: Result<APIResponse, APIError>, for request: APIRequest) async

    /// Returns the response to pass back, or throws; the default returns it unchanged. It runs for every
    /// response that arrives, whatever its status (status validation comes after the chain).
    func process(_ response: APIResponse) async throws -> APIResponse
}

extension APIPlugin {
    /// Calls ``prepare(_:)``, ``willSend(_:)``, `next`, ``didReceive(_:for:)`` and ``process(_:)``.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        let prepared = try await prepare(request)
        await willSend(prepared)
        let response: APIResponse
        do {
            response = try await next(prepared)
        } catch {
            let wrapped = APIError.wrapping(error, request: prepared)
            await didReceive(.failure(wrapped), for: prepared)
            throw wrapped
        }
        await didReceive(.success(response), for: prepared)
        return try await process(response)
    }

    /// Returns `request` unchanged.
    public func prepare(_ request: APIRequest) async throws -> APIRequest { request }

    /// Does nothing.
    public func willSend(_ request: APIRequest) async {}

    /// Does nothing.
    public func didReceive(_ result: Result<APIResponse, APIError>, for request: APIRequest) async {}

    /// Returns `response` unchanged.
    public func process(_ response: APIResponse) async throws -> APIResponse { response }
}
