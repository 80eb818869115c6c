import Foundation

/// Where and how an endpoint's parameters are written into the request: the query string, a JSON, form or
/// multipart body, value options, and the names that go to the query string whatever the encoding.
///
/// Without an explicit choice an endpoint uses its method's `HTTPMethod.defaultEncoding`: the query
/// string for `GET`, `HEAD`, `DELETE`, `OPTIONS`, `TRACE`, `CONNECT`, a JSON body for the others.
///
/// ```swift
/// @POST("/login", encoding: .form)
/// static var login: APIParameterBuilder<Credentials>? = .init { $0 }
///
/// @POST("/search", encoding: .json.querying("version"))   // POST /search?version=2 with {"text":"…"}
/// static var search: APIParameterBuilder<String>? = .init { ["version": 2, "text": $0] }
///
/// @POST("/upload", encoding: .multipart)                     // multipart/form-data, streamed
/// static var upload: APIParameterBuilder<URL>? = .init { ["title": "Beach", "photo": .file($0)] }
/// ```
///
/// A format of your own: return the body from the builder (`.body(.data(xml), contentType: "application/xml")`).
public struct ParameterEncoding: Hashable, Sendable {
    /// Writes the parameters that no path placeholder and no query name took.
    public let encoder: any ParameterEncoder
    /// How arrays, booleans, dates and nested values are written; `nil` uses the configuration's
    /// ``APIConfiguration/parameterOptions``.
    public var options: ParameterEncodingOptions?
    /// Names sent in the query string whatever the encoder, in the order the parameters list them: for an
    /// endpoint that takes both (`POST /search?version=2` with a JSON body). See ``querying(_:)``.
    public var queryNames: [String]

    /// Creates an encoding from an encoder and optional value options.
    public init(_ encoder: some ParameterEncoder, options: ParameterEncodingOptions? = nil, queryNames: [String] = []) {
        self.encoder = encoder
        self.options = options
        self.queryNames = queryNames
    }

    /// Parameters go to the query string.
    public static let query = ParameterEncoding(QueryParameterEncoder())
    /// Parameters go to a JSON body, written by ``APIConfiguration/encoder`` whether they are a dictionary, a
    /// list or a model.
    public static let json = ParameterEncoding(JSONParameterEncoder())
    /// Parameters go to an `application/x-www-form-urlencoded` body.
    public static let form = ParameterEncoding(FormParameterEncoder())
    /// Parameters go to a `multipart/form-data` body, streamed part by part.
    public static let multipart = ParameterEncoding(MultipartParameterEncoder())

    /// Parameters go to the query string, written with the given options.
    public static func query(_ options: ParameterEncodingOptions) -> ParameterEncoding {
        ParameterEncoding(QueryParameterEncoder(), options: options)
    }

    /// Parameters go to an `application/x-www-form-urlencoded` body, written with the given options.
    public static func form(_ options: ParameterEncodingOptions) -> ParameterEncoding {
        ParameterEncoding(FormParameterEncoder(), options: options)
    }

    /// Parameters go to a JSON body; dates (in dictionaries and models alike) are written in the options' date
    /// style instead of the encoder's date strategy.
    public static func json(_ options: ParameterEncodingOptions) -> ParameterEncoding {
        ParameterEncoding(JSONParameterEncoder(), options: options)
    }

    /// Parameters go to a `multipart/form-data` body; text fields are written with the given options.
    public static func multipart(_ options: ParameterEncodingOptions) -> ParameterEncoding {
        ParameterEncoding(MultipartParameterEncoder(), options: options)
    }

    /// This encoding with `names` sent in the query string (with the query rules and options) and the other
    /// parameters left to the encoder: `.json.querying("version")` sends `?version=2` and a JSON body of the
    /// rest. For a model parameter, the names are its top-level keys.
    public func querying(_ names: String...) -> ParameterEncoding {
        var copy = self
        copy.queryNames += names
        return copy
    }

    /// Whether the encoder writes a body (every encoder but the query string's).
    var writesBody: Bool { encoder.writesBody }

    /// Whether two encodings have equal encoders (same type, equal values), options and query names.
    public static func == (lhs: ParameterEncoding, rhs: ParameterEncoding) -> Bool {
        AnyHashable(lhs.encoder) == AnyHashable(rhs.encoder) && lhs.options == rhs.options
            && lhs.queryNames == rhs.queryNames
    }

    /// Hashes the encoder, the options and the query names.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(AnyHashable(encoder))
        hasher.combine(options)
        hasher.combine(queryNames)
    }
}

/// How values that have no single obvious text form are written into a query string, a form body or the
/// text fields of a multipart body (and, given to ``ParameterEncoding/json(_:)``, how JSON dates are written).
///
/// The defaults: arrays repeat their key (`tag=a&tag=b`), booleans are `true`/`false`, dates are
/// ISO 8601 in UTC (`2024-05-06T07:08:09Z`), nested values use brackets (`user[name]=x`), and `nil`
/// anywhere is left out.
public struct ParameterEncodingOptions: Hashable, Sendable {
    /// How an array value is written.
    public enum ArrayStyle: Hashable, Sendable {
        /// `tag=a&tag=b` (the default).
        case repeatedKeys
        /// `tag[]=a&tag[]=b`.
        case brackets
        /// `tag[0]=a&tag[1]=b`.
        case indexed
        /// `tag=a,b`: one pair, elements joined with a literal `,`. A comma inside an element is
        /// percent-encoded (`["a,b", "c"]` → `tag=a%2Cb,c`), so the list splits back unambiguously. Arrays
        /// holding arrays or objects fall back to repeated keys.
        case commaSeparated
    }

    /// How a boolean value is written.
    public enum BoolStyle: Hashable, Sendable {
        /// `true` / `false` (the default).
        case literal
        /// `1` / `0`.
        case numeric
    }

    /// How a date is written.
    ///
    /// ISO 8601 text uses the proleptic Gregorian calendar (before 1582 too) and a four-digit year, so it
    /// holds dates from `0000-01-01T00:00:00Z` through `9999-12-31T23:59:59.999Z`; numbers since 1970 hold
    /// what an `Int64` holds. A date outside its style's range, or built from a NaN or infinite interval,
    /// fails with ``APIError/RequestProblem/unencodableParameters``; it is never clamped.
    public enum DateStyle: Hashable, Sendable {
        /// ISO 8601 in UTC without fractional seconds, `2024-05-06T07:08:09Z` (the default); a fraction of a
        /// second is dropped.
        case iso8601
        /// ISO 8601 in UTC with milliseconds, `2024-05-06T07:08:09.123Z`, rounded to the nearest millisecond.
        case iso8601WithFractionalSeconds
        /// Seconds since 1970 as a number, `1714979289` (fractions kept when present).
        case secondsSince1970
        /// Whole milliseconds since 1970, `1714979289123`, rounded to the nearest.
        case millisecondsSince1970
    }

    /// How a nested keyed value (a dictionary or a model inside the parameters) is written.
    public enum NestingStyle: Hashable, Sendable {
        /// `user[name]=x` (the default).
        case brackets
        /// `user.name=x`.
        case dotted
    }

    /// How arrays are written.
    public var arrays: ArrayStyle
    /// How booleans are written.
    public var bools: BoolStyle
    /// How dates are written.
    public var dates: DateStyle
    /// How nested keyed values are written.
    public var nesting: NestingStyle

    /// Creates options; every argument has the documented default.
    public init(
        arrays: ArrayStyle = .repeatedKeys,
        bools: BoolStyle = .literal,
        dates: DateStyle = .iso8601,
        nesting: NestingStyle = .brackets
    ) {
        self.arrays = arrays
        self.bools = bools
        self.dates = dates
        self.nesting = nesting
    }
}
