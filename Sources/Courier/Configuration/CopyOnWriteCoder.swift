import Foundation

/// A `JSONEncoder` or `JSONDecoder` held as a value: change its settings through this value and only this
/// copy of the configuration changes.
///
/// ``APIConfiguration/encoder`` and ``APIConfiguration/decoder`` are of this type, so that copies of a
/// configuration are independent even though Foundation's coders are classes:
///
/// ```swift
/// var snake = base
/// snake.encoder.keyEncodingStrategy = .convertToSnakeCase   // `base` keeps its own encoder
/// snake.decoder = .init(myDecoder)                          // a coder of your own (copied)
/// ```
///
/// Every settable property of the coder reads and writes through this value; the first change after a copy
/// works on a private copy of the coder. ``coder`` hands the coder itself to APIs that need one — change
/// settings through this value, not through it.
@dynamicMemberLookup
public struct CopyOnWriteCoder<Coder: AnyObject & Sendable>: Sendable {
    private var storage: Coder
    private let copy: @Sendable (Coder) -> Coder

    init(_ coder: Coder, copy: @escaping @Sendable (Coder) -> Coder) {
        self.storage = copy(coder)
        self.copy = copy
    }

    /// The coder, for APIs that need one (`JSONResponseDecoder(configuration.decoder.coder)`). Read only:
    /// a change made through it would reach every configuration that shares it.
    public var coder: Coder { storage }

    /// A setting of the coder, such as `keyEncodingStrategy` or `dateDecodingStrategy`.
    public subscript<Value>(dynamicMember keyPath: ReferenceWritableKeyPath<Coder, Value>) -> Value {
        get { storage[keyPath: keyPath] }
        set {
            if !isKnownUniquelyReferenced(&storage) { storage = copy(storage) }
            storage[keyPath: keyPath] = newValue
        }
    }
}

extension CopyOnWriteCoder where Coder == JSONEncoder {
    /// Holds a copy of `encoder`: later changes to `encoder` do not reach this value.
    public init(_ encoder: JSONEncoder) {
        self.init(encoder, copy: Self.copying)
    }

    /// Encodes `value` with the coder.
    func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try storage.encode(value)
    }

    @Sendable private static func copying(_ encoder: JSONEncoder) -> JSONEncoder {
        let copy = JSONEncoder()
        copy.outputFormatting = encoder.outputFormatting
        copy.dateEncodingStrategy = encoder.dateEncodingStrategy
        copy.dataEncodingStrategy = encoder.dataEncodingStrategy
        copy.nonConformingFloatEncodingStrategy = encoder.nonConformingFloatEncodingStrategy
        copy.keyEncodingStrategy = encoder.keyEncodingStrategy
        copy.userInfo = encoder.userInfo
        return copy
    }
}

extension CopyOnWriteCoder where Coder == JSONDecoder {
    /// Holds a copy of `decoder`: later changes to `decoder` do not reach this value.
    public init(_ decoder: JSONDecoder) {
        self.init(decoder, copy: Self.copying)
    }

    /// Decodes a value of `type` from `data` with the coder.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try storage.decode(type, from: data)
    }

    @Sendable private static func copying(_ decoder: JSONDecoder) -> JSONDecoder {
        let copy = JSONDecoder()
        copy.dateDecodingStrategy = decoder.dateDecodingStrategy
        copy.dataDecodingStrategy = decoder.dataDecodingStrategy
        copy.nonConformingFloatDecodingStrategy = decoder.nonConformingFloatDecodingStrategy
        copy.keyDecodingStrategy = decoder.keyDecodingStrategy
        copy.userInfo = decoder.userInfo
        if #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) {
            copy.allowsJSON5 = decoder.allowsJSON5
            copy.assumesTopLevelDictionary = decoder.assumesTopLevelDictionary
        }
        return copy
    }
}
