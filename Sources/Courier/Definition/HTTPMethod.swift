/// An HTTP request method such as `GET` or `POST`.
///
/// `HTTPMethod` is an extensible, string-like value: the common methods are static members, and any
/// other token can be written as a string literal (`"PURGE"`). To declare endpoints with a custom
/// method, pair it with a marker type; see ``HTTPMethodMarker``.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method token exactly as it is sent on the wire, for example `"GET"`.
    public let rawValue: String

    /// Creates a method from its token, for example `HTTPMethod(rawValue: "PURGE")`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a method from a string literal, so `let purge: HTTPMethod = "PURGE"` works.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The method token.
    public var description: String { rawValue }

    /// `GET`: read a resource. Parameters go to the query string.
    public static let get: HTTPMethod = "GET"
    /// `POST`: create or process. Parameters go to a JSON body.
    public static let post: HTTPMethod = "POST"
    /// `PUT`: replace a resource. Parameters go to a JSON body.
    public static let put: HTTPMethod = "PUT"
    /// `PATCH`: modify a resource. Parameters go to a JSON body.
    public static let patch: HTTPMethod = "PATCH"
    /// `DELETE`: remove a resource. Parameters go to the query string.
    public static let delete: HTTPMethod = "DELETE"
    /// `HEAD`: like `GET` without a response body. Parameters go to the query string.
    public static let head: HTTPMethod = "HEAD"
    /// `OPTIONS`: ask what a resource supports. Parameters go to the query string.
    public static let options: HTTPMethod = "OPTIONS"
    /// `QUERY`: a safe, idempotent query that carries its parameters in a JSON body.
    public static let query: HTTPMethod = "QUERY"
    // TRACE and CONNECT have no marker (an API client has no use for them); a custom marker for either still
    // gets their rules: query-string parameters and no body.
    static let trace: HTTPMethod = "TRACE"
    static let connect: HTTPMethod = "CONNECT"

    // Where parameters go when an endpoint does not choose an encoding: `GET`, `HEAD`, `DELETE`, `OPTIONS`,
    // `TRACE` and `CONNECT` put them in the query string; every other method, custom ones included, sends
    // them as a JSON body.
    var defaultEncoding: ParameterEncoding {
        switch self {
        case .get, .head, .delete, .options, .trace, .connect: .query
        default: .json
        }
    }

    // Whether a request with this method may carry a body. `GET`, `HEAD`, `TRACE` and `CONNECT` may not:
    // several HTTP stacks reject or drop such a body, so Courier reports the endpoint as invalid instead of
    // sending something the server never sees.
    var allowsRequestBody: Bool {
        switch self {
        case .get, .head, .trace, .connect: false
        default: true
        }
    }

    /// Whether the method is idempotent (RFC 9110 §9.2.2), which makes a retry safe.
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .put, .delete, .options, .trace, .query: true
        default: false
        }
    }
}

/// A type that names an HTTP method at the type level, so that `API<Parameter, Method>` carries its
/// method in its type.
///
/// Courier ships markers for the standard methods in ``HTTPMethodMarkers`` and a type alias for each
/// (``GET``, ``POST``, …).
///
/// ## Implementing
///
/// A custom method takes a marker and a type alias; the alias is then used like `@GET`:
///
/// ```swift
/// enum PurgeMethod: HTTPMethodMarker {
///     static let method: HTTPMethod = "PURGE"
/// }
/// typealias PURGE<Parameter> = API<Parameter, PurgeMethod>
///
/// @MainActor enum Cache {
///     @PURGE("/cache/{key}")
///     static var purge: APIParameterBuilder<String>? = .init { ["key": $0] }
/// }
/// ```
public protocol HTTPMethodMarker: Sendable {
    /// The method this marker stands for. Without an implementation, the marker's type name in capitals
    /// (the standard markers rely on it: `HTTPMethodMarkers.Get` is `GET`).
    static var method: HTTPMethod { get }
}

extension HTTPMethodMarker {
    /// The marker's type name in capitals: `HTTPMethodMarkers.Patch` stands for `PATCH`.
    public static var method: HTTPMethod { HTTPMethod(rawValue: String(describing: Self.self).uppercased()) }
}

/// The markers of the standard HTTP methods. Use the type aliases (``GET``, ``POST``, …) instead of
/// naming these directly.
public enum HTTPMethodMarkers {
    /// Marks `GET` endpoints.
    public enum Get: HTTPMethodMarker {}
    /// Marks `POST` endpoints.
    public enum Post: HTTPMethodMarker {}
    /// Marks `PUT` endpoints.
    public enum Put: HTTPMethodMarker {}
    /// Marks `PATCH` endpoints.
    public enum Patch: HTTPMethodMarker {}
    /// Marks `DELETE` endpoints.
    public enum Delete: HTTPMethodMarker {}
    /// Marks `HEAD` endpoints.
    public enum Head: HTTPMethodMarker {}
    /// Marks `OPTIONS` endpoints.
    public enum Options: HTTPMethodMarker {}
    /// Marks `QUERY` endpoints.
    public enum Query: HTTPMethodMarker {}
    /// Marks WebSocket endpoints: a `GET` that asks to switch to the WebSocket protocol.
    public enum WebSocket: HTTPMethodMarker {
        /// `GET`, the method of a WebSocket handshake.
        public static var method: HTTPMethod { .get }
    }
}

/// Declares a `GET` endpoint: `@GET("/users/{login}") static var user: APIParameterBuilder<String>? = …`.
public typealias GET<Parameter> = API<Parameter, HTTPMethodMarkers.Get>
/// Declares a `POST` endpoint; parameters go to a JSON body unless the endpoint chooses otherwise.
public typealias POST<Parameter> = API<Parameter, HTTPMethodMarkers.Post>
/// Declares a `PUT` endpoint; parameters go to a JSON body unless the endpoint chooses otherwise.
public typealias PUT<Parameter> = API<Parameter, HTTPMethodMarkers.Put>
/// Declares a `PATCH` endpoint; parameters go to a JSON body unless the endpoint chooses otherwise.
public typealias PATCH<Parameter> = API<Parameter, HTTPMethodMarkers.Patch>
/// Declares a `DELETE` endpoint; parameters go to the query string unless the endpoint chooses otherwise.
public typealias DELETE<Parameter> = API<Parameter, HTTPMethodMarkers.Delete>
/// Declares a `HEAD` endpoint; parameters go to the query string.
public typealias HEAD<Parameter> = API<Parameter, HTTPMethodMarkers.Head>
/// Declares an `OPTIONS` endpoint; parameters go to the query string unless the endpoint chooses otherwise.
public typealias OPTIONS<Parameter> = API<Parameter, HTTPMethodMarkers.Options>
/// Declares a `QUERY` endpoint; parameters go to a JSON body unless the endpoint chooses otherwise.
public typealias QUERY<Parameter> = API<Parameter, HTTPMethodMarkers.Query>
/// Declares a WebSocket endpoint: `@WebSocket("/rooms/{room}") static var room: APIParameterBuilder<String>? = …`,
/// opened with ``API/connect(with:pingInterval:reconnect:using:)``. Parameters fill the path, the query and the
/// headers, as for a `GET`.
public typealias WebSocket<Parameter> = API<Parameter, HTTPMethodMarkers.WebSocket>
