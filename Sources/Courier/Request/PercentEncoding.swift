/// RFC 3986 percent-encoding over UTF-8 bytes.
enum PercentEncoding {
    struct Allowed {
        let contains: @Sendable (UInt8) -> Bool

        /// `A-Z a-z 0-9 - . _ ~`: the only bytes left as they are in a value.
        static let unreserved = Allowed { isUnreserved($0) }
        /// Path literals written by the endpoint's author: `pchar` plus `%`, so existing escapes survive.
        static let pathLiteral = Allowed { isUnreserved($0) || "!$&'()*+,;=:@%".utf8.contains($0) }
        /// A static query written by the endpoint's author: `pchar`, `/`, `?` and `%`.
        static let queryLiteral = Allowed { isUnreserved($0) || "!$&'()*+,;=:@%/?".utf8.contains($0) }
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
        guard let first = text.utf8.firstIndex(where: { !allowed.contains($0) }) else { return text }
        let bytes = text.utf8
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
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
        return String(decoding: output, as: UTF8.self)
    }
}
