// The differential fuzz of Courier's JSON decoder (CourierFuzz --json): random Decodable shapes, random
// documents mostly of that shape (numbers at the edges of each type, escapes, surrogates, invalid UTF-8, duplicate
// and canonically equal keys, deep nesting, byte mutations) and random decoder settings. For each case:
// - when Courier's decoder answers itself, JSONDecoder must succeed with the same value;
// - `JSONResponseDecoder.decode` (what calls use) must return JSONDecoder's value or throw its error (same kind,
//   coding path and description).
@_spi(Testing) import Courier
import Foundation

/// What a ``Shape`` decodes, and how.
indirect enum Schema: Sendable {
    case bool, string, int, int8, uint8, int32, uint64, double, float, date, data, url, decimal
    case optional(Schema)
    case array(Schema)
    case dictionary(Schema)
    /// Keyed fields: key, schema, and how the field is read.
    case object([Field])
    /// Reads a nested array by hand: decodeNil, count, isAtEnd, decodeIfPresent past the end, superDecoder.
    case manualArray(Schema)
    /// `try?` around the inner decode, as lenient models do.
    case lenient(Schema)

    struct Field: Sendable {
        var key: String
        var schema: Schema
        var mode: Mode
    }

    enum Mode: Sendable, CaseIterable {
        case decode, ifPresent, nilThenDecode, contains, superDecoder, nested
    }
}

/// The schema stack both decoders read through `userInfo` (they decode one value at a time, in order).
final class SchemaStack: @unchecked Sendable {
    var stack: [Schema] = []
    static let key = CodingUserInfoKey(rawValue: "courier.fuzz.schema")
}

/// Decodes what the schema on top of the stack says and writes down everything it saw (values, float bits,
/// coding paths, counts), so that two decodes compare by their traces.
struct Shape: Decodable, Equatable {
    var trace: [String] = []

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        guard let key = SchemaStack.key, let stack = decoder.userInfo[key] as? SchemaStack,
            let schema = stack.stack.last
        else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no schema"))
        }
        trace.append(Self.path(decoder.codingPath))
        try read(schema, decoder, stack)
    }

    /// Sorted by Unicode scalars: String's `<` is no strict order (`"e\u{301}"` and `"\u{e9}\u{0}"` are neither
    /// equal nor ordered either way), so sorting with it depends on the order it starts from.
    static func sorted(_ texts: [String]) -> [String] {
        texts.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) { $0.value < $1.value } }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.map { "\($0.stringValue)#\($0.intValue.map(String.init) ?? "")" }.joined(separator: "/")
    }

    private mutating func read(_ schema: Schema, _ decoder: any Decoder, _ stack: SchemaStack) throws {
        switch schema {
        case .object(let fields):
            let container = try decoder.container(keyedBy: Key.self)
            trace.append("keys \(Self.sorted(container.allKeys.map(\.stringValue)))")
            for field in fields {
                let key = Key(stringValue: field.key)
                stack.stack.append(field.schema)
                defer { stack.stack.removeLast() }
                switch field.mode {
                case .decode:
                    trace.append(try container.decode(Shape.self, forKey: key).trace.joined(separator: ","))
                case .ifPresent:
                    trace.append(
                        (try container.decodeIfPresent(Shape.self, forKey: key)?.trace.joined(separator: ","))
                            ?? "absent")
                case .nilThenDecode:
                    if try container.decodeNil(forKey: key) {
                        trace.append("nil")
                    } else {
                        trace.append(try container.decode(Shape.self, forKey: key).trace.joined(separator: ","))
                    }
                case .contains:
                    trace.append("contains \(container.contains(key))")
                case .superDecoder:
                    let inner = try container.superDecoder(forKey: key)
                    trace.append(Self.path(inner.codingPath))
                    trace.append(try Shape(from: inner).trace.joined(separator: ","))
                case .nested:
                    let nested = try container.nestedContainer(keyedBy: Key.self, forKey: key)
                    trace.append(Self.path(nested.codingPath) + " \(nested.allKeys.count)")
                }
            }
        case .manualArray(let element):
            var container = try decoder.unkeyedContainer()
            trace.append("count \(String(describing: container.count)) \(Self.path(container.codingPath))")
            stack.stack.append(element)
            defer { stack.stack.removeLast() }
            while !container.isAtEnd {
                if try container.decodeNil() {
                    trace.append("nil@\(container.currentIndex)")
                } else if container.currentIndex % 3 == 2 {
                    let inner = try container.superDecoder()
                    trace.append(Self.path(inner.codingPath) + ":" + (try Shape(from: inner).trace.joined()))
                } else {
                    trace.append(try container.decode(Shape.self).trace.joined(separator: ","))
                }
            }
            trace.append(
                "past end \(String(describing: try container.decodeIfPresent(Int.self))) \(container.currentIndex)")
        case .lenient(let inner):
            stack.stack.append(inner)
            defer { stack.stack.removeLast() }
            let single = try decoder.singleValueContainer()
            trace.append((try? single.decode(Shape.self).trace.joined(separator: ",")) ?? "caught")
        default:
            try readValue(schema, decoder.singleValueContainer(), stack)
        }
    }

    private mutating func readValue(
        _ schema: Schema, _ container: any SingleValueDecodingContainer, _ stack: SchemaStack
    ) throws {
        switch schema {
        case .bool: trace.append("\(try container.decode(Bool.self))")
        case .string: trace.append(String(reflecting: try container.decode(String.self)))
        case .int: trace.append("\(try container.decode(Int.self))")
        case .int8: trace.append("\(try container.decode(Int8.self))")
        case .uint8: trace.append("\(try container.decode(UInt8.self))")
        case .int32: trace.append("\(try container.decode(Int32.self))")
        case .uint64: trace.append("\(try container.decode(UInt64.self))")
        case .double: trace.append("d\(try container.decode(Double.self).bitPattern)")
        case .float: trace.append("f\(try container.decode(Float.self).bitPattern)")
        case .date: trace.append("t\(try container.decode(Date.self).timeIntervalSinceReferenceDate.bitPattern)")
        case .data: trace.append("b\(try container.decode(Data.self).base64EncodedString())")
        case .url: trace.append("u\(try container.decode(URL.self).absoluteString)")
        case .decimal: trace.append("m\(try container.decode(Decimal.self))")
        case .optional(let inner):
            stack.stack.append(inner)
            defer { stack.stack.removeLast() }
            trace.append(try container.decode(Shape?.self)?.trace.joined(separator: ",") ?? "none")
        case .array(let inner):
            stack.stack.append(inner)
            defer { stack.stack.removeLast() }
            trace.append(
                try container.decode([Shape].self).map { $0.trace.joined(separator: ",") }.joined(separator: ";"))
        case .dictionary(let inner):
            stack.stack.append(inner)
            defer { stack.stack.removeLast() }
            let dictionary = try container.decode([String: Shape].self)
            trace.append(
                Self.sorted(dictionary.map { "\(String(reflecting: $0.key))=\($0.value.trace.joined(separator: ","))" })
                    .joined(separator: ";"))
        case .object, .manualArray, .lenient:
            break
        }
    }
}
