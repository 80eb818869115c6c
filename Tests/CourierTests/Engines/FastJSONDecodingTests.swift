import Foundation
import Testing

@testable import Courier

/// Courier's JSON decoder against `JSONDecoder` on the same bytes and settings: whenever Courier's answers
/// (no fallback), `JSONDecoder` must succeed with the same value (compared by `dump`, so -0.0 and NaN count);
/// `fast` says whether Courier must answer itself (`true`), must leave it to `JSONDecoder` (`false`) or either.
struct DifferentialCase: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let fast: Bool?
    let run: @Sendable () -> (answered: Bool, mismatch: String?)

    static func of<T: Decodable & SendableMetatype>(
        _ type: T.Type, _ json: some Sequence<UInt8> & Sendable, fast: Bool? = nil,
        _ configure: @escaping @Sendable (JSONDecoder) -> Void = { _ in }
    ) -> DifferentialCase {
        let bytes = Array(json)
        let label = String(decoding: bytes.prefix(60), as: UTF8.self)
        return DifferentialCase(testDescription: "\(T.self) ← \(label)", fast: fast) {
            let decoder = JSONDecoder()
            configure(decoder)
            return Differential.compare(T.self, Data(bytes), decoder)
        }
    }

    static func of<T: Decodable & SendableMetatype>(
        _ type: T.Type, _ json: String, fast: Bool? = nil,
        _ configure: @escaping @Sendable (JSONDecoder) -> Void = { _ in }
    ) -> DifferentialCase {
        of(type, Array(json.utf8), fast: fast, configure)
    }
}

enum Differential {
    /// Whether Courier answered, and how its answer differs from JSONDecoder's (`nil`: it does not).
    static func compare<T: Decodable>(_ type: T.Type, _ data: Data, _ decoder: JSONDecoder) -> (Bool, String?) {
        guard let fast = FastJSONDecoding.attempt(type, from: data, with: decoder) else { return (false, nil) }
        do {
            let reference = try decoder.decode(type, from: data)
            let (left, right) = (dumped(fast), dumped(reference))
            return (true, left == right ? nil : "Courier \(left) ≠ JSONDecoder \(right)")
        } catch {
            return (true, "Courier decoded \(dumped(fast)); JSONDecoder threw \(error)")
        }
    }

    /// A canonical text of `value`: dictionaries sorted, floats by bit pattern (so -0.0 and NaN compare).
    static func dumped(_ value: Any) -> String {
        if let double = value as? Double { return "d\(double.bitPattern)" }
        if let float = value as? Float { return "f\(float.bitPattern)" }
        let mirror = Mirror(reflecting: value)
        if mirror.children.isEmpty { return String(reflecting: value) }
        var parts = mirror.children.map { "\($0.label ?? "_"): \(dumped($0.value))" }
        if mirror.displayStyle == .dictionary || mirror.displayStyle == .set { parts.sort() }
        return "\(type(of: value))(\(parts.joined(separator: ", ")))"
    }
}

// MARK: Shapes

struct FJPair: Decodable, Equatable {
    var a: Int
    var b: String?
}

struct FJPerson: Decodable, Equatable {
    var firstName: String
    var lastName: String?
    var age: Int
}

/// Any nesting of arrays ending in integers.
indirect enum FJNest: Decodable, Equatable {
    case leaf(Int)
    case list([FJNest])

    init(from decoder: any Decoder) throws {
        if let value = try? decoder.singleValueContainer().decode(Int.self) {
            self = .leaf(value)
        } else {
            self = .list(try [FJNest](from: decoder))
        }
    }
}

/// Reads everything the containers offer: paths, counts, nil checks, nested containers, super decoders.
struct ContainerProbe: Decodable {
    var paths: [String] = []
    var values: [String] = []

    enum Key: String, CodingKey {
        case list, object, missing, a
        case parent = "super"
    }

    init(from decoder: any Decoder) throws {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { "\($0.stringValue)/\($0.intValue.map(String.init) ?? "-")" }.joined(separator: ".")
        }
        let container = try decoder.container(keyedBy: Key.self)
        paths.append(path(container.codingPath))
        values.append("\(container.allKeys.map(\.stringValue).sorted())")
        values.append("\(container.contains(.missing)) \(container.contains(.list))")
        var list = try container.nestedUnkeyedContainer(forKey: .list)
        paths.append(path(list.codingPath))
        values.append("count \(String(describing: list.count)) at end \(list.isAtEnd)")
        while !list.isAtEnd {
            if try list.decodeNil() {
                values.append("nil at \(list.currentIndex)")
                continue
            }
            let inner = try list.superDecoder()
            paths.append(path(inner.codingPath))
            values.append("\(try inner.singleValueContainer().decode(Int.self))")
        }
        values.append("after end \(String(describing: try list.decodeIfPresent(Int.self))) \(list.currentIndex)")
        let object = try container.nestedContainer(keyedBy: Key.self, forKey: .object)
        paths.append(path(object.codingPath))
        values.append("\(try object.decodeNil(forKey: .a))")
        let missing = try container.superDecoder(forKey: .missing)
        paths.append(path(missing.codingPath))
        values.append("missing is nil: \(try missing.singleValueContainer().decodeNil())")
        let parent = try container.superDecoder()
        paths.append(path(parent.codingPath))
        values.append("super: \(try parent.singleValueContainer().decode(String.self))")
    }
}

/// Swallows errors, as lenient models do: Courier must not answer with its own idea of the failure.
struct FJLenient: Decodable {
    var value: Int

    enum Key: CodingKey { case value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        value = (try? container.decode(Int.self, forKey: .value)) ?? -1
    }
}

struct FJDated: Decodable {
    var at: Date
}

struct FJBlob: Decodable {
    var data: Data
}

struct FJLink: Decodable {
    var url: URL
}

struct FJMoney: Decodable {
    var amount: Decimal
}

struct FJFloats: Decodable {
    var double: Double
    var float: Float
}

@Suite("Courier's JSON decoder gives JSONDecoder's answers")
struct FastJSONDecodingTests {
    static let numbers: [DifferentialCase] = [
        .of(Int.self, "1", fast: true), .of(Int.self, "-0", fast: true), .of(UInt.self, "-0", fast: true),
        .of(Int.self, "1.0", fast: false), .of(Int.self, "1e2", fast: false), .of(UInt.self, "-1", fast: false),
        .of(Int64.self, "9223372036854775807", fast: true), .of(Int64.self, "9223372036854775808", fast: false),
        .of(Int64.self, "-9223372036854775808", fast: true), .of(Int64.self, "-9223372036854775809"),
        .of(UInt64.self, "18446744073709551615", fast: true), .of(UInt64.self, "18446744073709551616"),
        .of(UInt8.self, "255", fast: true), .of(UInt8.self, "256"), .of(Int8.self, "-128", fast: true),
        .of(Int8.self, "-129"), .of(Int16.self, "32767"), .of(Int32.self, "-2147483648"), .of(UInt16.self, "65536"),
        .of(UInt32.self, "4294967295"), .of(Int.self, "01"), .of(Int.self, "+1"), .of(Int.self, "-"),
        .of(Int.self, "true"), .of(Int.self, "\"1\""), .of(Double.self, "1", fast: true),
        .of(Double.self, "-0", fast: true), .of(Double.self, "-0.0", fast: true), .of(Double.self, "0.1", fast: true),
        .of(Double.self, "1e400", fast: false), .of(Double.self, "1e-400", fast: false),
        .of(Double.self, "0e99999999", fast: true), .of(Double.self, "0E7", fast: false),
        .of(Float.self, "0e7", fast: false), .of(Double.self, "0e0", fast: true),
        .of(Double.self, "-0.0e5", fast: false),
        .of(Double.self, "-0.0e0", fast: true), .of(Double.self, "0.0000e-12", fast: true),
        .of(Double.self, "4.9e-324", fast: true),
        .of(Double.self, "2.2250738585072014e-308"), .of(Double.self, "1.7976931348623157e308"),
        .of(Double.self, "9007199254740993"), .of(Double.self, "123456789012345678901234567890"),
        .of(Double.self, "0.30000000000000004"), .of(Double.self, "1E22"), .of(Double.self, "1e23"),
        .of(Double.self, "3.141592653589793238462643383279"), .of(Double.self, "1.", fast: false),
        .of(Double.self, ".5", fast: false), .of(Double.self, "1e", fast: false), .of(Double.self, "NaN"),
        .of(Float.self, "0.1", fast: true), .of(Float.self, "3.4028235e38"), .of(Float.self, "3.5e38", fast: false),
        .of(Float.self, "1e-46", fast: false), .of(Float.self, "1.00000017881393432617187499"),
        .of(Float.self, "16777217"), .of(Float.self, "1e10"), .of(Float.self, "1.5e-45"),
        .of(Decimal.self, "1.5", fast: false), .of(FJMoney.self, #"{"amount": 12.30}"#, fast: false),
        .of([Int?].self, "[1, null, -3]", fast: true),
    ]

    static let strings: [DifferentialCase] = [
        .of(String.self, #""plain""#, fast: true),
        .of(String.self, #""\"\\\/\b\f\n\r\t""#, fast: true),
        .of(String.self, #""caf\u00e9 \u00E9 \u4e2d""#, fast: true),
        .of(String.self, #""\ud83d\ude00 and \uD83D\uDE00""#, fast: true),
        .of(String.self, #""\ud83d""#, fast: false), .of(String.self, #""\ude00""#, fast: false),
        .of(String.self, #""\ud83d\u0041""#, fast: false), .of(String.self, #""\u0000""#, fast: true),
        .of(String.self, #""\x""#, fast: false), .of(String.self, #""\u12""#, fast: false),
        .of(String.self, [0x22, 0x01, 0x22], fast: false), .of(String.self, [0x22, 0xFF, 0x22], fast: false),
        .of(String.self, [0x22, 0xC0, 0xAF, 0x22], fast: false), .of(String.self, [0x22, 0xED, 0xA0, 0x80, 0x22]),
        .of(String.self, [0x22, 0xF4, 0x8F, 0xBF, 0xBF, 0x22], fast: true),
        .of(String.self, [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], fast: false),
        .of(String.self, [0x22, 0xE2, 0x82, 0x22], fast: false),
        .of(String.self, Array("\"e\u{301} ünïcödé ✓ 𝄞\"".utf8), fast: true),
        .of(String.self, #""a long string of ascii text that crosses several eight byte words \n here""#),
        .of(FJLink.self, #"{"url": "https://example.com/a?b=c"}"#, fast: true),
        .of(FJLink.self, #"{"url": ""}"#, fast: false), .of(URL.self, #""http://[::1""#),
    ]

    static let structure: [DifferentialCase] = [
        .of(FJPair.self, #"{"a": 1, "b": "x"}"#, fast: true), .of(FJPair.self, #"{"a": 1}"#, fast: true),
        .of(FJPair.self, #"{"a": 1, "b": null}"#, fast: true), .of(FJPair.self, #"{"b": "x"}"#, fast: false),
        .of(FJPair.self, #"{"a": null}"#, fast: false), .of(FJPair.self, #"{"a": 1, "a": 2}"#, fast: true),
        .of(FJPair.self, #"{"a": 1, "a": "x"}"#, fast: true), .of(FJPair.self, #"{"\u0061": 5}"#, fast: true),
        .of([String: Int].self, #"{"e\u0301": 1, "é": 2, "K": 3, "\u212a": 4}"#),
        .of([String: Int].self, #"{"x": 1, "x": 2, "y": 3}"#, fast: true),
        .of([String: Int].self, "{" + (0..<40).map { #""k\#($0 % 30)": \#($0)"# }.joined(separator: ",") + "}"),
        .of(FJPair.self, "{" + (0..<30).map { #""k\#($0)": \#($0)"# }.joined(separator: ",") + #","a":7,"a":8}"#),
        .of(Int?.self, "null", fast: true), .of(Int.self, "null", fast: false),
        .of(Int.self, " \r\n\t7 \n", fast: true),
        .of(Int.self, "\u{FEFF}7", fast: false), .of(Int.self, "7 x", fast: false), .of(Int.self, "", fast: false),
        .of([Int].self, "[1,]", fast: false), .of(FJPair.self, #"{"a":1,}"#, fast: false),
        .of([Int].self, Array("[1,2]".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }), fast: false),
        .of([Int].self, [0xFE, 0xFF] + Array("[1]".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })),
        .of(FJNest.self, String(repeating: "[", count: 511) + "1" + String(repeating: "]", count: 511)),
        .of(FJNest.self, String(repeating: "[", count: 512) + "1" + String(repeating: "]", count: 512)),
        .of(FJNest.self, String(repeating: "[", count: 513) + "1" + String(repeating: "]", count: 513), fast: false),
        .of([[String: [Int?]]].self, #"[{"a": [1, null]}, {}, {"b": []}]"#, fast: true),
        .of(Bool.self, "true", fast: true), .of(Bool.self, "1", fast: false), .of([Bool].self, "[false, tru]"),
        .of(ContainerProbe.self, #"{"list": [1, null, 3], "object": {"a": null}, "super": "s", "a": 0}"#, fast: true),
        .of(FJLenient.self, #"{"value": 1.0}"#, fast: false), .of(FJLenient.self, #"{"value": 2}"#, fast: true),
    ]

    static let strategies: [DifferentialCase] = [
        .of(FJPerson.self, #"{"first_name": "A", "last_name": "B", "age": 3}"#, fast: true) {
            $0.keyDecodingStrategy = .convertFromSnakeCase
        },
        .of([String: Int].self, #"{"_a_b_": 1, "__x": 2, "y__": 3, "ALL_CAPS": 4, "a__b": 5, "_": 6}"#, fast: true) {
            $0.keyDecodingStrategy = .convertFromSnakeCase
        },
        .of([String: [String: Int]].self, #"{"outer_key": {"inner_key": 1}}"#, fast: true) {
            $0.keyDecodingStrategy = .convertFromSnakeCase
        },
        .of(FJSnakeProbe.self, FJSnakeProbe.json, fast: true) { $0.keyDecodingStrategy = .convertFromSnakeCase },
        .of(FJKeyList.self, FJKeyList.json, fast: true) { $0.keyDecodingStrategy = .convertFromSnakeCase },
        .of(FJPerson.self, #"{"firstName": "A", "age": 3}"#) { $0.keyDecodingStrategy = .convertFromSnakeCase },
        .of(FJPerson.self, #"{"FIRSTNAME": "A", "age": 3}"#, fast: false) {
            $0.keyDecodingStrategy = .custom { keys in
                TapeCodingKey(stringValue: keys.last?.stringValue.lowercased() ?? "")
            }
        },
        .of(FJDated.self, #"{"at": 12.5}"#, fast: true) { $0.dateDecodingStrategy = .deferredToDate },
        .of(FJDated.self, #"{"at": 1700000000}"#, fast: true) { $0.dateDecodingStrategy = .secondsSince1970 },
        .of(FJDated.self, #"{"at": 1700000000123}"#, fast: true) { $0.dateDecodingStrategy = .millisecondsSince1970 },
        .of(FJDated.self, #"{"at": "2024-05-06T07:08:09Z"}"#, fast: true) { $0.dateDecodingStrategy = .iso8601 },
        .of(FJDated.self, #"{"at": "2024-05-06"}"#, fast: false) { $0.dateDecodingStrategy = .iso8601 },
        .of(FJDated.self, #"{"at": "2024-05-06T07:08:09.5Z"}"#, fast: true) {
            $0.dateDecodingStrategy = ISO8601Parser.jsonDecodingStrategy
        },
        .of(FJDated.self, #"{"at": null}"#, fast: false) { $0.dateDecodingStrategy = .secondsSince1970 },
        .of(FJBlob.self, #"{"data": "aGVsbG8="}"#, fast: true),
        .of(FJBlob.self, #"{"data": "aGVsbG8"}"#), .of(FJBlob.self, #"{"data": "a GVsbG8="}"#),
        .of(FJBlob.self, #"{"data": "aGVs\nbG8="}"#), .of(FJBlob.self, #"{"data": "!!"}"#, fast: false),
        .of(FJBlob.self, #"{"data": [104, 105]}"#, fast: true) { $0.dataDecodingStrategy = .deferredToData },
        .of(FJFloats.self, #"{"double": "+inf", "float": "nan"}"#, fast: true) {
            $0.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        },
        .of(FJFloats.self, #"{"double": "\u002binf", "float": 1}"#, fast: false) {
            $0.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        },
        .of(FJFloats.self, #"{"double": "+inf", "float": 1}"#, fast: false),
        .of(FJPair.self, "{\"a\": 1}", fast: false) { $0.allowsJSON5 = true },
    ]

    @Test("Numbers", arguments: numbers) func numbersMatch(_ test: DifferentialCase) { check(test) }
    @Test("Strings and UTF-8", arguments: strings) func stringsMatch(_ test: DifferentialCase) { check(test) }
    @Test("Structure, keys, nil, containers", arguments: structure) func structureMatch(_ test: DifferentialCase) {
        check(test)
    }
    @Test("Key, date, data and float strategies", arguments: strategies) func strategiesMatch(_ test: DifferentialCase)
    {
        check(test)
    }

    private func check(_ test: DifferentialCase) {
        let (answered, mismatch) = test.run()
        #expect(mismatch == nil, "\(test.testDescription): \(mismatch ?? "")")
        if let fast = test.fast {
            #expect(answered == fast, "\(test.testDescription): Courier answered \(answered), expected \(fast)")
        }
    }

    @Test("The configuration's decoder goes through Courier's decoder and keeps JSONDecoder's errors")
    func throughResponseDecoder() throws {
        let decoder = JSONResponseDecoder.json(APIConfiguration.makeDefaultDecoder())
        let person = try decoder.decode(FJPair.self, from: Data(#"{"a": 4, "b": "x"}"#.utf8))
        #expect(person == FJPair(a: 4, b: "x"))
        let data = Data(#"{"a": "four"}"#.utf8)
        let courierError = #expect(throws: DecodingError.self) { try decoder.decode(FJPair.self, from: data) }
        let referenceError = #expect(throws: DecodingError.self) { try JSONDecoder().decode(FJPair.self, from: data) }
        #expect(Differential.dumped(courierError as Any) == Differential.dumped(referenceError as Any))
    }
}

/// Snake-case keys with duplicates after conversion (the first wins) and keys that stay as they are.
struct FJSnakeProbe: Decodable, Equatable {
    var userId: Int
    var name: String
    var urlValue: String?
    var camelCase: Int?

    static let json = #"{"user_id": 1, "userId": 2, "name": "n", "URL_value": "u", "camelCase": 5}"#
}

/// The keys a keyed container lists, as the key strategy makes them (sorted: JSONDecoder's order is a hash order).
struct FJKeyList: Decodable {
    var keys: [String]

    init(from decoder: any Decoder) throws {
        keys = try decoder.container(keyedBy: TapeCodingKey.self).allKeys.map(\.stringValue).sorted()
    }

    static let json = """
        {"with1_2number": 1, "a_1st_b2c": 2, "ABC_DEF": 3, "x_Yz": 4, "_lead_ing": 5, "trail_ing__": 6, "a__b": 7,
         "caf\\u00e9_au_lait": 8, "straße_groß": 9, "ǆ_ǆ": 10, "9_9": 11, "a-b_c.d": 12, "aB_cD": 13, "": 14, "__": 15}
        """
}
