import Foundation

/// A JSON document checked in one pass and laid out flat for ``TapeDecoder``: one entry per value, in document
/// order, each container followed by its elements (an object's as key, value, key, value …).
///
/// The grammar is RFC 8259's, strictly: UTF-8 without a byte order mark, no control characters in strings, every
/// escape well formed, `\u` surrogates in pairs, numbers without leading zeros, nesting at most 512 deep, nothing
/// but whitespace after the value. Anything else is not an error of its own: ``FastJSONDecoding`` hands such a
/// document to `JSONDecoder`, whose result (a value or its exact error) is then the answer. So this reader may
/// refuse more than `JSONDecoder` does, never less.
struct JSONTape {
    enum Kind: UInt8 {
        case null, falseValue, trueValue, number, string, array, object
    }

    /// One value. Strings: `start`/`length` are the bytes between the quotes. Numbers: their bytes. Arrays and
    /// objects: `length` is the count of elements (of pairs), `end` the index of the entry after the last one.
    struct Entry {
        var kind: Kind
        var flags: UInt8
        var start: UInt32
        var length: UInt32
        var end: UInt32
    }

    /// String flags: the raw bytes hold an escape; hold a byte above 0x7F. Number flag: not a plain integer.
    static let escaped: UInt8 = 1
    static let nonASCII: UInt8 = 2
    static let fraction: UInt8 = 1

    /// The nesting `JSONDecoder` accepts (its scanner counts 512 arrays and objects).
    static let maximumDepth = 512

    var entries: [Entry] = []
}

/// Reads `bytes` into a ``JSONTape``; `nil` for anything outside the strict grammar.
struct JSONTapeReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var tape = JSONTape()
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        tape.entries.reserveCapacity(bytes.count / 6 + 4)
    }

    static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONTape? {
        guard bytes.count < Int(UInt32.max) else { return nil }
        var reader = JSONTapeReader(bytes)
        guard reader.value(), reader.skipWhitespace() == nil else { return nil }
        return reader.tape
    }

    /// Skips whitespace; the next byte, `nil` at the end.
    private mutating func skipWhitespace() -> UInt8? {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                index += 1
            } else {
                return byte
            }
        }
        return nil
    }

    private mutating func append(_ kind: JSONTape.Kind, _ flags: UInt8 = 0, start: Int = 0, length: Int = 0) {
        let next = UInt32(truncatingIfNeeded: tape.entries.count + 1)
        tape.entries.append(
            .init(
                kind: kind, flags: flags, start: UInt32(truncatingIfNeeded: start),
                length: UInt32(truncatingIfNeeded: length), end: next))
    }

    private mutating func value() -> Bool {
        guard let byte = skipWhitespace() else { return false }
        switch byte {
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "t"): return literal("true", .trueValue)
        case UInt8(ascii: "f"): return literal("false", .falseValue)
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ word: StaticString, _ kind: JSONTape.Kind) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let text = word.utf8Start
        for offset in 0..<count where bytes[index + offset] != text[offset] { return false }
        index += count
        append(kind)
        return true
    }

    private mutating func array() -> Bool {
        depth += 1
        guard depth <= JSONTape.maximumDepth else { return false }
        index += 1
        let slot = tape.entries.count
        append(.array)
        var count = 0
        if skipWhitespace() == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                guard value() else { return false }
                count += 1
                let next = skipWhitespace()
                index += 1
                if next == UInt8(ascii: ",") { continue }
                if next == UInt8(ascii: "]") { break }
                return false
            }
        }
        tape.entries[slot].length = UInt32(truncatingIfNeeded: count)
        tape.entries[slot].end = UInt32(truncatingIfNeeded: tape.entries.count)
        depth -= 1
        return true
    }

    private mutating func object() -> Bool {
        depth += 1
        guard depth <= JSONTape.maximumDepth else { return false }
        index += 1
        let slot = tape.entries.count
        append(.object)
        var count = 0
        if skipWhitespace() == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                guard skipWhitespace() == UInt8(ascii: "\""), string() else { return false }
                guard skipWhitespace() == UInt8(ascii: ":") else { return false }
                index += 1
                guard value() else { return false }
                count += 1
                let next = skipWhitespace()
                index += 1
                if next == UInt8(ascii: ",") { continue }
                if next == UInt8(ascii: "}") { break }
                return false
            }
        }
        tape.entries[slot].length = UInt32(truncatingIfNeeded: count)
        tape.entries[slot].end = UInt32(truncatingIfNeeded: tape.entries.count)
        depth -= 1
        return true
    }

    /// A string from its opening quote: validates escapes and UTF-8, records the raw bytes.
    private mutating func string() -> Bool {
        index += 1
        let start = index
        var flags: UInt8 = 0
        let count = bytes.count
        guard let base = bytes.baseAddress else { return false }
        while true {
            // Eight bytes at a time while none is a quote, a backslash, a control character or above 0x7F.
            while count - index >= 8 {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let ones: UInt64 = 0x0101_0101_0101_0101
                let highs: UInt64 = 0x8080_8080_8080_8080
                let quote = word ^ (ones &* 0x22)
                let slash = word ^ (ones &* 0x5C)
                let special =
                    ((quote &- ones) & ~quote) | ((slash &- ones) & ~slash) | ((word &- ones &* 0x20) & ~word) | word
                if special & highs != 0 { break }
                index += 8
            }
            guard index < count else { return false }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                append(.string, flags, start: start, length: index - start)
                index += 1
                return true
            } else if byte == UInt8(ascii: "\\") {
                flags |= JSONTape.escaped
                guard escape() else { return false }
            } else if byte < 0x20 {
                return false
            } else if byte >= 0x80 {
                flags |= JSONTape.nonASCII
                guard scalar() else { return false }
            } else {
                index += 1
            }
        }
    }

    /// One escape from its backslash; a `\u` high surrogate must be followed by a `\u` low one.
    private mutating func escape() -> Bool {
        guard index + 1 < bytes.count else { return false }
        switch bytes[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
            return true
        case UInt8(ascii: "u"):
            guard let unit = JSONTape.hex4(bytes, at: index + 2) else { return false }
            index += 6
            if UTF16.isTrailSurrogate(unit) { return false }
            guard UTF16.isLeadSurrogate(unit) else { return true }
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u"),
                let trail = JSONTape.hex4(bytes, at: index + 2), UTF16.isTrailSurrogate(trail)
            else { return false }
            index += 6
            return true
        default:
            return false
        }
    }

    /// One well-formed UTF-8 sequence of two to four bytes (Unicode table 3-7) from its first byte.
    private mutating func scalar() -> Bool {
        let first = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch first {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return false
        }
        guard bytes.count - index >= length else { return false }
        let second = bytes[index + 1]
        guard second >= low, second <= high else { return false }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return false }
        index += length
        return true
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() -> Bool {
        let start = index
        var flags: UInt8 = 0
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return false }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() else { return false }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            flags = JSONTape.fraction
            guard digits() else { return false }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            flags = JSONTape.fraction
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() else { return false }
        }
        append(.number, flags, start: start, length: index - start)
        return true
    }

    /// One or more digits.
    private mutating func digits() -> Bool {
        let start = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        return index > start
    }
}

extension JSONTape {
    /// Four hex digits at `offset`, `nil` if they are not.
    static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt16? {
        guard bytes.count - offset >= 4 else { return nil }
        var value: UInt16 = 0
        for index in offset..<offset + 4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }
}
