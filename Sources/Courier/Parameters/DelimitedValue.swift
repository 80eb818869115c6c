/// A path or query value made of values and the delimiters between them, as RFC 6570 and OpenAPI's parameter
/// styles write lists and objects (`3,4,5`, `.a.b`, `;x=1;y=2`): each value is percent-encoded, the delimiters
/// stay as written, so a server splits the text back where the delimiters are.
///
/// Write it as a string with interpolations: the literal text is delimiters, the interpolated values are encoded
/// (an interpolated `DelimitedValue` is kept as it is). `joined(separator:)` joins a list of them.
///
/// ```swift
/// @GET("/shelves/{ids}/{range}")
/// static var shelves: APIParameterBuilder<([Int], Int, Int)>? = .init {
///     [
///         "ids": $0.0.map { "\($0)" as DelimitedValue }.joined(separator: ","),   // /shelves/3,4/…
///         "range": ";from=\($0.1);to=\($0.2)" as DelimitedValue,                   // …/;from=1;to=9
///     ]
/// }
/// ```
///
/// A plain `String` in a path placeholder is one segment, its `,` `;` `=` encoded; in the query string, every
/// byte but the unreserved ones is. A `DelimitedValue` keeps `, ; = : @ ! $ ' ( ) *` of its literal text (its
/// other characters, `/`, `&`, `+`, `?`, `#` and space among them, are encoded). In a body or a multipart field it
/// is its text, nothing encoded.
public struct DelimitedValue: Sendable, Hashable, Encodable, ExpressibleByStringInterpolation {
    /// One piece: a value (encoded when placed) or delimiter text (kept).
    enum Piece: Sendable, Hashable {
        case value(String)
        case delimiter(String)
    }

    var pieces: [Piece]

    /// A value with `text` as delimiters only.
    public init(stringLiteral text: String) {
        pieces = text.isEmpty ? [] : [.delimiter(text)]
    }

    /// A value from a string with interpolations: literal text is delimiters, interpolated values are values.
    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    /// Collects the pieces of a ``DelimitedValue`` string literal.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var pieces: [Piece] = []

        /// Creates an empty interpolation.
        public init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(interpolationCount * 2 + 1)
        }

        /// Literal text: delimiters, kept as written.
        public mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { pieces.append(.delimiter(literal)) }
        }

        /// A value, percent-encoded when placed (its description: `"\(3)"` is `3`).
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            pieces.append(.value(value.description))
        }

        /// Another delimited value, its delimiters kept.
        public mutating func appendInterpolation(_ value: DelimitedValue) {
            pieces += value.pieces
        }
    }

    /// The text without any encoding: what a body or a multipart field gets.
    var text: String {
        pieces.map {
            switch $0 {
            case .value(let text), .delimiter(let text): text
            }
        }.joined()
    }

    /// The text with its values percent-encoded (a space as `+` with `spaceAsPlus`) and its delimiters kept.
    func encoded(spaceAsPlus: Bool = false) -> String {
        var output = ""
        for piece in pieces {
            switch piece {
            case .value(let text):
                PercentEncoding.append(text, allowing: .unreserved, spaceAsPlus: spaceAsPlus, to: &output)
            case .delimiter(let text):
                PercentEncoding.append(text, allowing: .delimiters, to: &output)
            }
        }
        return output
    }

    /// Encodes the text, values and delimiters with nothing percent-encoded, as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

extension Sequence where Element == DelimitedValue {
    /// The values one after the other, `separator` (a delimiter, kept as written) between them.
    public func joined(separator: String) -> DelimitedValue {
        var result: DelimitedValue = ""
        for (index, value) in enumerated() {
            if index > 0, !separator.isEmpty { result.pieces.append(.delimiter(separator)) }
            result.pieces += value.pieces
        }
        return result
    }
}
