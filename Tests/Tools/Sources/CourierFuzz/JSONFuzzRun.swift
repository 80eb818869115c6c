@_spi(Testing) import Courier
import Foundation

/// Random schemas, documents and settings for the JSON differential fuzz.
struct JSONGenerator {
    var random: SplitMix64

    static let keys = [
        "a", "b", "id", "name", "user_id", "userId", "first_name", "firstName", "_private", "trailing_", "__x__",
        "URL_value", "é", "e\u{301}", "K", "\u{212A}", "super", "a_b_c", "", "ключ", "emoji🚀", "with space",
        "with1_2number", "a_1st_b2c", "ABC_DEF", "x_Yz", "straße_groß", "a-b_c.d", "user_ID",
    ]

    mutating func schema(depth: Int = 0) -> Schema {
        let leaves: [Schema] = [
            .bool, .string, .int, .int8, .uint8, .int32, .uint64, .double, .float, .date, .data, .url, .decimal,
        ]
        if depth > 3 || random.below(3) == 0 { return random.pick(leaves) }
        switch random.below(7) {
        case 0: return .optional(schema(depth: depth + 1))
        case 1: return .array(schema(depth: depth + 1))
        case 2: return .dictionary(schema(depth: depth + 1))
        case 3: return .manualArray(schema(depth: depth + 1))
        case 4: return .lenient(schema(depth: depth + 1))
        default:
            let fields = (0..<random.below(5)).map { _ in
                Schema.Field(
                    key: random.pick(Self.keys), schema: schema(depth: depth + 1),
                    mode: random.pick(Schema.Mode.allCases))
            }
            return .object(fields)
        }
    }

    /// A document for `schema`: mostly of its shape, sometimes not.
    mutating func document(_ schema: Schema, depth: Int = 0) -> String {
        if random.oneIn(12) { return anyValue(depth: depth) }
        switch schema {
        case .bool: return random.bool() ? "true" : "false"
        case .string, .url: return string()
        case .int, .int8, .uint8, .int32, .uint64: return integer()
        case .double, .float: return random.oneIn(6) ? string() : number()
        case .decimal: return number()
        case .date: return random.bool() ? number() : string()
        case .data: return random.bool() ? base64() : string()
        case .optional(let inner): return random.oneIn(3) ? "null" : document(inner, depth: depth + 1)
        case .array(let inner), .manualArray(let inner):
            let count = random.below(4)
            return "[" + (0..<count).map { _ in document(inner, depth: depth + 1) }.joined(separator: ",") + "]"
        case .dictionary(let inner):
            return object((0..<random.below(4)).map { _ in (key(), document(inner, depth: depth + 1)) })
        case .lenient(let inner): return document(inner, depth: depth + 1)
        case .object(let fields):
            var members: [(String, String)] = []
            for field in fields where !random.oneIn(6) {
                members.append((quoted(field.key), document(field.schema, depth: depth + 1)))
                if random.oneIn(8) { members.append((quoted(field.key), document(field.schema, depth: depth + 1))) }
            }
            if random.oneIn(4) { members.append((key(), anyValue(depth: depth + 1))) }
            if random.oneIn(6) { members.shuffle(using: &random) }
            return object(members)
        }
    }

    private func object(_ members: [(String, String)]) -> String {
        "{" + members.map { "\($0.0):\($0.1)" }.joined(separator: ",") + "}"
    }

    mutating func key() -> String {
        random.oneIn(5) ? string() : quoted(random.pick(Self.keys))
    }

    mutating func quoted(_ text: String) -> String {
        guard random.oneIn(6), let first = text.unicodeScalars.first, first.value < 0x10000 else {
            return "\"\(text)\""
        }
        // The first character as a \u escape.
        return "\"\\u" + String(format: "%04x", first.value) + String(text.unicodeScalars.dropFirst()) + "\""
    }

    mutating func anyValue(depth: Int) -> String {
        switch random.below(depth > 6 ? 4 : 7) {
        case 0: return "null"
        case 1: return number()
        case 2: return string()
        case 3: return random.bool() ? "true" : "false"
        case 4:
            if random.oneIn(40) {
                let levels = 500 + random.below(20)
                return String(repeating: "[", count: levels) + "1" + String(repeating: "]", count: levels)
            }
            return "[" + (0..<random.below(3)).map { _ in anyValue(depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            return object((0..<random.below(3)).map { _ in (key(), anyValue(depth: depth + 1)) })
        }
    }

    static let integers = [
        "0", "-0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "32767", "2147483647", "-2147483648",
        "2147483648", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "1.0", "1e2", "1E+2", "-0.0", "1.5", "100000000000000000000",
        "12345678901234567890123", "9007199254740993", "01", "-", "1.", ".1", "+1", "0x10", "1e400", "2e-400",
    ]

    mutating func integer() -> String {
        if random.bool() { return random.pick(Self.integers) }
        let value = Int64(bitPattern: random.next()) >> Int64(random.below(64))
        return "\(value)"
    }

    static let floats = [
        "0.1", "-0", "-0.0", "0e0", "0E-7", "1e22", "1e23", "4.9e-324", "2.4703282292062328e-324", "1e-400",
        "1.7976931348623157e308", "1.7976931348623159e308", "3.4028235e38", "3.4028236e38", "1e-45", "1e-46",
        "1.00000017881393432617187499", "1.000000178813934326171875", "9007199254740993", "0.30000000000000004",
        "123456789012345678901234567890e-20", "0.000000000000000000000000000001", "1e0000000000000001",
    ]

    mutating func number() -> String {
        switch random.below(4) {
        case 0: return random.pick(Self.floats)
        case 1: return random.pick(Self.integers)
        case 2:
            let mantissa = random.next() >> UInt64(random.below(64))
            let exponent = random.below(80) - 40
            return "\(random.bool() ? "-" : "")\(mantissa)\(random.bool() ? "e\(exponent)" : "")"
        default:
            return "\(Double(bitPattern: random.next()))".replacingOccurrences(of: "inf", with: "1e999")
                .replacingOccurrences(of: "nan", with: "0")
        }
    }

    static let pieces = [
        "a", "Z", " ", "é", "中", "🚀", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041",
        "\\u00e9", "\\u0000", "\\ud83d\\ude80", "\\uD83D\\uDE80", "\\ud83d", "\\ude80", "\\ud83d\\u0041", "\\x",
        "\\u12", "\\U0041", "e\u{301}", "\u{212A}", "+inf", "-inf", "nan", "2024-05-06T07:08:09Z",
        "2024-05-06T07:08:09.5+02:00", "https://example.com/a?b=c", "http://[::1", "aGVsbG8=", "_", "__",
    ]

    mutating func string() -> String {
        "\"" + (0..<random.below(6)).map { _ in random.pick(Self.pieces) }.joined() + "\""
    }

    mutating func base64() -> String {
        let bytes = (0..<random.below(12)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var text = Data(bytes).base64EncodedString()
        if random.oneIn(4) { text = String(text.dropLast()) }
        return "\"\(text)\""
    }

    /// The document's bytes, sometimes with whitespace, a BOM, trailing bytes or a byte changed.
    mutating func bytes(_ text: String) -> Data {
        var bytes = Array(text.utf8)
        if random.oneIn(5) { bytes = Array(" \n\t\r".utf8) + bytes + Array(" \r\n".utf8) }
        switch random.below(20) {
        case 0: bytes = [0xEF, 0xBB, 0xBF] + bytes
        case 1: bytes += Array(random.pick([" x", ",", "}", "]", "\u{0}", " 1"]).utf8)
        case 2, 3:
            if !bytes.isEmpty {
                bytes[random.below(bytes.count)] = random.pick([0x22, 0x5C, 0x01, 0x80, 0xC0, 0xED, 0xFF, 0x7B, 0x30])
            }
        case 4:
            if !bytes.isEmpty { bytes.remove(at: random.below(bytes.count)) }
        default: break
        }
        return Data(bytes)
    }

    mutating func decoder() -> JSONDecoder {
        let decoder = random.oneIn(3) ? APIConfiguration.makeDefaultDecoder() : JSONDecoder()
        if random.oneIn(3) { decoder.keyDecodingStrategy = .convertFromSnakeCase }
        switch random.below(7) {
        case 0: decoder.dateDecodingStrategy = .secondsSince1970
        case 1: decoder.dateDecodingStrategy = .millisecondsSince1970
        case 2: decoder.dateDecodingStrategy = .iso8601
        case 3: decoder.dateDecodingStrategy = .deferredToDate
        default: break
        }
        if random.oneIn(4) { decoder.dataDecodingStrategy = .deferredToData }
        if random.oneIn(3) {
            decoder.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        }
        // A setting Courier leaves to JSONDecoder. (Not allowsJSON5: JSONDecoder traps on some malformed numbers
        // in JSON5 mode, in swift-foundation's JSON5Scanner.validateNumber.)
        if random.oneIn(50) {
            decoder.keyDecodingStrategy = .custom { keys in keys.last ?? Shape.Key(stringValue: "") }
        }
        return decoder
    }
}

extension SplitMix64: RandomNumberGenerator {}

enum JSONFuzz {
    /// Runs `cases` cases from `seed`; the exit code (0: no mismatch).
    static func run(seed: UInt64, cases: Int, verbose: Bool) -> Int32 {
        var generator = JSONGenerator(random: SplitMix64(seed: seed))
        // JSONDecoder decodes a `[String: V]` in its dictionary's order, which is random in each process unless
        // hashing is deterministic: then two of its own decodes may throw for different keys.
        let strictErrors = ProcessInfo.processInfo.environment["SWIFT_DETERMINISTIC_HASHING"] != nil
        if !strictErrors {
            say("note: errors compared by kind only; set SWIFT_DETERMINISTIC_HASHING=1 to compare them")
        }
        var (answered, fellBack, bothFailed, mismatches) = (0, 0, 0, 0)
        let start = Date()
        for index in 0..<cases {
            let schema = generator.schema()
            let data = generator.bytes(generator.document(schema))
            let decoder = generator.decoder()
            let stack = SchemaStack()
            stack.stack = [schema]
            if let key = SchemaStack.key { decoder.userInfo[key] = stack }
            let courier = JSONResponseDecoder.json(decoder)
            func fail(_ message: String) {
                mismatches += 1
                guard mismatches <= 20 else { return }
                say("MISMATCH case \(index): \(message.prefix(600))")
                say("  schema: \(String(describing: schema).prefix(400))")
                say("  document: \(String(decoding: data.prefix(400), as: UTF8.self).debugDescription)")
            }
            let reference = Result { try decoder.decode(Shape.self, from: data) }
            stack.stack = [schema]
            let attempt = courier.courierAttempt(Shape.self, from: data)
            stack.stack = [schema]
            let viaCourier = Result { try courier.decode(Shape.self, from: data) }
            if let attempt {
                answered += 1
                switch reference {
                case .success(let value) where value == attempt: break
                case .success(let value): fail("Courier \(attempt.trace) ≠ JSONDecoder \(value.trace)")
                case .failure(let error): fail("Courier \(attempt.trace); JSONDecoder threw \(error)")
                }
            } else {
                fellBack += 1
            }
            switch (reference, viaCourier) {
            case (.success(let left), .success(let right)) where left == right: break
            case (.failure(let left), .failure(let right)) where !strictErrors || describe(left) == describe(right):
                bothFailed += 1
            default: fail("JSONResponseDecoder \(viaCourier) ≠ JSONDecoder \(reference)")
            }
            if verbose, index % 100_000 == 0 { say("… \(index) cases") }
        }
        let seconds = Int(Date().timeIntervalSince(start).rounded())
        say(
            "json cases=\(cases) courier-answered=\(answered) left-to-JSONDecoder=\(fellBack) "
                + "both-threw=\(bothFailed) mismatches=\(mismatches) seed=\(seed) seconds=\(seconds)")
        return mismatches == 0 ? 0 : 1
    }

    /// An error's kind, coding path and description.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(type(of: error)) \(error)" }
        let context: DecodingError.Context
        let kind: String
        switch error {
        case .typeMismatch(let type, let c): (kind, context) = ("typeMismatch \(type)", c)
        case .valueNotFound(let type, let c): (kind, context) = ("valueNotFound \(type)", c)
        case .keyNotFound(let key, let c): (kind, context) = ("keyNotFound \(key.stringValue)", c)
        case .dataCorrupted(let c): (kind, context) = ("dataCorrupted", c)
        @unknown default: return "\(error)"
        }
        return "\(kind) at \(Shape.path(context.codingPath)): \(context.debugDescription)"
    }
}
