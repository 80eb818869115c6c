import Foundation

/// Walks a model the way an encoder would, writing nothing, and throws an `EncodingError` when it nests
/// deeper than 100 (`Parameters.maximumDepth`) or holds a NaN `Decimal`.
///
/// Foundation's `JSONEncoder` recurses once per level and writes a NaN `Decimal` as `NaN`, which is not
/// JSON; this walk runs first, so the configured encoder only ever sees a model it can write. It counts
/// levels exactly as ``ParameterTreeEncoder`` does: each array, object and value that encodes itself as
/// another value (an `Optional`, a wrapper type). It keeps no coding path and allocates only the boxes
/// that `KeyedEncodingContainer` needs.
struct DepthProbe: Encoder {
    /// What the walk shares: whether a container went past the limit, and where user info comes from.
    struct Walk {
        let encoder: JSONEncoder
        var tooDeep = false
    }

    /// The walk's state, on the stack of ``check(_:for:)`` for as long as the walk lasts: no allocation
    /// and no reference counting on the many copies of the probe. (An `Encoder` is only valid during the
    /// `encode(to:)` call that receives it, so no probe outlives the walk.)
    let walk: UnsafeMutablePointer<Walk>
    /// How many levels hold the value being encoded.
    let depth: Int

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { walk.pointee.encoder.userInfo }

    /// Walks `model`; throws if it nests too deep or holds a NaN `Decimal`. Errors that the model itself
    /// throws are ignored here: the real encoder meets them again, with its full context.
    static func check(_ model: some Encodable, for encoder: JSONEncoder) throws {
        var state = Walk(encoder: encoder)
        let tooDeep = try withUnsafeMutablePointer(to: &state) { walk in
            do {
                try DepthProbe(walk: walk, depth: 0).encodeValue(model)
            } catch let error as ProbeError {
                throw error.encodingError
            } catch {
                // Not the walk's business (see above); a container may still have gone too deep.
            }
            return walk.pointee.tooDeep
        }
        if tooDeep { throw ProbeError.tooDeep.encodingError }
    }

    /// Encodes `value`, held by `depth` levels, unless it is a leaf the JSON encoder writes itself.
    func encodeValue<T: Encodable>(_ value: T) throws {
        guard depth <= Parameters.maximumDepth else { throw ProbeError.tooDeep }
        // Leaves `JSONEncoder` writes without asking them to encode themselves; Data would walk every byte.
        if T.self == String.self || T.self == Date.self || T.self == Data.self || T.self == URL.self {
            return
        }
        if T.self == Decimal.self {
            if let decimal = value as? Decimal, decimal.isNaN { throw ProbeError.notANumber }
            return
        }
        // Arrays of leaves, the most common nested values: one level, and nothing below it to walk.
        if T.self == [String].self || T.self == [Int].self || T.self == [Double].self || T.self == [Bool].self {
            opensContainer()
            return
        }
        try value.encode(to: self)
    }

    /// The encoder for a value one level down.
    var child: DepthProbe { DepthProbe(walk: walk, depth: depth + 1) }

    /// Notes a container opened at this depth: it is level `depth + 1`.
    func opensContainer() {
        if depth >= Parameters.maximumDepth { walk.pointee.tooDeep = true }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        opensContainer()
        return KeyedEncodingContainer(ProbeKeyedContainer<Key>(probe: child))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        opensContainer()
        return ProbeUnkeyedContainer(probe: child)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ProbeSingleContainer(probe: self)
    }
}

private enum ProbeError: Error {
    case tooDeep
    case notANumber

    var encodingError: EncodingError {
        switch self {
        case .tooDeep:
            ParameterNode.tooDeepError([])
        case .notANumber:
            EncodingError.invalidValue(
                Decimal.nan,
                EncodingError.Context(codingPath: [], debugDescription: "NaN is not a finite number")
            )
        }
    }
}

/// `probe` is the encoder for the container's values, one level below the container's owner.
private struct ProbeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let probe: DepthProbe
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode(_ value: Bool, forKey key: Key) throws {}
    mutating func encode(_ value: String, forKey key: Key) throws {}
    mutating func encode(_ value: Double, forKey key: Key) throws {}
    mutating func encode(_ value: Float, forKey key: Key) throws {}
    mutating func encode(_ value: Int, forKey key: Key) throws {}
    mutating func encode(_ value: Int8, forKey key: Key) throws {}
    mutating func encode(_ value: Int16, forKey key: Key) throws {}
    mutating func encode(_ value: Int32, forKey key: Key) throws {}
    mutating func encode(_ value: Int64, forKey key: Key) throws {}
    mutating func encode(_ value: UInt, forKey key: Key) throws {}
    mutating func encode(_ value: UInt8, forKey key: Key) throws {}
    mutating func encode(_ value: UInt16, forKey key: Key) throws {}
    mutating func encode(_ value: UInt32, forKey key: Key) throws {}
    mutating func encode(_ value: UInt64, forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try probe.encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        probe.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        probe.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { probe }
    mutating func superEncoder(forKey key: Key) -> any Encoder { probe }
}

private struct ProbeUnkeyedContainer: UnkeyedEncodingContainer {
    let probe: DepthProbe
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    init(probe: DepthProbe) {
        self.probe = probe
    }

    mutating func encodeNil() throws { count += 1 }
    mutating func encode(_ value: Bool) throws { count += 1 }
    mutating func encode(_ value: String) throws { count += 1 }
    mutating func encode(_ value: Double) throws { count += 1 }
    mutating func encode(_ value: Float) throws { count += 1 }
    mutating func encode(_ value: Int) throws { count += 1 }
    mutating func encode(_ value: Int8) throws { count += 1 }
    mutating func encode(_ value: Int16) throws { count += 1 }
    mutating func encode(_ value: Int32) throws { count += 1 }
    mutating func encode(_ value: Int64) throws { count += 1 }
    mutating func encode(_ value: UInt) throws { count += 1 }
    mutating func encode(_ value: UInt8) throws { count += 1 }
    mutating func encode(_ value: UInt16) throws { count += 1 }
    mutating func encode(_ value: UInt32) throws { count += 1 }
    mutating func encode(_ value: UInt64) throws { count += 1 }
    mutating func encode<T: Encodable>(_ value: T) throws {
        count += 1
        try probe.encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        count += 1
        return probe.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        return probe.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        count += 1
        return probe
    }
}

/// `probe` is the encoder of the value itself; a value encoded through it is one level down.
private struct ProbeSingleContainer: SingleValueEncodingContainer {
    let probe: DepthProbe
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws {}
    mutating func encode(_ value: Bool) throws {}
    mutating func encode(_ value: String) throws {}
    mutating func encode(_ value: Double) throws {}
    mutating func encode(_ value: Float) throws {}
    mutating func encode(_ value: Int) throws {}
    mutating func encode(_ value: Int8) throws {}
    mutating func encode(_ value: Int16) throws {}
    mutating func encode(_ value: Int32) throws {}
    mutating func encode(_ value: Int64) throws {}
    mutating func encode(_ value: UInt) throws {}
    mutating func encode(_ value: UInt8) throws {}
    mutating func encode(_ value: UInt16) throws {}
    mutating func encode(_ value: UInt32) throws {}
    mutating func encode(_ value: UInt64) throws {}
    mutating func encode<T: Encodable>(_ value: T) throws { try probe.child.encodeValue(value) }
}
