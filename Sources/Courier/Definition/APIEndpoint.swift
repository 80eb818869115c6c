/// Everything an endpoint declares apart from its parameter type: method, path template, host and the
/// per-endpoint settings. Plugins, executors and errors see endpoints through this value.
public struct APIEndpoint: Sendable, CustomStringConvertible {
    /// The declaration, shared by every copy: an endpoint is copied into each request and error, and a
    /// copy of one reference costs one retain instead of one per field.
    private final class Storage: Sendable {
        let method: HTTPMethod
        let path: String
        let host: APIHost?
        let baseURL: String?
        let encoding: ParameterEncoding?
        let headers: HTTPHeaders
        let timeout: Duration?
        let acceptableStatusCodes: AcceptableStatusCodes?
        let redirectPolicy: RedirectPolicy?
        let maxResponseBytes: Int?
        let tags: APITags
        let plugins: [any APIPlugin]
        let template: PathTemplate

        init(
            method: HTTPMethod,
            path: String,
            host: APIHost?,
            baseURL: String?,
            encoding: ParameterEncoding?,
            headers: HTTPHeaders,
            timeout: Duration?,
            acceptableStatusCodes: AcceptableStatusCodes?,
            redirectPolicy: RedirectPolicy?,
            maxResponseBytes: Int?,
            tags: APITags,
            plugins: [any APIPlugin]
        ) {
            self.method = method
            self.path = path
            self.host = host
            self.baseURL = baseURL
            self.encoding = encoding
            self.headers = headers
            self.timeout = timeout
            self.acceptableStatusCodes = acceptableStatusCodes
            self.redirectPolicy = redirectPolicy
            self.maxResponseBytes = maxResponseBytes
            self.tags = tags
            self.plugins = plugins
            self.template = PathTemplate(path)
        }
    }

    private let storage: Storage

    /// The HTTP method.
    public var method: HTTPMethod { storage.method }
    /// The path template as declared, for example `/users/{login}`.
    public var path: String { storage.path }
    /// The named host, or `nil` for the configuration's base URL.
    public var host: APIHost? { storage.host }
    /// A base URL that overrides the configuration's, as declared.
    public var baseURL: String? { storage.baseURL }
    /// The parameter encoding, or `nil` for the method's default.
    public var encoding: ParameterEncoding? { storage.encoding }
    /// Headers sent with every call of this endpoint.
    public var headers: HTTPHeaders { storage.headers }
    /// The timeout, or `nil` for the configuration's.
    public var timeout: Duration? { storage.timeout }
    /// The accepted status codes, or `nil` for the configuration's.
    public var acceptableStatusCodes: AcceptableStatusCodes? { storage.acceptableStatusCodes }
    /// What to do when the server redirects, or `nil` for the configuration's policy.
    public var redirectPolicy: RedirectPolicy? { storage.redirectPolicy }
    /// The most response bytes held in memory, or `nil` for the configuration's limit.
    public var maxResponseBytes: Int? { storage.maxResponseBytes }
    /// Typed metadata for plugins and executors.
    public var tags: APITags { storage.tags }
    /// Plugins for this endpoint only; they run inside the configuration's plugins.
    public var plugins: [any APIPlugin] { storage.plugins }

    var template: PathTemplate { storage.template }

    /// Creates an endpoint description. Endpoints are normally declared with ``API`` (`@GET`, `@POST`, …).
    public init(
        method: HTTPMethod,
        path: String,
        host: APIHost? = nil,
        baseURL: String? = nil,
        encoding: ParameterEncoding? = nil,
        headers: HTTPHeaders = [:],
        timeout: Duration? = nil,
        acceptableStatusCodes: AcceptableStatusCodes? = nil,
        redirectPolicy: RedirectPolicy? = nil,
        maxResponseBytes: Int? = nil,
        tags: APITags = [],
        plugins: [any APIPlugin] = []
    ) {
        self.storage = Storage(
            method: method,
            path: path,
            host: host,
            baseURL: baseURL,
            encoding: encoding,
            headers: headers,
            timeout: timeout,
            acceptableStatusCodes: acceptableStatusCodes,
            redirectPolicy: redirectPolicy,
            maxResponseBytes: maxResponseBytes,
            tags: tags,
            plugins: plugins
        )
    }

    /// The encoding used when the endpoint does not choose one: the method's default.
    public var effectiveEncoding: ParameterEncoding {
        encoding ?? method.defaultEncoding
    }

    /// The names of the path template's placeholders, in order.
    public var pathParameterNames: [String] { template.names }

    /// `METHOD /path/template`, the way errors and logs name the endpoint.
    public var description: String { "\(method.rawValue) \(path)" }
}
