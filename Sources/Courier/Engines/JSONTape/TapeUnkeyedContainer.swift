import Foundation

/// A JSON array as `JSONDecoder` presents it: `decodeNil()` moves on only past a `null`, and
/// `decodeIfPresent` moves on even at the end (as JSONDecoder's does).
struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: TapeDecoder
    let node: PathNode
    /// The entry of the next element (meaningless at the end).
    var cursor: Int
    let total: Int
    var currentIndex = 0

    init(decoder: TapeDecoder, node: PathNode, cursor: Int, count: Int) {
        self.decoder = decoder
        self.node = node
        self.cursor = cursor
        self.total = count
    }

    var codingPath: [any CodingKey] { PathNode.path(node.parent, node.key) }
    var count: Int? { total }
    var isAtEnd: Bool { currentIndex >= total }

    private var document: TapeDocument { decoder.document }

    /// The next element's entry; fails at the end.
    private func next() throws -> Int {
        guard currentIndex < total else { throw document.fail() }
        return cursor
    }

    private mutating func advance() {
        if currentIndex < total { cursor = document.after(cursor) }
        currentIndex += 1
    }

    /// Reads the next element with `read` and moves on.
    @inline(__always)
    private mutating func take<T>(_ read: (TapeDocument, Int) throws -> T) throws -> T {
        let value = try read(document, try next())
        advance()
        return value
    }

    /// `nil` at the end or for `null`, else the element read with `read`; moves on in every case.
    @inline(__always)
    private mutating func takeIfPresent<T>(_ read: (Int) throws -> T) throws -> T? {
        guard currentIndex < total, document.entries[cursor].kind != .null else {
            advance()
            return nil
        }
        let value = try read(cursor)
        advance()
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard document.entries[try next()].kind == .null else { return false }
        advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try take { try $0.bool(at: $1) } }
    mutating func decode(_ type: String.Type) throws -> String { try take { try $0.string(at: $1) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try take { try $0.floatingPoint(type, at: $1) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try take { try $0.floatingPoint(type, at: $1) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try take { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try take { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try take { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try take { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try take { try $0.integer(type, at: $1) } }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try take { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try take { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try take { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try take { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try take { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try take { try $0.integer(type, at: $1) } }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try take { try $0.integer(type, at: $1) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let index = try next()
        let value = try decoder.decode(type, at: index, node: node, key: .index(currentIndex))
        advance()
        return value
    }

    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? {
        let document = document
        return try takeIfPresent { try document.bool(at: $0) }
    }
    mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
        let document = document
        return try takeIfPresent { try document.string(at: $0) }
    }
    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? {
        let document = document
        return try takeIfPresent { try document.floatingPoint(type, at: $0) }
    }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? {
        let document = document
        return try takeIfPresent { try document.floatingPoint(type, at: $0) }
    }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try integerIfPresent(type) }

    private mutating func integerIfPresent<T: FixedWidthInteger>(_ type: T.Type) throws -> T? {
        let document = document
        return try takeIfPresent { try document.integer(type, at: $0) }
    }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        let (decoder, node, position) = (decoder, node, currentIndex)
        return try takeIfPresent { try decoder.decode(type, at: $0, node: node, key: .index(position)) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try decoder.pointed(at: try next(), node: node, key: .index(currentIndex)) {
            try $0.container(keyedBy: type)
        }
        advance()
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try decoder.pointed(at: try next(), node: node, key: .index(currentIndex)) {
            try $0.unkeyedContainer()
        }
        advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = TapeDecoder(document: document, current: try next(), node: node, key: .index(currentIndex))
        advance()
        return decoder
    }
}
