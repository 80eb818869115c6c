import Foundation

/// A JSON object as `JSONDecoder` presents it: a key's value is that of its first occurrence; with
/// `.convertFromSnakeCase`, keys are compared after conversion; keys compare as Swift strings (canonical
/// equivalence), which for two ASCII keys is their bytes.
struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: TapeDecoder
    let node: PathNode
    let object: Int

    var codingPath: [any CodingKey] { PathNode.path(node.parent, node.key) }

    var allKeys: [Key] {
        let document = decoder.document
        let table = lookupTable()
        var keys: [Key] = []
        var cursor = object + 1
        for position in 0..<Int(document.entries[object].length) {
            let text = table.texts[position]
            // A key's first occurrence only, as in JSONDecoder's dictionary.
            if table.first[text] == cursor + 1, let key = Key(stringValue: text) { keys.append(key) }
            cursor = document.after(cursor + 1)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    /// The entry of the value for `key`, `nil` when the object has none.
    func find(_ key: some CodingKey) -> Int? {
        let document = decoder.document
        let count = Int(document.entries[object].length)
        if count > 16 || document.settings.snakeCaseKeys { return lookupTable().first[key.stringValue] }
        let name = key.stringValue
        let found = name.utf8.withContiguousStorageIfAvailable { wanted -> Int? in
            var ascii = true
            for byte in wanted where byte >= 0x80 { ascii = false }
            var cursor = object + 1
            for _ in 0..<count {
                let entry = document.entries[cursor]
                if entry.flags == 0 && ascii {
                    if Int(entry.length) == wanted.count, Self.same(document.raw(entry), wanted) { return cursor + 1 }
                } else if (try? document.string(at: cursor)) == name {
                    return cursor + 1
                }
                cursor = document.after(cursor + 1)
            }
            return nil
        }
        if let found { return found }
        return lookupTable().first[name]
    }

    @inline(__always)
    private static func same(_ raw: UnsafeBufferPointer<UInt8>, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let left = raw.baseAddress, let right = wanted.baseAddress else { return true }
        return memcmp(left, right, wanted.count) == 0
    }

    /// Every key's text (converted with `.convertFromSnakeCase`) and the value of each text's first
    /// occurrence, built once per object.
    private func lookupTable() -> (texts: [String], first: [String: Int]) {
        if let texts = node.keyTexts, let first = node.firstIndex { return (texts, first) }
        let document = decoder.document
        let count = Int(document.entries[object].length)
        var texts: [String] = []
        var first: [String: Int] = [:]
        texts.reserveCapacity(count)
        first.reserveCapacity(count)
        var cursor = object + 1
        for _ in 0..<count {
            var text = (try? document.string(at: cursor)) ?? ""
            if document.settings.snakeCaseKeys { text = SnakeCase.camelCased(text) }
            texts.append(text)
            if first[text] == nil { first[text] = cursor + 1 }
            cursor = document.after(cursor + 1)
        }
        node.keyTexts = texts
        node.firstIndex = first
        return (texts, first)
    }

    private func value(_ key: Key) throws -> Int {
        guard let index = find(key) else { throw decoder.document.fail() }
        return index
    }

    /// `nil` for a missing key or `null`, else the value's entry.
    private func present(_ key: Key) -> Int? {
        guard let index = find(key), decoder.document.entries[index].kind != .null else { return nil }
        return index
    }

    func decodeNil(forKey key: Key) throws -> Bool { decoder.document.entries[try value(key)].kind == .null }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.document.bool(at: try value(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.document.string(at: try value(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try float(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try float(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try integer(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(type, at: try value(key), node: node, key: .key(key))
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.document.integer(type, at: try value(key))
    }

    private func float<T: TapeFloat>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.document.floatingPoint(type, at: try value(key))
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map { try decoder.document.bool(at: $0) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map { try decoder.document.string(at: $0) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try decoder.document.floatingPoint(type, at: $0) }
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try present(key).map { try decoder.document.floatingPoint(type, at: $0) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try present(key).map { try decoder.document.integer(type, at: $0) }
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try present(key).map { try decoder.document.integer(type, at: $0) }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try decoder.decode(type, at: $0, node: node, key: .key(key)) }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.pointed(at: try value(key), node: node, key: .key(key)) { try $0.container(keyedBy: type) }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.pointed(at: try value(key), node: node, key: .key(key)) { try $0.unkeyedContainer() }
    }

    func superDecoder() throws -> any Decoder { superDecoder(TapeCodingKey(stringValue: "super")) }

    func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(key) }

    /// A decoder of its own for the value of `key`, `null` when there is none (as JSONDecoder does).
    private func superDecoder(_ key: some CodingKey) -> any Decoder {
        TapeDecoder(
            document: decoder.document, current: find(key) ?? decoder.document.nullEntry, node: node, key: .key(key))
    }
}

/// JSONDecoder's `.convertFromSnakeCase`: leading and trailing underscores kept, the words between the other
/// underscores joined, the first lowercased and the others capitalized; a key without inner underscores as is.
enum SnakeCase {
    static func camelCased(_ key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        var last = key.index(before: key.endIndex)
        while last > first && key[last] == "_" { key.formIndex(before: &last) }
        let words = key[first...last].split(separator: "_")
        guard words.count > 1 else { return key }
        let joined = ([words[0].lowercased()] + words[1...].map { $0.capitalized }).joined()
        return String(key[..<first]) + joined + String(key[key.index(after: last)...])
    }
}
