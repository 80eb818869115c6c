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
    static func make(from value: any Encodable) throws -> ParameterValue {
        switch value {
        case let string as String: return .string(string)
        case let int as Int: return .number(String(int))
        case let bool as Bool: return .bool(bool)
        case let double as Double: return try number(double)
        case let date as Date: return .date(date)
        default:
            if let special = special(value) { return special }
            let node = ParameterNode()
            try value.encode(to: ParameterTreeEncoder(node: node, codingPath: []))
            return node.value
        }
    }

    /// The value of well-known Foundation types that encode themselves in ways no query or form expects.
    static func special(_ value: any Encodable) -> ParameterValue? {
        switch value {
        case let date as Date: .date(date)
        case let url as URL: .string(url.absoluteString)
        case let data as Data: .string(data.base64EncodedString())
        case let decimal as Decimal: .number(decimal.description)
        case let uuid as UUID: .string(uuid.uuidString)
        default: nil
        }
    }

    static func number(_ value: Double, codingPath: [any CodingKey] = []) throws -> ParameterValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) is not a finite number")
            )
        }
        if value == value.rounded(), abs(value) < 1e15 {
            return .number(String(Int64(value)))
        }
        return .number(String(value))
    }

    /// The text of a scalar for a path segment, query or form; `nil` for arrays, objects and null.
    func scalarText(_ options: ParameterEncodingOptions) -> String? {
        switch self {
        case .string(let string): string
        case .number(let number): number
        case .bool(let bool):
            switch options.bools {
            case .literal: bool ? "true" : "false"
            case .numeric: bool ? "1" : "0"
            }
        case .date(let date): Self.text(for: date, style: options.dates)
        case .null, .array, .object: nil
        }
    }

    static func text(for date: Date, style: ParameterEncodingOptions.DateStyle) -> String {
        switch style {
        case .iso8601:
            return date.formatted(.iso8601)
        case .iso8601WithFractionalSeconds:
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        case .secondsSince1970:
            let seconds = date.timeIntervalSince1970
            return seconds == seconds.rounded() ? String(Int64(seconds)) : String(seconds)
        case .millisecondsSince1970:
            return String(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
    }
}
