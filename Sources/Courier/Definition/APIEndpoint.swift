/// Everything an endpoint declares apart from its parameter type: method, path template and its
/// ``EndpointOptions``. Plugins, executors and errors see endpoints through this value.
///
/// The options read as the endpoint's own properties: `endpoint.timeout`, `endpoint.tags[Key.self]`,
/// `endpoint.acceptableStatusCodes`, ….
@dynamicMemberLookup
public struct APIEndpoint: Sendable, CustomStringConvertible {
    /// The declaration, shared by every copy: an endpoint is copied into each request and error, and a
    /// copy of one reference costs one retain instead of one per field.
    private final class Storage: Sendable {
        let method: HTTPMethod
        let path: String
        let options: EndpointOptions
        let template: PathTemplate

        init(method: HTTPMethod, path: String, options: EndpointOptions) {
            self.method = method
            self.path = path
            self.options = options
            self.template = PathTemplate(path)
        }
    }

    private let storage: Storage

    /// The HTTP method.
    public var method: HTTPMethod { storage.method }
    /// The path template as declared, for example `/users/{login}`.
    public var path: String { storage.path }
    /// The endpoint's settings: headers, host, encoding, timeout, tags, plugins, ….
    public var options: EndpointOptions { storage.options }

    /// One of the endpoint's ``options``, read as its own property (`endpoint.tags`, `endpoint.timeout`).
    public subscript<Value>(dynamicMember keyPath: KeyPath<EndpointOptions, Value>) -> Value {
        storage.options[keyPath: keyPath]
    }

    var template: PathTemplate { storage.template }

    /// Creates an endpoint description. Endpoints are normally declared with ``API`` (`@GET`, `@POST`, …).
    public init(method: HTTPMethod, path: String, options: EndpointOptions = EndpointOptions()) {
        self.storage = Storage(method: method, path: path, options: options)
    }

    /// The encoding used when the endpoint does not choose one: the method's default.
    public var effectiveEncoding: ParameterEncoding {
        storage.options.encoding ?? method.defaultEncoding
    }

    /// The names of the path template's placeholders, in order.
    public var pathParameterNames: [String] { template.names }

    /// `METHOD /path/template`, the way errors and logs name the endpoint.
    public var description: String { "\(method.rawValue) \(path)" }
}
