import Foundation

/// Strings, booleans and numbers as `JSONDecoder` reads them. Anything it would read otherwise than these
/// do (a number with a fraction or exponent as an integer, a float that rounds to infinity or to zero) fails
/// the attempt, and `JSONDecoder` decides.
extension TapeDocument {
    func bool(at index: Int) throws -> Bool {
        switch entries[index].kind {
        case .trueValue: return true
        case .falseValue: return false
        default: throw fail()
        }
    }

    func string(at index: Int) throws -> String {
        let entry = entries[index]
        guard entry.kind == .string else { throw fail() }
        let raw = raw(entry)
        if entry.flags & JSONTape.escaped == 0 { return String(decoding: raw, as: UTF8.self) }
        return Self.unescaped(raw)
    }

    /// The text of an escaped string, which the reader has checked (escapes well formed, surrogates paired):
    /// never longer than its raw bytes.
    private static func unescaped(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: raw.count) { output in
            var read = 0
            var written = 0
            func put(_ byte: UInt8) {
                output[written] = byte
                written += 1
            }
            while read < raw.count {
                let byte = raw[read]
                guard byte == UInt8(ascii: "\\") else {
                    put(byte)
                    read += 1
                    continue
                }
                let code = raw[read + 1]
                read += 2
                switch code {
                case UInt8(ascii: "b"): put(0x08)
                case UInt8(ascii: "f"): put(0x0C)
                case UInt8(ascii: "n"): put(0x0A)
                case UInt8(ascii: "r"): put(0x0D)
                case UInt8(ascii: "t"): put(0x09)
                case UInt8(ascii: "u"):
                    var scalar = UInt32(JSONTape.hex4(raw, at: read) ?? 0xFFFD)
                    read += 4
                    if UTF16.isLeadSurrogate(UInt16(truncatingIfNeeded: scalar)) {
                        let trail = UInt32(JSONTape.hex4(raw, at: read + 2) ?? 0xDC00)
                        read += 6
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (trail - 0xDC00)
                    }
                    if scalar < 0x80 {
                        put(UInt8(scalar))
                    } else if scalar < 0x800 {
                        put(UInt8(0xC0 | scalar >> 6))
                        put(UInt8(0x80 | scalar & 0x3F))
                    } else if scalar < 0x10000 {
                        put(UInt8(0xE0 | scalar >> 12))
                        put(UInt8(0x80 | scalar >> 6 & 0x3F))
                        put(UInt8(0x80 | scalar & 0x3F))
                    } else {
                        put(UInt8(0xF0 | scalar >> 18))
                        put(UInt8(0x80 | scalar >> 12 & 0x3F))
                        put(UInt8(0x80 | scalar >> 6 & 0x3F))
                        put(UInt8(0x80 | scalar & 0x3F))
                    }
                default: put(code)  // " \ /
                }
            }
            return written
        }
    }

    /// A plain integer (`-?[0-9]+`) that fits `T`; `-0` is 0 whatever `T`.
    @inline(__always)
    func integer<T: FixedWidthInteger>(_ type: T.Type, at index: Int) throws -> T {
        let entry = entries[index]
        guard entry.kind == .number, entry.flags & JSONTape.fraction == 0 else { throw fail() }
        let raw = raw(entry)
        var value: T = 0
        if raw[0] == UInt8(ascii: "-") {
            for position in 1..<raw.count {
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (next, borrow) = times.subtractingReportingOverflow(T(raw[position] &- UInt8(ascii: "0")))
                guard !overflow, !borrow else { throw fail() }
                value = next
            }
        } else {
            for position in 0..<raw.count {
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (next, carry) = times.addingReportingOverflow(T(raw[position] &- UInt8(ascii: "0")))
                guard !overflow, !carry else { throw fail() }
                value = next
            }
        }
        return value
    }

    /// A number as strtod/strtof read it (correctly rounded), refusing the infinite and a non-zero number
    /// that rounds to zero as JSONDecoder does; with `.convertFromString`, an unescaped string equal to one of
    /// its three strings.
    @inline(__always)
    func floatingPoint<T: TapeFloat>(_ type: T.Type, at index: Int) throws -> T {
        let entry = entries[index]
        if entry.kind == .string, entry.flags & JSONTape.escaped == 0, let floats = settings.floats {
            let raw = raw(entry)
            if Self.equal(raw, floats.positive) { return T.infinity }
            if Self.equal(raw, floats.negative) { return -T.infinity }
            if Self.equal(raw, floats.nan) { return T.nan }
            throw fail()
        }
        guard entry.kind == .number else { throw fail() }
        let raw = raw(entry)
        let number = Self.scan(raw)
        if number.mantissa == 0 {
            guard Self.isTrueZero(raw) else { throw fail() }
            return number.negative ? -T(0) : T(0)
        }
        var value: T
        if !number.truncated, number.mantissa <= T.exactMantissa, abs(number.exponent) <= T.exactPowers {
            value = T(number.mantissa)
            let power = T.power(abs(number.exponent))
            value = number.exponent < 0 ? value / power : value * power
            if number.negative { value = -value }
        } else {
            guard let parsed = T(text: String(decoding: raw, as: UTF8.self)) else { throw fail() }
            value = parsed
        }
        guard value.isFinite, value != 0 || Self.isTrueZero(raw) else { throw fail() }
        return value
    }

    /// The digits of a number as `mantissa × 10^exponent` (its first 19 significant digits; `truncated`
    /// when there were more, or the exponent has more than 6 digits).
    private static func scan(
        _ raw: UnsafeBufferPointer<UInt8>
    ) -> (negative: Bool, mantissa: UInt64, exponent: Int, truncated: Bool) {
        var position = 0
        let negative = raw[0] == UInt8(ascii: "-")
        if negative { position = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var truncated = false
        var fraction = false
        while position < raw.count {
            let byte = raw[position]
            if byte == UInt8(ascii: ".") {
                fraction = true
            } else if byte | 0x20 == UInt8(ascii: "e") {
                break
            } else {
                let digit = UInt64(byte &- UInt8(ascii: "0"))
                if mantissa == 0 && digit == 0 {
                    if fraction { exponent -= 1 }
                } else if digits < 19 {
                    mantissa = mantissa &* 10 &+ digit
                    digits += 1
                    if fraction { exponent -= 1 }
                } else {
                    truncated = true
                    if !fraction { exponent += 1 }
                }
            }
            position += 1
        }
        if position < raw.count {
            position += 1
            var sign = 1
            if raw[position] == UInt8(ascii: "-") || raw[position] == UInt8(ascii: "+") {
                if raw[position] == UInt8(ascii: "-") { sign = -1 }
                position += 1
            }
            if raw.count - position > 6 { return (negative, mantissa, 0, true) }
            var value = 0
            while position < raw.count {
                value = value * 10 + Int(raw[position] &- UInt8(ascii: "0"))
                position += 1
            }
            exponent += sign * value
        }
        return (negative, mantissa, exponent, truncated)
    }

    /// JSONDecoder's test that a number read as zero was written as zero (and did not round to it): a 1-9 digit
    /// before an `e` says no. It reads the bytes four at a time from the start, then the last one to three from
    /// the end backwards, so a digit of the exponent can decide (`0e7` and `-0.0e5` are refused, `0e0` is not);
    /// this does the same, in the same order.
    static func isTrueZero(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        func decides(_ byte: UInt8) -> Bool? {
            switch byte {
            case UInt8(ascii: "1")...UInt8(ascii: "9"): return false
            case UInt8(ascii: "e"), UInt8(ascii: "E"): return true
            default: return nil
            }
        }
        var start = 0
        while raw.count - start >= 4 {
            for offset in start..<start + 4 {
                if let answer = decides(raw[offset]) { return answer }
            }
            start += 4
        }
        for offset in (start..<raw.count).reversed() {
            if let answer = decides(raw[offset]) { return answer }
        }
        return true
    }

    private static func equal(_ raw: UnsafeBufferPointer<UInt8>, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.elementsEqual(raw) }
    }
}

/// Double and Float as the decoder reads them: exact from a small mantissa and power of ten (one correctly
/// rounded operation, as Clinger's fast path), else parsed from the text.
protocol TapeFloat: BinaryFloatingPoint {
    /// The largest mantissa and power of ten the type holds exactly.
    static var exactMantissa: UInt64 { get }
    static var exactPowers: Int { get }
    static func power(_ exponent: Int) -> Self
    init?(text: String)
}

extension Double: TapeFloat {
    static var exactMantissa: UInt64 { 1 << 53 }
    static var exactPowers: Int { 22 }
    private static let powers: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }
    static func power(_ exponent: Int) -> Double { powers[exponent] }
    init?(text: String) { self.init(text) }
}

extension Float: TapeFloat {
    static var exactMantissa: UInt64 { 1 << 24 }
    static var exactPowers: Int { 10 }
    private static let powers: [Float] = (0...10).map { exponent in
        (0..<exponent).reduce(Float(1)) { value, _ in value * 10 }
    }
    static func power(_ exponent: Int) -> Float { powers[exponent] }
    init?(text: String) { self.init(text) }
}
