/// Encodes a model through any encoder (the configuration's `JSONEncoder`, with all its strategies)
/// while leaving out some of its top-level keys: those that filled the path template.
struct KeyFilteringEncodable: Encodable {
    let model: any Encodable
    let excluded: Set<String>

    init(_ model: any Encodable, excluding excluded: Set<String>) {
        self.model = model
        self.excluded = excluded
    }

    func encode(to encoder: any Encoder) throws {
        try model.encode(to: FilteringEncoder(base: encoder, excluded: excluded))
    }
}

private struct FilteringEncoder: Encoder {
    let base: any Encoder
    let excluded: Set<String>

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(FilteringContainer(base: base.container(keyedBy: type), excluded: excluded))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { base.unkeyedContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer { base.singleValueContainer() }
}

/// Forwards to the real container, skipping excluded keys. Nested values are not filtered.
private struct FilteringContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var base: KeyedEncodingContainer<Key>
    let excluded: Set<String>

    var codingPath: [any CodingKey] { base.codingPath }

    private func skips(_ key: Key) -> Bool { excluded.contains(key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws {
        if !skips(key) { try base.encodeNil(forKey: key) }
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        if !skips(key) { try base.encode(value, forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        base.nestedContainer(keyedBy: keyType, forKey: key)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        base.nestedUnkeyedContainer(forKey: key)
    }

    mutating func superEncoder() -> any Encoder { base.superEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { base.superEncoder(forKey: key) }
}
