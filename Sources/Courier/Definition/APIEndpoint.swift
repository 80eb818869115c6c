import Foundation

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
        /// The path with the secrets a declared URL holds (user info, secret query values) masked.
        let printablePath: String
        /// The target last built for a template without placeholders and a call without query parameters, with
        /// the base URL text it was built on: such a URL is the same on every call, and parsing it is the
        /// largest single cost of building a request.
        let fixedTarget = LockedBox<(base: String?, target: RequestTarget)?>(nil)

        init(method: HTTPMethod, path: String, options: EndpointOptions) {
            self.method = method
            self.path = path
            self.options = options
            self.template = PathTemplate(path)
            self.printablePath = Redactor.template(path)
        }
    }

    private let storage: Storage

    /// The HTTP method.
    public var method: HTTPMethod { storage.method }
    /// The path template as declared, for example `/users/{login}`.
    public var path: String { storage.path }
    /// The endpoint's settings: headers, host, encoding, timeout, tags, plugins, ….
    public var options: EndpointOptions { storage.options }

    /// The endpoint's settings, read in place (``options`` returns a copy, one retain per stored reference).
    var declaredOptions: EndpointOptions {
        _read { yield storage.options }
    }

    /// One of the endpoint's ``options``, read as its own property (`endpoint.tags`, `endpoint.timeout`).
    public subscript<Value>(dynamicMember keyPath: KeyPath<EndpointOptions, Value>) -> Value {
        storage.options[keyPath: keyPath]
    }

    var template: PathTemplate { storage.template }

    /// The target of a fixed template on `base`, if built before (see `Storage.fixedTarget`).
    func fixedTarget(on base: String?) -> RequestTarget? {
        storage.fixedTarget.withLock { entry in entry.flatMap { $0.base == base ? $0.target : nil } }
    }

    /// Remembers `target` as the target of this fixed template on `base`.
    func rememberFixedTarget(_ target: RequestTarget, on base: String?) {
        storage.fixedTarget.value = (base, target)
    }

    /// Creates an endpoint description. Endpoints are normally declared with ``API`` (`@GET`, `@POST`, …).
    public init(method: HTTPMethod, path: String, options: EndpointOptions = EndpointOptions()) {
        self.storage = Storage(method: method, path: path, options: options)
    }

    /// The encoding used when the endpoint does not choose one: the method's default.
    var effectiveEncoding: ParameterEncoding {
        storage.options.encoding ?? method.defaultEncoding
    }

    /// The names of the path template's placeholders, in order.
    public var pathParameterNames: [String] { template.names }

    /// `METHOD /path/template`, the way errors, logs, timelines and recordings name the endpoint.
    ///
    /// Safe to print: a path declared with secrets in it — the user and password of an absolute URL, or secret
    /// query items such as a pre-signed URL's `X-Amz-Signature`, by the same secret-name rules as everywhere else — is printed with those
    /// values masked (`GET https://bucket.example.com/r.pdf?X-Amz-Signature=***`). ``path`` is the text as
    /// declared.
    public var description: String { "\(method.rawValue) \(storage.printablePath)" }

    /// ``path`` with the secrets a declared URL holds masked, as ``description`` prints it.
    var printablePath: String { storage.printablePath }
}
