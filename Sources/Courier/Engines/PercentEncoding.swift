/// RFC 3986 percent-encoding over UTF-8 bytes.
enum PercentEncoding {
    /// A set of ASCII bytes left as they are; every other byte (all of them non-ASCII included) is encoded.
    struct Allowed: Sendable {
        /// Bit `b` set: byte `b` (0–63) is allowed.
        private let low: UInt64
        /// Bit `b - 64` set: byte `b` (64–127) is allowed.
        private let high: UInt64

        private init(_ bytes: some Sequence<UInt8>) {
            var low: UInt64 = 0
            var high: UInt64 = 0
            for byte in bytes where byte < 128 {
                if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
            }
            self.low = low
            self.high = high
        }

        @inline(__always)
        func contains(_ byte: UInt8) -> Bool {
            if byte < 64 { return low & (1 << UInt64(byte)) != 0 }
            if byte < 128 { return high & (1 << UInt64(byte &- 64)) != 0 }
            return false
        }

        private static let unreservedBytes = (0..<128).map(UInt8.init).filter(PercentEncoding.isUnreserved)

        /// `A-Z a-z 0-9 - . _ ~`: the only bytes left as they are in a value.
        static let unreserved = Allowed(unreservedBytes)
        /// Path literals written by the endpoint's author: `pchar` plus `%`, so existing escapes survive.
        static let pathLiteral = Allowed(unreservedBytes + Array("!$&'()*+,;=:@%".utf8))
        /// The delimiters of a ``DelimitedValue``: sub-delimiters that split nothing else in a path or a query.
        static let delimiters = Allowed(unreservedBytes + Array(",;=:@!$'()*".utf8))
        /// A static query written by the endpoint's author: `pchar`, `/`, `?` and `%`.
        static let queryLiteral = Allowed(unreservedBytes + Array("!$&'()*+,;=:@%/?".utf8))
    }

    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Encodes every byte of `text` that `allowing` does not contain; with `spaceAsPlus`, a space
    /// becomes `+` (the `application/x-www-form-urlencoded` rule).
    static func encode(_ text: String, allowing allowed: Allowed, spaceAsPlus: Bool = false) -> String {
        var text = text
        // Most names and values need no escape: the text itself, without building a copy.
        let clean = text.withUTF8 { bytes in bytes.allSatisfy(allowed.contains) }
        if clean { return text }
        var bytes: [UInt8] = []
        append(text, allowing: allowed, spaceAsPlus: spaceAsPlus, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` to `output`, encoded as ``encode(_:allowing:spaceAsPlus:)`` does.
    static func append(_ text: String, allowing allowed: Allowed, spaceAsPlus: Bool = false, to output: inout String) {
        var text = text
        let clean = text.withUTF8 { bytes in bytes.allSatisfy(allowed.contains) }
        if clean {
            output += text
        } else {
            var bytes: [UInt8] = []
            append(text, allowing: allowed, spaceAsPlus: spaceAsPlus, to: &bytes)
            output += String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Appends the UTF-8 bytes of `text` to `output`, encoded as ``encode(_:allowing:spaceAsPlus:)`` does.
    static func append(_ text: String, allowing allowed: Allowed, spaceAsPlus: Bool = false, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            guard let first = bytes.firstIndex(where: { !allowed.contains($0) }) else {
                output.append(contentsOf: bytes)
                return
            }
            output.reserveCapacity(output.count + bytes.count + 16)
            output.append(contentsOf: bytes[..<first])
            for byte in bytes[first...] {
                if allowed.contains(byte) {
                    output.append(byte)
                } else if spaceAsPlus, byte == UInt8(ascii: " ") {
                    output.append(UInt8(ascii: "+"))
                } else {
                    output.append(UInt8(ascii: "%"))
                    output.append(hex[Int(byte >> 4)])
                    output.append(hex[Int(byte & 0x0F)])
                }
            }
        }
    }
}
