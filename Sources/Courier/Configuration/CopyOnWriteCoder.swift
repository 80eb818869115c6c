import Foundation

/// A `JSONEncoder` held as a value: change its settings through this value and only this copy of the
/// configuration changes.
///
/// ``APIConfiguration/encoder`` is of this type, so that copies of a configuration are independent even though
/// Foundation's coders are classes:
///
/// ```swift
/// var snake = base
/// snake.encoder.keyEncodingStrategy = .convertToSnakeCase   // `base` keeps its own encoder
/// snake.encoder = .init(myEncoder)                          // a coder of your own (copied)
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

    /// The coder, for APIs that need one (`configuration.encoder.coder.encode(value)`). Read only:
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
