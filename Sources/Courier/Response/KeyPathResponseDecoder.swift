import Foundation

/// Decodes the value found at a key path inside an envelope (`{"data": {...}}`, JSON:API style), without a
/// wrapper type per endpoint.
///
/// ```swift
/// @GET("/users/{id}", decoder: .at("data"))          // every call of this endpoint
/// static var user: APIParameterBuilder<Int>? = .init { ["id": $0] }
///
/// let user: User = try await Users.$user.request(with: 1)
/// let total: Int = try await Users.$list.request(decoder: .at("meta.total"))   // one call
/// ```
///
/// The key path is a list of keys separated by `.`. `.at(_:)` decodes with the decoder the call would use
/// otherwise (the endpoint's, the configuration's ``APIConfiguration/responseDecoder``, else JSON);
/// `someDecoder.at(_:)` names it. A missing key is a decoding failure naming the key.
public struct KeyPathResponseDecoder: ResponseDecoder {
    /// The keys, outermost first.
    let keys: [String]
    /// The decoder of the whole body; `nil` for the one the call would use otherwise.
    let base: (any ResponseDecoder)?

    /// Decodes at `keyPath` (keys separated by `.`) with `base`, or the call's decoder when `base` is `nil`.
    init(_ keyPath: String, base: (any ResponseDecoder)? = nil) {
        self.init(keys: keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init), base: base)
    }

    init(keys: [String], base: (any ResponseDecoder)?) {
        self.keys = keys
        self.base = base
    }

    /// Decodes a value of `type` found at the key path in `data`.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        let base = self.base ?? JSONResponseDecoder()
        return try KeyPathEnvelopeContext.$keys.withValue(keys) {
            try base.decode(KeyPathEnvelope<Value>.self, from: data).value
        }
    }
}

extension ResponseDecoder where Self == KeyPathResponseDecoder {
    /// The value at `keyPath` (keys separated by `.`), decoded with the decoder the call would use otherwise.
    public static func at(_ keyPath: String) -> KeyPathResponseDecoder { KeyPathResponseDecoder(keyPath) }
}

extension ResponseDecoder {
    /// The value at `keyPath` (keys separated by `.`), decoded with this decoder: `.propertyList.at("items")`.
    public func at(_ keyPath: String) -> KeyPathResponseDecoder { KeyPathResponseDecoder(keyPath, base: self) }
}

/// The keys a ``KeyPathEnvelope`` walks, set for the duration of one synchronous decode.
enum KeyPathEnvelopeContext {
    @TaskLocal static var keys: [String] = []
}

/// Walks the keys of ``KeyPathEnvelopeContext/keys`` and decodes `Value` at the last one.
struct KeyPathEnvelope<Value: Decodable>: Decodable {
    let value: Value

    init(from decoder: any Decoder) throws {
        let keys = KeyPathEnvelopeContext.keys
        guard let last = keys.last else {
            value = try Value(from: decoder)
            return
        }
        // Inner values must not see the key path (a nested envelope type decodes on its own terms).
        value = try KeyPathEnvelopeContext.$keys.withValue([]) {
            var container = try decoder.container(keyedBy: Key.self)
            for key in keys.dropLast() {
                container = try container.nestedContainer(keyedBy: Key.self, forKey: Key(key))
            }
            return try container.decode(Value.self, forKey: Key(last))
        }
    }

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
