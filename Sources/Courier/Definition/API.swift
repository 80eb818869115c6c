import Foundation

/// An endpoint of an HTTP API, declared as a property wrapper over its ``APIParameterBuilder``.
///
/// Use it through the method aliases (``GET``, ``POST``, ``PUT``, ``PATCH``, ``DELETE``, ``HEAD``,
/// ``OPTIONS``, ``QUERY``) inside an *address book*, a namespace of endpoints:
///
/// ```swift
/// @MainActor enum GitHub {
///     @GET("/users/{login}")
///     static var user: APIParameterBuilder<String>? = .init { ["login": $0] }
///
///     @POST("/repos/{owner}/{repo}/issues", headers: ["Accept": "application/vnd.github+json"])
///     static var createIssue: APIParameterBuilder<NewIssue>? = .init { $0 }
///
///     @GET("/zen")
///     static var zen: APIParameterBuilder<Void>? = nil
/// }
///
/// let user: User = try await GitHub.$user.request(with: "octocat")
/// let request = try GitHub.$zen.makeRequest()   // no I/O: inspect or send it yourself
/// ```
///
/// The projected value (`$user`) is the endpoint itself: a `Sendable` value that can be passed to and
/// called from any isolation domain. `Parameter` is the type every call must pass (`Void` for none).
@propertyWrapper
public struct API<Parameter, Method: HTTPMethodMarker>: Sendable {
    /// The parameter builder; `nil` means the endpoint sends no parameters (an error unless `Parameter` is
    /// `Void` or a `headerBuilder` reads it).
    public var wrappedValue: APIParameterBuilder<Parameter>?
    /// The endpoint's method, path and settings.
    public let endpoint: APIEndpoint
    /// Headers computed from each call's parameter.
    let headerBuilder: (@Sendable (Parameter) -> HTTPHeaders)?
    /// Headers added at the call site with ``with(headers:)``.
    var callHeaders: HTTPHeaders = [:]

    /// The endpoint itself, reached as `$name`.
    public var projectedValue: API<Parameter, Method> { self }

    /// Declares an endpoint: as a property wrapper (`@GET("/users/{login}") static var user: …`), or as a value
    /// with the parameter builder as a trailing closure — for `static let` endpoints, locals and tests:
    ///
    /// ```swift
    /// enum Books {
    ///     static let book = GET<String>("/books/{isbn}", timeout: .seconds(5)) { ["isbn": $0] }   // nonisolated
    /// }
    /// ```
    ///
    /// Every option is also a field of ``EndpointOptions``, which ``init(wrappedValue:_:options:headerBuilder:)``
    /// takes whole.
    ///
    /// - Parameters:
    ///   - wrappedValue: The parameter builder of a property wrapper; `nil` (the default) for no parameters,
    ///     which only a `Void` parameter (or one that only `headerBuilder` reads) may have: any other fails with
    ///     ``APIError/RequestProblem/missingParameterBuilder(_:)`` before any I/O.
    ///   - path: The path, appended to the base URL. `{name}` placeholders take the same-named
    ///     parameter; a query after `?` is kept; an absolute URL ignores the base URL.
    ///   - headers: Headers sent with every call.
    ///   - host: A named host that the configuration maps to a base URL.
    ///   - baseURL: A base URL for this endpoint only, overriding the configuration and `host`.
    ///   - encoding: Where parameters go (`.query`, `.json`, `.form`); `nil` for the method's default.
    ///   - timeout: The timeout for this endpoint's calls; `nil` for the configuration's.
    ///   - acceptableStatusCodes: The status codes treated as success; `nil` for the configuration's.
    ///   - redirectPolicy: What to do when the server redirects; `nil` for the configuration's.
    ///   - maxResponseBytes: The most response bytes held in memory; `nil` for the configuration's.
    ///   - tags: Typed metadata for plugins and executors.
    ///   - plugins: Plugins for this endpoint only, run inside the configuration's plugins.
    ///   - decoder: Decodes the endpoint's responses; `nil` for the configuration's ``APIConfiguration/responseDecoder``.
    ///   - build: The parameter builder of an endpoint declared as a value (the trailing closure); ignored when
    ///     `wrappedValue` is given.
    ///   - headerBuilder: Headers computed from each call's parameter; they replace same-named static headers.
    public init(
        wrappedValue: APIParameterBuilder<Parameter>? = nil,
        _ path: String,
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
        decoder: (any ResponseDecoder)? = nil,
        parameters build: (@Sendable (Parameter) -> Parameters)? = nil,
        headerBuilder: (@Sendable (Parameter) -> HTTPHeaders)? = nil
    ) {
        self.init(
            wrappedValue: wrappedValue ?? build.map { APIParameterBuilder($0) },
            path,
            options: EndpointOptions(
                headers: headers, host: host, baseURL: baseURL, encoding: encoding, timeout: timeout,
                acceptableStatusCodes: acceptableStatusCodes, redirectPolicy: redirectPolicy,
                maxResponseBytes: maxResponseBytes, tags: tags, plugins: plugins, decoder: decoder),
            headerBuilder: headerBuilder
        )
    }

    /// Declares an endpoint whose settings are one ``EndpointOptions`` value, for example options shared
    /// by the endpoints of one service:
    ///
    /// ```swift
    /// extension EndpointOptions {
    ///     static let storage = EndpointOptions(host: .storage, timeout: .seconds(300))
    /// }
    ///
    /// @GET("/objects/{key}", options: .storage)
    /// static var object: APIParameterBuilder<String>? = .init { ["key": $0] }
    /// ```
    ///
    /// - Parameters:
    ///   - wrappedValue: The parameter builder; `nil` (the default) for no parameters, which only a `Void`
    ///     parameter (or one that only `headerBuilder` reads) may have: any other fails with
    ///     ``APIError/RequestProblem/missingParameterBuilder(_:)`` before any I/O.
    ///   - path: The path, appended to the base URL.
    ///   - options: The endpoint's settings.
    ///   - headerBuilder: Headers computed from each call's parameter; they replace same-named static headers.
    public init(
        wrappedValue: APIParameterBuilder<Parameter>? = nil,
        _ path: String,
        options: EndpointOptions,
        headerBuilder: (@Sendable (Parameter) -> HTTPHeaders)? = nil
    ) {
        self.wrappedValue = wrappedValue
        self.headerBuilder = headerBuilder
        self.endpoint = APIEndpoint(method: Method.method, path: path, options: options)
    }
}

extension API {
    /// The endpoint with `headers` added to its calls, for headers that belong to the call rather than the
    /// parameter type — a precondition, an idempotency key:
    ///
    /// ```swift
    /// try await Store.$update.with(headers: ["If-Match": etag]).request(with: item)
    /// ```
    ///
    /// They replace same-named headers from the configuration, the declaration and its `headerBuilder`.
    public func with(headers: HTTPHeaders) -> API {
        var copy = self
        copy.callHeaders.merge(headers)
        return copy
    }
}
