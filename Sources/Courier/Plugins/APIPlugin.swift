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
/// A plugin is one method. One that changes the request changes it before calling `next`; one that looks at
/// the response or the error does so after:
///
/// ```swift
/// struct RequestID: APIPlugin {
///     func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
///         var request = request
///         request.headers["X-Request-ID"] = UUID().uuidString
///         return try await next(request)
///     }
/// }
///
/// struct Timing: APIPlugin {
///     func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
///         let start = ContinuousClock.now
///         defer { print("\(request.endpoint) took \(ContinuousClock.now - start)") }
///         return try await next(request)
///     }
/// }
/// ```
public protocol APIPlugin: Sendable {
    /// Runs the call: changes `request` if it needs to, calls `next` zero, one or several times, and returns
    /// the response (changed or not) or throws. It sees every response that arrives, whatever its status
    /// (status validation comes after the chain).
    func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse
}
