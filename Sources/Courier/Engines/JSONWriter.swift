import Foundation

/// Writes a dictionary literal's named values as a JSON object, byte for byte as the configuration's
/// `JSONEncoder` writes them, without going through `Encodable`.
///
/// One set of JSON rules: this writer only takes values whose JSON Courier knows exactly — `String`, `Int`,
/// `Bool`, finite `Double` and `Float`, `URL`, `UUID`, and arrays of `String`, `Int`, `Double` and `Bool` —
/// under encoder settings it reproduces exactly (compact output, `.sortedKeys`, `.withoutEscapingSlashes`,
/// default keys). Anything else (a model, a date, a nested dictionary, a non-finite number, a repeated name,
/// pretty printing, a key strategy) makes ``object(_:excluding:encoder:)`` return `nil`, and the encoder
/// writes the whole body: the encoder's settings stay the rules, this is a shortcut to the same bytes.
///
/// `JSONEncoder` (FoundationEssentials) writes numbers as their `description` (a `Float` or `Double` without a
/// trailing `.0`), escapes `"`, `\`, the control characters and, unless told not to, `/`, and sorts keys by
/// their UTF-8 bytes. Without `.sortedKeys` its order is its dictionary's, which is unspecified; the writer
/// then keeps the order the names were written in. On Apple platforms an app linked against an older SDK may
/// sort keys the NSString way (numeric, case-insensitive), so there the writer sorts only keys made of `a`–`z`
/// and `_`, on which both orders agree.
struct JSONWriter {
    private var bytes: [UInt8] = []
    private let escapesSlashes: Bool

    private init(escapesSlashes: Bool, capacity: Int) {
        self.escapesSlashes = escapesSlashes
        bytes.reserveCapacity(capacity)
    }

    /// The JSON object of the named values not in `excluded` (and not `nil`), or `nil` when `encoder` must write
    /// it (see the type's documentation).
    static func object(
        _ named: [(String, Parameters.Value)],
        excluding excluded: [String],
        encoder: JSONEncoder
    ) -> Data? {
        let formatting = encoder.outputFormatting
        guard formatting.isSubset(of: [.sortedKeys, .withoutEscapingSlashes]),
            case .useDefaultKeys = encoder.keyEncodingStrategy
        else { return nil }
        // The members, each copied once.
        var keys: [String] = []
        var values: [any Encodable & Sendable] = []
        keys.reserveCapacity(named.count)
        values.reserveCapacity(named.count)
        for case (let name, let value?) in named where excluded.isEmpty || !excluded.contains(name) {
            keys.append(name)
            values.append(value)
        }
        // A repeated name (as `String` compares them, which is how the encoder's dictionary keeps them): the
        // encoder keeps one of the values.
        if keys.count > 16 {
            guard Set(keys).count == keys.count else { return nil }
        } else {
            for index in keys.indices.dropFirst() where keys[..<index].contains(keys[index]) { return nil }
        }
        // The order to write them in: as written, or by their UTF-8 bytes.
        var order = Array(keys.indices)
        if formatting.contains(.sortedKeys) {
            guard sortsKeysAlike(keys) else { return nil }
            if keys.count > 16 {
                order.sort { utf8Precedes(keys[$0], keys[$1]) }
            } else {
                for end in order.indices.dropFirst() {
                    let moving = order[end]
                    var slot = end
                    while slot > 0, utf8Precedes(keys[moving], keys[order[slot - 1]]) {
                        order[slot] = order[slot - 1]
                        slot -= 1
                    }
                    order[slot] = moving
                }
            }
        }
        var writer = JSONWriter(
            escapesSlashes: !formatting.contains(.withoutEscapingSlashes), capacity: 64 + 24 * keys.count)
        writer.bytes.append(UInt8(ascii: "{"))
        for (position, index) in order.enumerated() {
            if position > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            writer.writeString(keys[index])
            writer.bytes.append(UInt8(ascii: ":"))
            guard writer.writeValue(values[index]) else { return nil }
        }
        writer.bytes.append(UInt8(ascii: "}"))
        return Data(writer.bytes)
    }

    /// Whether `a` sorts before `b` by their UTF-8 bytes, as the encoder sorts keys.
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        var (a, b) = (a, b)
        return a.withUTF8 { a in
            b.withUTF8 { b in
                let common = min(a.count, b.count)
                if common > 0, let left = a.baseAddress, let right = b.baseAddress {
                    let order = memcmp(left, right, common)
                    if order != 0 { return order < 0 }
                }
                return a.count < b.count
            }
        }
    }

    /// Whether the writer's key order (UTF-8 bytes) is the encoder's on this platform for these keys.
    private static func sortsKeysAlike(_ keys: [String]) -> Bool {
        #if canImport(Darwin)
            // Apps linked against an older SDK sort keys like NSString (numeric, case-insensitive); on keys of
            // lowercase letters and `_` alone that is the UTF-8 order too.
            return keys.allSatisfy { key in
                key.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "_") }
            }
        #else
            return true
        #endif
    }

    /// Writes `value` if its JSON is known; returns `false` (having written part of it) otherwise.
    private mutating func writeValue(_ value: any Encodable & Sendable) -> Bool {
        write(value)
    }

    /// `value`, whose type the caller has compared with `Known`, as a `Known`: a reinterpretation, not a cast,
    /// because a dynamic cast from a generic value costs more than the rest of writing a short string.
    private func known<Known, Value>(_ value: Value, as _: Known.Type) -> Known {
        unsafeBitCast(value, to: Known.self)
    }

    private mutating func write<Value: Encodable>(_ value: Value) -> Bool {
        if Value.self == String.self {
            writeString(known(value, as: String.self))
        } else if Value.self == Int.self {
            writeInteger(known(value, as: Int.self))
        } else if Value.self == Bool.self {
            append(known(value, as: Bool.self) ? "true" : "false")
        } else if Value.self == Double.self {
            return writeFloatingPoint(known(value, as: Double.self))
        } else if Value.self == [String].self {
            writeArray(known(value, as: [String].self)) { $0.writeString($1) }
        } else if Value.self == [Int].self {
            writeArray(known(value, as: [Int].self)) { $0.writeInteger($1) }
        } else if Value.self == [Double].self {
            let doubles = known(value, as: [Double].self)
            guard doubles.allSatisfy(\.isFinite) else { return false }
            writeArray(doubles) { _ = $0.writeFloatingPoint($1) }
        } else if Value.self == [Bool].self {
            writeArray(known(value, as: [Bool].self)) { $0.append($1 ? "true" : "false") }
        } else if Value.self == Int64.self {
            writeInteger(known(value, as: Int64.self))
        } else if Value.self == Float.self {
            return writeFloatingPoint(known(value, as: Float.self))
        } else if Value.self == URL.self {
            writeString(known(value, as: URL.self).absoluteString)
        } else if Value.self == UUID.self {
            writeString(known(value, as: UUID.self).uuidString)
        } else {
            return false
        }
        return true
    }

    private mutating func writeArray<Element>(_ elements: [Element], _ write: (inout Self, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The integer's decimal digits, as its `description` writes them.
    private mutating func writeInteger<Integer: FixedWidthInteger>(_ integer: Integer) {
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = integer.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeMutableBufferPointer(rebasing: digits[start...]))
        }
    }

    /// A finite number as its `description` without a trailing `.0`; `false` for a non-finite one, which the
    /// encoder's non-conforming float strategy decides.
    private mutating func writeFloatingPoint<Number: BinaryFloatingPoint & CustomStringConvertible>(
        _ number: Number
    ) -> Bool {
        guard number.isFinite else { return false }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        text.withUTF8 { bytes.append(contentsOf: $0) }
        return true
    }

    private static let hex: StaticString = "0123456789abcdef"

    private mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"),
                    byte != UInt8(ascii: "/") || !escapesSlashes
                {
                    continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                writeEscape(byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `\"`, `\\`, `\/`, `\n`, `\r`, `\t`, `\b`, `\f`, or `\u00XX` for another control character.
    private mutating func writeEscape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0..<0x20:
            append("u00")
            bytes.append(Self.hex.utf8Start[Int(byte >> 4)])
            bytes.append(Self.hex.utf8Start[Int(byte & 0x0F)])
        default: bytes.append(byte)
        }
    }
}
