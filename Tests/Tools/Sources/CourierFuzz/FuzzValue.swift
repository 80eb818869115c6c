import Courier
import Foundation

/// A generated parameter value. It encodes itself through whatever encoder Courier hands it (the
/// parameter tree encoder, the depth probe, the configured `JSONEncoder`), and the oracle computes what
/// each placement must carry from the same value, without Courier's encoders.
indirect enum FuzzValue: Encodable, Sendable {
    case string(String)
    case int(Int)
    case int8(Int8)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case float(Float)
    case decimal(Decimal)
    case bool(Bool)
    case date(Date)
    case uuid(UUID)
    case null
    case array([FuzzValue])
    /// Keys are unique.
    case object([(String, FuzzValue)])
    /// `levels` arrays (or objects under the key `k`) around the integer `leaf`, built while encoding.
    case deep(levels: Int, keyed: Bool, leaf: Int)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let value): try single(encoder) { try $0.encode(value) }
        case .int(let value): try single(encoder) { try $0.encode(value) }
        case .int8(let value): try single(encoder) { try $0.encode(value) }
        case .int64(let value): try single(encoder) { try $0.encode(value) }
        case .uint64(let value): try single(encoder) { try $0.encode(value) }
        case .double(let value): try single(encoder) { try $0.encode(value) }
        case .float(let value): try single(encoder) { try $0.encode(value) }
        case .decimal(let value): try single(encoder) { try $0.encode(value) }
        case .bool(let value): try single(encoder) { try $0.encode(value) }
        case .date(let value): try single(encoder) { try $0.encode(value) }
        case .uuid(let value): try single(encoder) { try $0.encode(value) }
        case .null: try single(encoder) { try $0.encodeNil() }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: FuzzKey.self)
            for (key, value) in members {
                if case .null = value {
                    try container.encodeNil(forKey: FuzzKey(key))
                } else {
                    try container.encode(value, forKey: FuzzKey(key))
                }
            }
        case .deep(let levels, let keyed, let leaf):
            if levels == 0 {
                try single(encoder) { try $0.encode(leaf) }
            } else if keyed {
                var container = encoder.container(keyedBy: FuzzKey.self)
                try container.encode(FuzzValue.deep(levels: levels - 1, keyed: keyed, leaf: leaf), forKey: FuzzKey("k"))
            } else {
                var container = encoder.unkeyedContainer()
                try container.encode(FuzzValue.deep(levels: levels - 1, keyed: keyed, leaf: leaf))
            }
        }
    }

    private func single(_ encoder: any Encoder, _ body: (inout any SingleValueEncodingContainer) throws -> Void) throws
    {
        var container = encoder.singleValueContainer()
        try body(&container)
    }

    /// Arrays and objects around the deepest value: 0 for a scalar.
    var depth: Int {
        switch self {
        case .array(let elements): 1 + (elements.map(\.depth).max() ?? 0)
        case .object(let members): 1 + (members.map(\.1.depth).max() ?? 0)
        case .deep(let levels, _, _): levels
        default: 0
        }
    }

    /// `.deep` opened one level (only for shallow values).
    var expanded: FuzzValue {
        guard case .deep(let levels, let keyed, let leaf) = self else { return self }
        if levels == 0 { return .int(leaf) }
        let inner = FuzzValue.deep(levels: levels - 1, keyed: keyed, leaf: leaf)
        return keyed ? .object([("k", inner)]) : .array([inner])
    }

    var isScalar: Bool {
        switch self {
        case .array, .object, .deep, .null: false
        default: true
        }
    }
}

struct FuzzKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A model parameter: its members are its top-level keys, in order; a `.null` member is encoded as `nil`.
struct FuzzModel: Encodable, Sendable {
    let members: [(String, FuzzValue)]

    func encode(to encoder: any Encoder) throws {
        try FuzzValue.object(members).encode(to: encoder)
    }
}

/// What the endpoint is called with.
struct FuzzInput: Sendable {
    let parameters: Parameters
    let headers: HTTPHeaders
}
