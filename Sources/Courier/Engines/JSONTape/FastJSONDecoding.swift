import Foundation

/// Courier's own JSON decoding, used in place of `JSONDecoder.decode` when it gives the same answer: the same
/// value, or (by decoding again with the `JSONDecoder`) exactly the error `JSONDecoder` throws.
///
/// How it stays equal to `JSONDecoder` (swift-foundation's rules, which this mirrors):
/// - It runs only for a plain `JSONDecoder` (not a subclass) whose settings it implements: every key strategy
///   but `.custom`, every date strategy but `.formatted`, every data strategy, every non-conforming float
///   strategy, any `userInfo`; not with `allowsJSON5` or `assumesTopLevelDictionary`. A custom date or data
///   closure runs with this decoder, as a type's `init(from:)` does.
/// - ``JSONTapeReader`` refuses more documents than `JSONDecoder` does, never fewer.
/// - Whatever it does not do exactly as `JSONDecoder` (a number like `1.0` or `1e2` read as an integer, a
///   `Decimal`, …) and every error, even one a type's `init(from:)` catches, marks the attempt failed; a failed
///   attempt is thrown away and `JSONDecoder` decodes the data (so a type's `init(from:)` may run twice then).
enum FastJSONDecoding {
    /// Decodes `type` from `data` as `decoder` does.
    static func decode<Value: Decodable>(
        _ type: Value.Type, from data: Data, with decoder: JSONDecoder
    ) throws
        -> Value
    {
        if let value = attempt(type, from: data, with: decoder) { return value }
        return try decoder.decode(type, from: data)
    }

    /// The value when Courier's decoder reads it without failing, else `nil`.
    static func attempt<Value: Decodable>(_ type: Value.Type, from data: Data, with decoder: JSONDecoder) -> Value? {
        guard ObjectIdentifier(Swift.type(of: decoder)) == ObjectIdentifier(JSONDecoder.self),
            let settings = TapeSettings(decoder), let document = TapeDocument(data, settings: settings)
        else { return nil }
        let root = TapeDecoder(document: document, current: 0, node: nil, key: .none)
        guard let value = try? root.decode(type, at: 0, node: nil, key: .none), !document.failed else { return nil }
        return value
    }
}

/// The `JSONDecoder` settings the tape decoder implements, read once per decode.
struct TapeSettings {
    enum Dates {
        case deferred, seconds, milliseconds, iso8601
        case custom(@Sendable (any Decoder) throws -> Date)
    }

    enum Bytes {
        case deferred, base64
        case custom(@Sendable (any Decoder) throws -> Data)
    }

    var snakeCaseKeys: Bool
    var dates: Dates
    var bytes: Bytes
    /// The strings read as +infinity, -infinity and NaN (`.convertFromString`), `nil` for `.throw`.
    var floats: (positive: String, negative: String, nan: String)?
    var userInfo: [CodingUserInfoKey: Any]

    init?(_ decoder: JSONDecoder) {
        if #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) {
            guard !decoder.allowsJSON5, !decoder.assumesTopLevelDictionary else { return nil }
        }
        let keys = decoder.keyDecodingStrategy
        if case .useDefaultKeys = keys {
            snakeCaseKeys = false
        } else if case .convertFromSnakeCase = keys {
            snakeCaseKeys = true
        } else {
            return nil
        }
        let dates = decoder.dateDecodingStrategy
        if case .custom(let closure) = dates {
            self.dates = .custom(closure)
        } else if case .deferredToDate = dates {
            self.dates = .deferred
        } else if case .secondsSince1970 = dates {
            self.dates = .seconds
        } else if case .millisecondsSince1970 = dates {
            self.dates = .milliseconds
        } else if case .iso8601 = dates {
            self.dates = .iso8601
        } else {
            return nil
        }
        let bytes = decoder.dataDecodingStrategy
        if case .base64 = bytes {
            self.bytes = .base64
        } else if case .deferredToData = bytes {
            self.bytes = .deferred
        } else if case .custom(let closure) = bytes {
            self.bytes = .custom(closure)
        } else {
            return nil
        }
        let floats = decoder.nonConformingFloatDecodingStrategy
        if case .convertFromString(let positive, let negative, let nan) = floats {
            self.floats = (positive, negative, nan)
        } else if case .throw = floats {
            self.floats = nil
        } else {
            return nil
        }
        let info = decoder.userInfo
        userInfo = info.isEmpty ? [:] : info.mapValues { $0 as Any }
    }
}

/// The document a decode reads: its bytes (a copy, so that a decoder a type keeps stays valid), its tape and
/// the settings. `failed` is set by every error the tape decoder throws.
final class TapeDocument {
    let bytes: UnsafeMutableBufferPointer<UInt8>
    let entries: [JSONTape.Entry]
    let settings: TapeSettings
    /// The index of a `null` entry after the document's own, for `superDecoder(forKey:)` of a missing key.
    let nullEntry: Int
    var failed = false

    init?(_ data: Data, settings: TapeSettings) {
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(data.count, 1))
        let count = data.copyBytes(to: bytes)
        guard var tape = JSONTapeReader.read(UnsafeBufferPointer(rebasing: bytes[0..<count])) else {
            bytes.deallocate()
            return nil
        }
        nullEntry = tape.entries.count
        tape.entries.append(.init(kind: .null, flags: 0, start: 0, length: 0, end: UInt32(nullEntry + 1)))
        self.bytes = bytes
        self.entries = tape.entries
        self.settings = settings
    }

    deinit { bytes.deallocate() }

    /// Marks the attempt failed and returns the error to throw.
    func fail() -> any Error {
        failed = true
        return TapeDecodingFailure()
    }

    /// The raw bytes of entry `index` (between the quotes for a string).
    @inline(__always)
    func raw(_ entry: JSONTape.Entry) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[Int(entry.start)..<Int(entry.start) + Int(entry.length)])
    }

    /// The index of the entry after the value at `index`.
    @inline(__always)
    func after(_ index: Int) -> Int { Int(entries[index].end) }
}

/// Thrown inside the tape decoder; never leaves ``FastJSONDecoding``.
struct TapeDecodingFailure: Error {}

/// A coding path step: a container's key, an array index, or nothing (the top level).
enum PathKey {
    case none
    case key(any CodingKey)
    case index(Int)
}

/// A container's place in the document: its parent's, plus its key. Keyed containers also keep their key
/// lookup tables here.
final class PathNode {
    let parent: PathNode?
    let key: PathKey
    /// The object's key texts as the key strategy makes them and, for large objects, their first value index.
    var keyTexts: [String]?
    var firstIndex: [String: Int]?

    init(parent: PathNode?, key: PathKey) {
        self.parent = parent
        self.key = key
    }

    static func path(_ node: PathNode?, _ key: PathKey) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        key.append(to: &keys)
        var node = node
        while let current = node {
            current.key.append(to: &keys)
            node = current.parent
        }
        return keys.reversed()
    }
}

extension PathKey {
    fileprivate func append(to keys: inout [any CodingKey]) {
        switch self {
        case .none: break
        case .key(let key): keys.append(key)
        case .index(let index): keys.append(TapeCodingKey(index: index))
        }
    }
}

/// The coding keys the decoder makes itself: array indices (`"Index 3"`, 3), `super`, dictionary keys.
struct TapeCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }

    init(index: Int) {
        self.stringValue = "Index \(index)"
        self.intValue = index
    }
}
