import Foundation

/// A node of the tree that ``ParameterTreeEncoder`` builds while a value encodes itself.
final class ParameterNode {
    private enum Content {
        case empty
        case single(ParameterValue)
        case keyed
        case unkeyed
    }

    private var content = Content.empty
    private var members: [(key: String, node: ParameterNode)] = []
    private var items: [ParameterNode] = []

    var value: ParameterValue {
        switch content {
        case .empty: .object([])
        case .single(let value): value
        case .keyed: .object(members.map { ParameterValue.Member(key: $0.key, value: $0.node.value) })
        case .unkeyed: .array(items.map(\.value))
        }
    }

    func set(_ value: ParameterValue) {
        content = .single(value)
    }

    func child(forKey key: String) -> ParameterNode {
        content = .keyed
        if let existing = members.first(where: { $0.key == key }) {
            return existing.node
        }
        let node = ParameterNode()
        members.append((key, node))
        return node
    }

    func appendChild() -> ParameterNode {
        content = .unkeyed
        let node = ParameterNode()
        items.append(node)
        return node
    }

    func becomeKeyed() {
        if case .empty = content { content = .keyed }
    }

    func becomeUnkeyed() {
        if case .empty = content { content = .unkeyed }
    }
}

/// An `Encoder` that turns any `Encodable` value into a ``ParameterValue`` tree, keeping key order.
/// Dates, URLs, `Data`, `Decimal` and `UUID` keep a meaningful form instead of their `Codable` one.
struct ParameterTreeEncoder: Encoder {
    let node: ParameterNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeKeyed()
        return KeyedEncodingContainer(KeyedContainer(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeUnkeyed()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath)
    }

    /// Encodes `value` into `node`.
    static func encode(_ value: some Encodable, into node: ParameterNode, codingPath: [any CodingKey]) throws {
        if let special = ParameterValue.special(value) {
            node.set(special)
        } else {
            try value.encode(to: ParameterTreeEncoder(node: node, codingPath: codingPath))
        }
    }

    static func number(_ value: some BinaryInteger) -> ParameterValue {
        .number(String(value))
    }
}

private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { intValue.map(String.init) ?? "" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: ParameterNode
    let codingPath: [any CodingKey]

    private func put(_ value: ParameterValue, _ key: Key) {
        node.child(forKey: key.stringValue).set(value)
    }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        put(try ParameterValue.number(value, codingPath: codingPath + [key]), key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        put(try ParameterValue.number(Double(value), codingPath: codingPath + [key]), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(ParameterTreeEncoder.number(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(ParameterTreeEncoder.number(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(ParameterTreeEncoder.number(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(ParameterTreeEncoder.number(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(ParameterTreeEncoder.number(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(ParameterTreeEncoder.number(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(ParameterTreeEncoder.number(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(ParameterTreeEncoder.number(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(ParameterTreeEncoder.number(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(ParameterTreeEncoder.number(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try ParameterTreeEncoder.encode(
            value, into: node.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = node.child(forKey: key.stringValue)
        child.becomeKeyed()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.child(forKey: key.stringValue)
        child.becomeUnkeyed()
        return UnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        ParameterTreeEncoder(node: node.child(forKey: "super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ParameterTreeEncoder(node: node.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: ParameterNode
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(node: ParameterNode, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    private mutating func nextNode() -> ParameterNode {
        count += 1
        return node.appendChild()
    }

    private var nextPath: [any CodingKey] { codingPath + [IndexKey(intValue: count)] }

    mutating func encodeNil() throws { nextNode().set(.null) }
    mutating func encode(_ value: Bool) throws { nextNode().set(.bool(value)) }
    mutating func encode(_ value: String) throws { nextNode().set(.string(value)) }
    mutating func encode(_ value: Double) throws {
        let number = try ParameterValue.number(value, codingPath: nextPath)
        nextNode().set(number)
    }
    mutating func encode(_ value: Float) throws { try encode(Double(value)) }
    mutating func encode(_ value: Int) throws { nextNode().set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: Int8) throws { nextNode().set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: Int16) throws { nextNode().set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: Int32) throws { nextNode().set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: Int64) throws { nextNode().set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: UInt) throws { nextNode().set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: UInt8) throws { nextNode().set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: UInt16) throws { nextNode().set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: UInt32) throws { nextNode().set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: UInt64) throws { nextNode().set(ParameterTreeEncoder.number(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = nextPath
        try ParameterTreeEncoder.encode(value, into: nextNode(), codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let child = nextNode()
        child.becomeKeyed()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let child = nextNode()
        child.becomeUnkeyed()
        return UnkeyedContainer(node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return ParameterTreeEncoder(node: nextNode(), codingPath: path)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: ParameterNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws {
        node.set(try ParameterValue.number(value, codingPath: codingPath))
    }
    mutating func encode(_ value: Float) throws { try encode(Double(value)) }
    mutating func encode(_ value: Int) throws { node.set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: Int8) throws { node.set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: Int16) throws { node.set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: Int32) throws { node.set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: Int64) throws { node.set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: UInt) throws { node.set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: UInt8) throws { node.set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: UInt16) throws { node.set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: UInt32) throws { node.set(ParameterTreeEncoder.number(value)) }
    mutating func encode(_ value: UInt64) throws { node.set(ParameterTreeEncoder.number(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try ParameterTreeEncoder.encode(value, into: node, codingPath: codingPath)
    }
}
