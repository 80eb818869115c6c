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
    /// `TRACE`: a loop-back test. Parameters go to the query string.
    public static let trace: HTTPMethod = "TRACE"
    /// `CONNECT`: open a tunnel. Parameters go to the query string.
    public static let connect: HTTPMethod = "CONNECT"

    /// Where parameters go when an endpoint does not choose an encoding.
    ///
    /// `GET`, `HEAD`, `DELETE`, `OPTIONS`, `TRACE` and `CONNECT` put them in the query string;
    /// every other method, custom ones included, sends them as a JSON body.
    public var defaultEncoding: ParameterEncoding {
        switch self {
        case .get, .head, .delete, .options, .trace, .connect: .query
        default: .json
        }
    }

    /// Whether a request with this method may carry a body.
    ///
    /// `GET`, `HEAD`, `TRACE` and `CONNECT` may not: several HTTP stacks reject or drop such a body, so
    /// Courier reports the endpoint as invalid instead of sending something the server never sees.
    public var allowsRequestBody: Bool {
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
    /// The method this marker stands for.
    static var method: HTTPMethod { get }
}

/// The markers of the standard HTTP methods. Use the type aliases (``GET``, ``POST``, …) instead of
/// naming these directly.
public enum HTTPMethodMarkers {
    /// Marks `GET` endpoints.
    public enum Get: HTTPMethodMarker {
        /// `GET`.
        public static var method: HTTPMethod { .get }
    }
    /// Marks `POST` endpoints.
    public enum Post: HTTPMethodMarker {
        /// `POST`.
        public static var method: HTTPMethod { .post }
    }
    /// Marks `PUT` endpoints.
    public enum Put: HTTPMethodMarker {
        /// `PUT`.
        public static var method: HTTPMethod { .put }
    }
    /// Marks `PATCH` endpoints.
    public enum Patch: HTTPMethodMarker {
        /// `PATCH`.
        public static var method: HTTPMethod { .patch }
    }
    /// Marks `DELETE` endpoints.
    public enum Delete: HTTPMethodMarker {
        /// `DELETE`.
        public static var method: HTTPMethod { .delete }
    }
    /// Marks `HEAD` endpoints.
    public enum Head: HTTPMethodMarker {
        /// `HEAD`.
        public static var method: HTTPMethod { .head }
    }
    /// Marks `OPTIONS` endpoints.
    public enum Options: HTTPMethodMarker {
        /// `OPTIONS`.
        public static var method: HTTPMethod { .options }
    }
    /// Marks `QUERY` endpoints.
    public enum Query: HTTPMethodMarker {
        /// `QUERY`.
        public static var method: HTTPMethod { .query }
    }
    /// Marks `TRACE` endpoints.
    public enum Trace: HTTPMethodMarker {
        /// `TRACE`.
        public static var method: HTTPMethod { .trace }
    }
    /// Marks `CONNECT` endpoints.
    public enum Connect: HTTPMethodMarker {
        /// `CONNECT`.
        public static var method: HTTPMethod { .connect }
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
/// Declares a `TRACE` endpoint; parameters go to the query string.
public typealias TRACE<Parameter> = API<Parameter, HTTPMethodMarkers.Trace>
/// Declares a `CONNECT` endpoint; parameters go to the query string.
public typealias CONNECT<Parameter> = API<Parameter, HTTPMethodMarkers.Connect>
