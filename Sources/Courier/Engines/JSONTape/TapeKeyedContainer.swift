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
        let name = key.stringValue
        if count > 16 { return lookupTable().first[name] }
        if document.settings.snakeCaseKeys {
            let texts = lookupTable().texts
            var cursor = object + 1
            for position in 0..<count {
                if texts[position] == name { return cursor + 1 }
                cursor = document.after(cursor + 1)
            }
            return nil
        }
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

    /// Every key's text (converted with `.convertFromSnakeCase`) and, for `allKeys` and large objects, the value
    /// of each text's first occurrence; built once per object.
    private func lookupTable() -> (texts: [String], first: [String: Int]) {
        let document = decoder.document
        let count = Int(document.entries[object].length)
        let texts: [String]
        if let known = node.keyTexts {
            texts = known
        } else {
            var made: [String] = []
            made.reserveCapacity(count)
            var cursor = object + 1
            for _ in 0..<count {
                made.append(document.keyText(at: cursor))
                cursor = document.after(cursor + 1)
            }
            node.keyTexts = made
            texts = made
        }
        if let first = node.firstIndex { return (texts, first) }
        var first: [String: Int] = [:]
        first.reserveCapacity(count)
        var cursor = object + 1
        for text in texts {
            if first[text] == nil { first[text] = cursor + 1 }
            cursor = document.after(cursor + 1)
        }
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

    @inline(__always)
    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.document.integer(type, at: try value(key))
    }

    @inline(__always)
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

    /// The same for a key of ASCII letters, digits and underscores (`nil` for any other), without Foundation's
    /// Unicode case tables: `lowercased()` lowers the letters; `capitalized` uppercases a letter that follows no
    /// letter in the word (a digit is not one) and lowers the others.
    static func camelCased(ascii key: UnsafeBufferPointer<UInt8>) -> String? {
        var underscores = 0
        for byte in key {
            switch byte {
            case UInt8(ascii: "_"): underscores += 1
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                break
            default: return nil
            }
        }
        guard underscores > 0 else { return String(decoding: key, as: UTF8.self) }
        guard let first = key.firstIndex(where: { $0 != UInt8(ascii: "_") }) else {
            return String(decoding: key, as: UTF8.self)
        }
        var last = key.count - 1
        while last > first && key[last] == UInt8(ascii: "_") { last -= 1 }
        var words = 0
        var previous = UInt8(ascii: "_")
        for position in first...last {
            let byte = key[position]
            if byte != UInt8(ascii: "_") && previous == UInt8(ascii: "_") { words += 1 }
            previous = byte
        }
        guard words > 1 else { return String(decoding: key, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: key.count) { output in
            var written = 0
            for position in 0..<first {
                output[written] = key[position]
                written += 1
            }
            var word = 0
            var cased = false
            var inWord = false
            for position in first...last {
                var byte = key[position]
                if byte == UInt8(ascii: "_") {
                    inWord = false
                    continue
                }
                if !inWord {
                    inWord = true
                    word += 1
                    cased = false
                }
                let upper = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
                let lower = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
                if word == 1 {
                    if upper { byte |= 0x20 }
                } else if upper {
                    if cased { byte |= 0x20 }
                    cased = true
                } else if lower {
                    if !cased { byte &= ~0x20 }
                    cased = true
                } else {
                    cased = false
                }
                output[written] = byte
                written += 1
            }
            for position in (last + 1)..<key.count {
                output[written] = key[position]
                written += 1
            }
            return written
        }
    }
}

extension TapeDocument {
    /// The text of the key at entry `index`, converted when the strategy is `.convertFromSnakeCase`.
    func keyText(at index: Int) -> String {
        let entry = entries[index]
        guard settings.snakeCaseKeys else { return (try? string(at: index)) ?? "" }
        if entry.flags == 0, let text = SnakeCase.camelCased(ascii: raw(entry)) { return text }
        return SnakeCase.camelCased((try? string(at: index)) ?? "")
    }
}
