import Foundation

/// The `Decoder` over a ``TapeDocument``. Like `JSONDecoder`'s, one instance serves a whole decode: decoding a
/// nested value points it at that value (and its coding path) for the time of the call.
final class TapeDecoder: Decoder, SingleValueDecodingContainer {
    let document: TapeDocument
    /// The entry of the value this decoder reads, the container it is in, and its key there.
    var current: Int
    var node: PathNode?
    var key: PathKey

    init(document: TapeDocument, current: Int, node: PathNode?, key: PathKey) {
        self.document = document
        self.current = current
        self.node = node
        self.key = key
    }

    var codingPath: [any CodingKey] { PathNode.path(node, key) }
    var userInfo: [CodingUserInfoKey: Any] { document.settings.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard document.entries[current].kind == .object else { throw document.fail() }
        return KeyedDecodingContainer(
            TapeKeyedContainer<Key>(decoder: self, node: PathNode(parent: node, key: key), object: current))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let entry = document.entries[current]
        guard entry.kind == .array else { throw document.fail() }
        return TapeUnkeyedContainer(
            decoder: self, node: PathNode(parent: node, key: key), cursor: current + 1, count: Int(entry.length))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: Values

    /// Decodes the value at entry `index` as `type`; `node` and `key` are its place, for nested decoders.
    ///
    /// Only metadata comparisons and the call of `T.init(from:)` here: anything that would make an unspecialized
    /// copy of this function allocate an `Optional<T>` (a metadata lookup on every call) lives in ``special``.
    func decode<T: Decodable>(_ type: T.Type, at index: Int, node: PathNode?, key: PathKey) throws -> T {
        // What T.init(from:) would read through a single-value container, without the detour.
        if T.self == String.self { return unsafeBitCast(try document.string(at: index), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try document.integer(Int.self, at: index), to: T.self) }
        if T.self == Double.self {
            return unsafeBitCast(try document.floatingPoint(Double.self, at: index), to: T.self)
        }
        if T.self == Bool.self { return unsafeBitCast(try document.bool(at: index), to: T.self) }
        // The types JSONDecoder reads its own way, and the exemption of `[String: V]` from key conversion.
        if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self
            || document.settings.snakeCaseKeys
        {
            return try special(type, at: index, node: node, key: key)
        }
        return try pointed(at: index, node: node, key: key) { try T(from: $0) }
    }

    @inline(never)
    private func special<T: Decodable>(_ type: T.Type, at index: Int, node: PathNode?, key: PathKey) throws -> T {
        if T.self == Date.self { return unsafeBitCast(try date(at: index, node: node, key: key), to: T.self) }
        if T.self == Data.self { return unsafeBitCast(try data(at: index, node: node, key: key), to: T.self) }
        if T.self == URL.self {
            guard let url = URL(string: try document.string(at: index)) else { throw document.fail() }
            return unsafeBitCast(url, to: T.self)
        }
        if T.self == Decimal.self { throw document.fail() }
        if let dictionary = T.self as? any TapeStringDictionary.Type {
            // `[String: V]` keeps its keys as they are whatever the key strategy (JSONDecoder's exemption).
            guard let value = try dictionary.decode(from: self, at: index, node: node, key: key) as? T else {
                throw document.fail()
            }
            return value
        }
        return try pointed(at: index, node: node, key: key) { try T(from: $0) }
    }

    /// Runs `body` with this decoder pointed at entry `index`, then points it back.
    @inline(__always)
    func pointed<T>(at index: Int, node: PathNode?, key: PathKey, _ body: (TapeDecoder) throws -> T) throws -> T {
        let saved = (current, self.node, self.key)
        current = index
        self.node = node
        self.key = key
        defer { (current, self.node, self.key) = saved }
        return try body(self)
    }

    private func date(at index: Int, node: PathNode?, key: PathKey) throws -> Date {
        guard document.entries[index].kind != .null else { throw document.fail() }
        switch document.settings.dates {
        case .deferred:
            return try pointed(at: index, node: node, key: key) { try Date(from: $0) }
        case .seconds:
            return Date(timeIntervalSince1970: try document.floatingPoint(Double.self, at: index))
        case .milliseconds:
            return Date(timeIntervalSince1970: try document.floatingPoint(Double.self, at: index) / 1000.0)
        case .iso8601:
            guard let date = try? Date.ISO8601FormatStyle().parse(try document.string(at: index)) else {
                throw document.fail()
            }
            return date
        case .custom(let closure):
            return try pointed(at: index, node: node, key: key) { try closure($0) }
        }
    }

    private func data(at index: Int, node: PathNode?, key: PathKey) throws -> Data {
        guard document.entries[index].kind != .null else { throw document.fail() }
        switch document.settings.bytes {
        case .deferred:
            return try pointed(at: index, node: node, key: key) { try Data(from: $0) }
        case .base64:
            guard let data = Data(base64Encoded: try document.string(at: index)) else { throw document.fail() }
            return data
        case .custom(let closure):
            return try pointed(at: index, node: node, key: key) { try closure($0) }
        }
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { document.entries[current].kind == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try document.bool(at: current) }
    func decode(_ type: String.Type) throws -> String { try document.string(at: current) }
    func decode(_ type: Double.Type) throws -> Double { try document.floatingPoint(type, at: current) }
    func decode(_ type: Float.Type) throws -> Float { try document.floatingPoint(type, at: current) }
    func decode(_ type: Int.Type) throws -> Int { try document.integer(type, at: current) }
    func decode(_ type: Int8.Type) throws -> Int8 { try document.integer(type, at: current) }
    func decode(_ type: Int16.Type) throws -> Int16 { try document.integer(type, at: current) }
    func decode(_ type: Int32.Type) throws -> Int32 { try document.integer(type, at: current) }
    func decode(_ type: Int64.Type) throws -> Int64 { try document.integer(type, at: current) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try document.integer(type, at: current) }
    func decode(_ type: UInt.Type) throws -> UInt { try document.integer(type, at: current) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try document.integer(type, at: current) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try document.integer(type, at: current) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try document.integer(type, at: current) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try document.integer(type, at: current) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try document.integer(type, at: current) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decode(type, at: current, node: node, key: key) }
}

/// `[String: V]`, which JSONDecoder decodes without converting its keys.
protocol TapeStringDictionary {
    static func decode(from decoder: TapeDecoder, at index: Int, node: PathNode?, key: PathKey) throws -> Any
}

extension Dictionary: TapeStringDictionary where Key == String, Value: Decodable {
    static func decode(from decoder: TapeDecoder, at index: Int, node: PathNode?, key: PathKey) throws -> Any {
        let document = decoder.document
        let entry = document.entries[index]
        guard entry.kind == .object else { throw document.fail() }
        let inner = PathNode(parent: node, key: key)
        var result: [String: Value] = [:]
        result.reserveCapacity(Int(entry.length))
        var cursor = index + 1
        for _ in 0..<entry.length {
            let name = try document.string(at: cursor)
            // Every value is decoded (one may fail), the first of a repeated key is kept.
            let value = try decoder.decode(
                Value.self, at: cursor + 1, node: inner, key: .key(TapeCodingKey(stringValue: name)))
            if result[name] == nil { result[name] = value }
            cursor = document.after(cursor + 1)
        }
        return result
    }
}
