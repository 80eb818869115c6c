import Foundation

/// The settings an endpoint declares besides its method, path and parameter type, said once: the
/// declaration (`@GET("/x", headers: …, timeout: …)`) fills them, ``APIEndpoint`` stores them, and
/// plugins and executors read them as `request.endpoint.timeout`, `request.endpoint.tags`, ….
///
/// Every option left `nil` (or empty) falls back to the configuration's value.
public struct EndpointOptions: Sendable {
    /// Headers sent with every call.
    public var headers: HTTPHeaders
    /// A named host that the configuration maps to a base URL; `nil` for the configuration's base URL.
    public var host: APIHost?
    /// A base URL for this endpoint only, overriding the configuration and ``host``.
    public var baseURL: URL?
    /// Where parameters go (`.query`, `.json`, `.form`); `nil` for the method's default.
    public var encoding: ParameterEncoding?
    /// The deadline of each call; `nil` for the configuration's.
    public var timeout: Duration?
    /// The status codes treated as success; `nil` for the configuration's.
    public var acceptableStatusCodes: AcceptableStatusCodes?
    /// What to do when the server redirects; `nil` for the configuration's policy.
    public var redirectPolicy: RedirectPolicy?
    /// The most response bytes held in memory; `nil` for the configuration's limit.
    public var maxResponseBytes: Int?
    /// Typed metadata for plugins and executors.
    public var tags: APITags
    /// Plugins for this endpoint only, run inside the configuration's plugins.
    public var plugins: [any APIPlugin]
    /// Decodes this endpoint's response bodies (an XML service, a key path inside an envelope); `nil` for
    /// the configuration's ``APIConfiguration/responseDecoder``. A call's `decoder:` argument wins.
    public var decoder: (any ResponseDecoder)?

    /// Creates options; every argument has a default that defers to the configuration.
    public init(
        headers: HTTPHeaders = [:],
        host: APIHost? = nil,
        baseURL: URL? = nil,
        encoding: ParameterEncoding? = nil,
        timeout: Duration? = nil,
        acceptableStatusCodes: AcceptableStatusCodes? = nil,
        redirectPolicy: RedirectPolicy? = nil,
        maxResponseBytes: Int? = nil,
        tags: APITags = [],
        plugins: [any APIPlugin] = [],
        decoder: (any ResponseDecoder)? = nil
    ) {
        self.headers = headers
        self.host = host
        self.baseURL = baseURL
        self.encoding = encoding
        self.timeout = timeout
        self.acceptableStatusCodes = acceptableStatusCodes
        self.redirectPolicy = redirectPolicy
        self.maxResponseBytes = maxResponseBytes
        self.tags = tags
        self.plugins = plugins
        self.decoder = decoder
    }
}
