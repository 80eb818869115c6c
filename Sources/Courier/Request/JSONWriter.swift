import Foundation

/// Writes a ``ParameterValue`` as compact JSON, keeping object key order and leaving `/` unescaped.
struct JSONWriter {
    let dateStyle: ParameterEncodingOptions.DateStyle
    private(set) var bytes: [UInt8] = []

    init(dateStyle: ParameterEncodingOptions.DateStyle) {
        self.dateStyle = dateStyle
    }

    /// Writes `value`. Recursive, but ``ParameterValue/make(from:depth:)`` bounds the depth of every
    /// value. Throws an `EncodingError` for a date that the date style cannot write.
    mutating func write(_ value: ParameterValue) throws {
        switch value {
        case .null: append("null")
        case .bool(let bool): append(bool ? "true" : "false")
        case .number(let number): append(number)
        case .string(let string): writeString(string)
        case .date(let date):
            switch dateStyle {
            case .iso8601, .iso8601WithFractionalSeconds:
                bytes.append(UInt8(ascii: "\""))
                try DateText.appendISO8601(date, milliseconds: dateStyle == .iso8601WithFractionalSeconds, to: &bytes)
                bytes.append(UInt8(ascii: "\""))
            case .secondsSince1970, .millisecondsSince1970:
                append(try DateText.text(date, style: dateStyle))
            }
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            try writeObject(members.lazy.map { ($0.key, $0.value) })
        }
    }

    mutating func writeObject(_ members: some Sequence<(String, ParameterValue)>) throws {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in members {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            writeString(key)
            bytes.append(UInt8(ascii: ":"))
            try write(value)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0..<0x20:
                append("\\u00")
                bytes.append(Self.hex[Int(byte >> 4)])
                bytes.append(Self.hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
