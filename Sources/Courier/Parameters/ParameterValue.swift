import Foundation

/// A parameter reduced to the few shapes that query strings, form bodies and JSON have in common.
/// Objects keep their key order.
enum ParameterValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number in its canonical text form (`42`, `-1.5`, `1e+20`).
    case number(String)
    case string(String)
    case date(Date)
    case array([ParameterValue])
    case object([Member])

    struct Member: Sendable, Equatable {
        var key: String
        var value: ParameterValue
    }

    /// Reduces a value, taking a fast path for the common scalar types.
    ///
    /// - Parameter depth: How many arrays and objects hold `value`: 1 for a value of a dictionary or a list
    ///   parameter, 0 for a model. The result never nests deeper than 100 (`Parameters.maximumDepth`) in all, so
    ///   everything that walks it recursively (the JSON writer, the query encoder) is bounded.
    static func make(from value: any Encodable, depth: Int) throws -> ParameterValue {
        switch value {
        case let string as String: return .string(string)
        case let int as Int: return .number(String(int))
        case let bool as Bool: return .bool(bool)
        case let double as Double: return try number(double)
        case let date as Date: return .date(date)
        default:
            if let special = try special(value, codingPath: []) { return special }
            let node = ParameterNode(depth: depth)
            try value.encode(to: ParameterTreeEncoder(node: node, codingPath: []))
            return try node.value()
        }
    }

    /// The value of well-known Foundation types that encode themselves in ways no query or form expects.
    /// A NaN `Decimal` is an `EncodingError`, as a NaN `Double` is.
    static func special(_ value: any Encodable, codingPath: [any CodingKey]) throws -> ParameterValue? {
        switch value {
        case let date as Date: return .date(date)
        case let url as URL: return .string(url.absoluteString)
        case let data as Data: return .string(data.base64EncodedString())
        case let decimal as Decimal:
            guard !decimal.isNaN else { throw notFinite(decimal, codingPath) }
            return .number(decimal.description)
        case let uuid as UUID: return .string(uuid.uuidString)
        default: return nil
        }
    }

    static func number(_ value: Double, codingPath: [any CodingKey] = []) throws -> ParameterValue {
        guard value.isFinite else { throw notFinite(value, codingPath) }
        if value == value.rounded(), abs(value) < 1e15, let whole = Int64(exactly: value) {
            return .number(String(whole))
        }
        return .number(String(value))
    }

    /// A `Float` in its own shortest form (`0.1`, not the `0.10000000149011612` of its `Double` value).
    static func number(_ value: Float, codingPath: [any CodingKey] = []) throws -> ParameterValue {
        guard value.isFinite else { throw notFinite(value, codingPath) }
        if value == value.rounded(), abs(value) < 1e7, let whole = Int64(exactly: value) {
            return .number(String(whole))
        }
        return .number(String(value))
    }

    private static func notFinite(_ value: Any, _ codingPath: [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue(
            value,
            EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) is not a finite number")
        )
    }

    /// The text of a scalar for a path segment, query or form; `nil` for arrays, objects and null.
    /// Throws an `EncodingError` for a date its style cannot write (see ``DateText``).
    func scalarText(_ options: ParameterEncodingOptions) throws -> String? {
        switch self {
        case .string(let string): string
        case .number(let number): number
        case .bool(let bool):
            switch options.bools {
            case .literal: bool ? "true" : "false"
            case .numeric: bool ? "1" : "0"
            }
        case .date(let date): try DateText.text(date, style: options.dates)
        case .null, .array, .object: nil
        }
    }
}
