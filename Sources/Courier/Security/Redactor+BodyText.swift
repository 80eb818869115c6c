import Foundation

// Body text as it is, with secrets masked in place: for excerpts (an error's `bodyExcerpt`), which show the
// server's own bytes to diagnose a decoding failure, and for JSON that does not parse (a body cut short).
extension Redactor {
    /// The first `limit` characters of `data` as text, every secret masked: the values of secret keys in JSON
    /// (valid or not, at any depth), of secret `name=value` pairs in forms and other text, and the request's
    /// own secret values wherever they reappear. A secret is masked before the text is cut, so none is ever
    /// half shown.
    func excerpt(of data: Data, contentType: String?, limit: Int) -> String {
        // Read a little more than shown, so that a secret that starts before the cut is seen whole.
        let window = limit * 4
        let text = String(decoding: data.prefix(window), as: UTF8.self)
        let masked = scrub(maskingSecretValues(in: text, data: data, contentType: contentType))
        guard masked.count > limit || data.count > window else { return masked }
        return String(masked.prefix(limit)) + "…"
    }

    /// `text` (the start of `data`) with the values of secret keys masked, the rest unchanged: JSON by its keys,
    /// anything else by its `name=value` pairs.
    func maskingSecretValues(in text: String, data: Data, contentType: String?) -> String {
        if Self.looksLikeJSON(data) { return maskingSecretValues(inJSONText: text) }
        guard text.contains("=") else { return text }
        return redactingPairs(text, plusAsSpace: Self.isForm(contentType))
    }

    /// JSON text, whole, cut short or not quite valid, with the value of every secret key replaced by `"***"`
    /// (an object or array below a secret key as a whole); everything else byte for byte as it was.
    func maskingSecretValues(inJSONText text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                output.append(bytes[index])
                index += 1
                continue
            }
            let end = Self.endOfString(bytes, from: index)
            output.append(contentsOf: bytes[index..<end])
            // A string followed by `:` is a key.
            var colon = end
            while colon < bytes.count, Self.isJSONSpace(bytes[colon]) { colon += 1 }
            guard colon < bytes.count, bytes[colon] == UInt8(ascii: ":"), isSecretKey(Self.keyText(bytes[index..<end]))
            else {
                index = end
                continue
            }
            var value = colon + 1
            while value < bytes.count, Self.isJSONSpace(bytes[value]) { value += 1 }
            output.append(contentsOf: bytes[end..<value])
            guard value < bytes.count else { break }
            output.append(contentsOf: Array("\"\(Self.mask)\"".utf8))
            index = Self.endOfValue(bytes, from: value)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The index just past the string that opens at `start` (a `"`), or the end of the text if it is cut short.
    private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    /// The index just past the value that starts at `start`: a string, an object or array (nesting and strings
    /// inside followed), or a literal up to the next `,`, `}`, `]` or space.
    private static func endOfValue(_ bytes: [UInt8], from start: Int) -> Int {
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return endOfString(bytes, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index = endOfString(bytes, from: index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            return bytes.count
        default:
            var index = start
            while index < bytes.count, !",}] \t\r\n".utf8.contains(bytes[index]) { index += 1 }
            return index
        }
    }

    /// A key's text without its quotes, its escapes (`\u0070assword`) decoded where they decode.
    private static func keyText(_ quoted: ArraySlice<UInt8>) -> String {
        let raw = String(decoding: quoted, as: UTF8.self)
        guard quoted.contains(UInt8(ascii: "\\")) else {
            return String(raw.dropFirst().dropLast(raw.hasSuffix("\"") && raw.count > 1 ? 1 : 0))
        }
        if let decoded = try? JSONSerialization.jsonObject(with: Data(quoted), options: [.fragmentsAllowed]) as? String
        {
            return decoded
        }
        return String(raw.dropFirst())
    }

    private static func isJSONSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
