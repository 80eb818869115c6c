import Foundation

/// A node of the tree that ``ParameterTreeEncoder`` builds while a value encodes itself.
///
/// Each node knows how many arrays and objects hold it. A node that would be an array or object deeper
/// than 100 (`Parameters.maximumDepth`) becomes `tooDeep`, and its children are handed out but never stored,
/// so the tree, and every recursive walk over it, stays within the limit however deep the value goes.
final class ParameterNode {
    private enum Content {
        case empty
        case single(ParameterValue)
        case keyed
        case unkeyed
        case tooDeep
    }

    /// How many arrays, objects and wrapper values hold this node (see ``deepen()``).
    private(set) var depth: Int
    private var content = Content.empty
    private var members: [(key: String, node: ParameterNode)] = []
    private var items: [ParameterNode] = []

    init(depth: Int = 0) {
        self.depth = depth
    }

    /// Whether this node may be an array or an object: it would be level `depth + 1`.
    private var mayNest: Bool { depth < Parameters.maximumDepth }

    /// The value this node holds; an `EncodingError` when it, or a node inside it, nests too deep.
    func value(codingPath: [any CodingKey] = []) throws -> ParameterValue {
        switch content {
        case .empty: return .object([])
        case .single(let value): return value
        case .keyed:
            return .object(try members.map { ParameterValue.Member(key: $0.key, value: try $0.node.value()) })
        case .unkeyed: return .array(try items.map { try $0.value() })
        case .tooDeep: throw ParameterNode.tooDeepError(codingPath)
        }
    }

    /// The error for parameters nested deeper than 100 (`Parameters.maximumDepth`).
    static func tooDeepError(_ codingPath: [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue(
            "nested value",
            EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "The parameters nest more than \(Parameters.maximumDepth) arrays and objects deep"
            )
        )
    }

    func set(_ value: ParameterValue) {
        content = .single(value)
    }

    /// Counts one more level: the node's value is about to encode itself as another value through a
    /// single-value container (an `Optional`, a wrapper type), which recurses like nesting does.
    func deepen() {
        depth += 1
    }

    func child(forKey key: String) -> ParameterNode {
        guard mayNest else {
            content = .tooDeep
            return ParameterNode(depth: depth + 1)
        }
        content = .keyed
        if let existing = members.first(where: { $0.key == key }) {
            return existing.node
        }
        let node = ParameterNode(depth: depth + 1)
        members.append((key, node))
        return node
    }

    func appendChild() -> ParameterNode {
        guard mayNest else {
            content = .tooDeep
            return ParameterNode(depth: depth + 1)
        }
        content = .unkeyed
        let node = ParameterNode(depth: depth + 1)
        items.append(node)
        return node
    }

    func becomeKeyed() {
        if case .empty = content { content = mayNest ? .keyed : .tooDeep }
    }

    func becomeUnkeyed() {
        if case .empty = content { content = mayNest ? .unkeyed : .tooDeep }
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

    /// Encodes `value` into `node`. A node deeper than 100 (`Parameters.maximumDepth`) (a child of a `tooDeep`
    /// one) throws at once, which stops a recursive value from recursing further.
    static func encode(_ value: some Encodable, into node: ParameterNode, codingPath: [any CodingKey]) throws {
        guard node.depth <= Parameters.maximumDepth else { throw ParameterNode.tooDeepError(codingPath) }
        if let special = try ParameterValue.special(value, codingPath: codingPath) {
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
        put(try ParameterValue.number(value, codingPath: codingPath + [key]), key)
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
    mutating func encode(_ value: Float) throws {
        let number = try ParameterValue.number(value, codingPath: nextPath)
        nextNode().set(number)
    }
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
    mutating func encode(_ value: Float) throws {
        node.set(try ParameterValue.number(value, codingPath: codingPath))
    }
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
        node.deepen()
        try ParameterTreeEncoder.encode(value, into: node, codingPath: codingPath)
    }
}
