import Foundation

/// Where and how an endpoint's parameters are written into the request.
///
/// Without an explicit choice an endpoint uses its method's ``HTTPMethod/defaultEncoding``: the query
/// string for `GET`, `HEAD`, `DELETE`, `OPTIONS`, `TRACE`, `CONNECT`, a JSON body for the others.
///
/// ```swift
/// @POST("/login", encoding: .form)
/// static var login: APIParameterBuilder<Credentials>? = .init { $0 }
/// ```
public struct ParameterEncoding: Hashable, Sendable {
    /// Where parameters go.
    public enum Placement: String, Hashable, Sendable {
        /// The URL's query string, RFC 3986 percent-encoded.
        case query
        /// A JSON body (`Content-Type: application/json`).
        case json
        /// An `application/x-www-form-urlencoded` body.
        case form
    }

    /// Where parameters go.
    public var placement: Placement
    /// How arrays, booleans, dates and nested values are written; `nil` uses the configuration's
    /// ``APIConfiguration/parameterOptions``.
    public var options: ParameterEncodingOptions?

    /// Creates an encoding from a placement and optional value options.
    public init(_ placement: Placement, options: ParameterEncodingOptions? = nil) {
        self.placement = placement
        self.options = options
    }

    /// Parameters go to the query string.
    public static let query = ParameterEncoding(.query)
    /// Parameters go to a JSON body.
    public static let json = ParameterEncoding(.json)
    /// Parameters go to an `application/x-www-form-urlencoded` body.
    public static let form = ParameterEncoding(.form)

    /// Parameters go to the query string, written with the given options.
    public static func query(_ options: ParameterEncodingOptions) -> ParameterEncoding {
        ParameterEncoding(.query, options: options)
    }

    /// Parameters go to an `application/x-www-form-urlencoded` body, written with the given options.
    public static func form(_ options: ParameterEncodingOptions) -> ParameterEncoding {
        ParameterEncoding(.form, options: options)
    }

    /// Parameters go to a JSON body; dates in dictionary parameters are written with the given options.
    public static func json(_ options: ParameterEncodingOptions) -> ParameterEncoding {
        ParameterEncoding(.json, options: options)
    }
}

/// How values that have no single obvious text form are written into a query string or a form body,
/// and how dates are written into JSON built from dictionary parameters.
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

    /// The defaults described above.
    public static let `default` = ParameterEncodingOptions()
}
