/// Everything an endpoint declares apart from its parameter type: method, path template, host and the
/// per-endpoint settings. Plugins, executors and errors see endpoints through this value.
public struct APIEndpoint: Sendable, CustomStringConvertible {
    /// The HTTP method.
    public let method: HTTPMethod
    /// The path template as declared, for example `/users/{login}`.
    public let path: String
    /// The named host, or `nil` for the configuration's base URL.
    public let host: APIHost?
    /// A base URL that overrides the configuration's, as declared.
    public let baseURL: String?
    /// The parameter encoding, or `nil` for the method's default.
    public let encoding: ParameterEncoding?
    /// Headers sent with every call of this endpoint.
    public let headers: HTTPHeaders
    /// The timeout, or `nil` for the configuration's.
    public let timeout: Duration?
    /// The accepted status codes, or `nil` for the configuration's.
    public let acceptableStatusCodes: AcceptableStatusCodes?
    /// Typed metadata for plugins and executors.
    public let tags: APITags
    /// Plugins for this endpoint only; they run inside the configuration's plugins.
    public let plugins: [any APIPlugin]

    let template: PathTemplate

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
        tags: APITags = [],
        plugins: [any APIPlugin] = []
    ) {
        self.method = method
        self.path = path
        self.host = host
        self.baseURL = baseURL
        self.encoding = encoding
        self.headers = headers
        self.timeout = timeout
        self.acceptableStatusCodes = acceptableStatusCodes
        self.tags = tags
        self.plugins = plugins
        self.template = PathTemplate(path)
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
