import Foundation
import Testing

@testable import Courier

/// The dictionary-literal JSON shortcut (``JSONWriter``) against the configured `JSONEncoder` it stands in for:
/// the same bytes whenever it writes a body, and the encoder's own outcome whenever it declines.
@Suite struct JSONWriterTests {
    /// A small deterministic generator (SplitMix64), so that a failure names a case that can be run again.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func pick<Element>(_ choices: [Element]) -> Element { choices[below(choices.count)] }
    }

    static let keys = [
        "a", "b", "title", "per_page", "perPage", "B", "_x", "a_b", "ab", "page10", "page9", "é", "e\u{301}", "",
        "with space", "sl/ash", "qu\"ote", "new\nline", "\u{1}", "z",
    ]

    static let texts = [
        "", "plain", "a/b", "\"quoted\"", "back\\slash", "tab\there", "new\nline\r\n", "\u{0}\u{1}\u{1f}\u{7f}",
        "\u{8}\u{c}", "é ü 日本 🙂", "e\u{301}", "</script>", String(repeating: "long ", count: 40),
    ]

    static let doubles: [Double] = [
        0, -0.0, 1, -1, 1.5, 0.1, 1e15, 1e16, 1e20, -1e-7, 123_456_789.125, .pi, .greatestFiniteMagnitude,
        .leastNonzeroMagnitude, 100, 1e300,
    ]

    /// A value and whether the writer knows its JSON.
    static func value(_ generator: inout Generator) -> (value: Parameters.Value, known: Bool) {
        switch generator.below(16) {
        case 0: return (generator.pick(texts), true)
        case 1: return (generator.pick([0, 1, -1, 42, Int.max, Int.min, 1_000_000]), true)
        case 2: return (generator.below(2) == 0, true)
        case 3: return (generator.pick(doubles), true)
        case 4: return ((0..<generator.below(4)).map { _ in generator.pick(texts) }, true)
        case 5: return ((0..<generator.below(4)).map { _ in generator.pick([0, -5, Int.max]) }, true)
        case 6: return ((0..<generator.below(4)).map { _ in generator.pick(doubles) }, true)
        case 7: return ([true, false, true].prefix(generator.below(4)).map { $0 }, true)
        case 8: return (Float(generator.pick([0.1, 1, 3.25, 1e10, -0.0] as [Float])), true)
        case 9: return (Int64(generator.pick([0, -7, Int(Int64.max)])), true)
        case 10: return (URL(string: generator.pick(["https://h/a?b=c", "/rel/path", "mailto:x@y"])), true)
        case 11: return (UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), true)
        case 12: return (nil, true)
        case 13: return (generator.pick([Double.nan, .infinity, -.infinity]), false)
        case 14: return (Date(timeIntervalSince1970: 86_400), false)
        default: return (["nested": generator.pick(texts)], false)
        }
    }

    static func encoders() -> [(name: String, encoder: JSONEncoder, eligible: Bool)] {
        func make(_ change: (JSONEncoder) -> Void) -> JSONEncoder {
            let encoder = APIConfiguration.makeDefaultEncoder()
            change(encoder)
            return encoder
        }
        return [
            ("default", APIConfiguration.makeDefaultEncoder(), true),
            ("plain", JSONEncoder(), true),
            ("sortedKeys", make { $0.outputFormatting = .sortedKeys }, true),
            ("withoutEscapingSlashes", make { $0.outputFormatting = .withoutEscapingSlashes }, true),
            ("prettyPrinted", make { $0.outputFormatting = [.prettyPrinted, .sortedKeys] }, false),
            ("snakeCase", make { $0.keyEncodingStrategy = .convertToSnakeCase }, false),
            (
                "nonConformingAsStrings",
                make {
                    $0.nonConformingFloatEncodingStrategy = .convertToString(
                        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
                },
                true
            ),
        ]
    }

    /// Whether the writer may sort these keys on this platform (see ``JSONWriter``).
    static func sortable(_ keys: [String]) -> Bool {
        #if canImport(Darwin)
            keys.allSatisfy { $0.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F } }
        #else
            true
        #endif
    }

    @Test func writesTheEncodersBytesOrDeclines() throws {
        var generator = Generator(state: 0x5EED_2026)
        var written = 0
        for round in 0..<4_000 {
            let (label, encoder, eligible) = Self.encoders()[round % Self.encoders().count]
            var named: [(String, Parameters.Value)] = []
            var allKnown = true
            for _ in 0..<generator.below(7) {
                let (value, known) = Self.value(&generator)
                named.append((generator.pick(Self.keys), value))
                allKnown = allKnown && known
            }
            let present = named.filter { $0.1 != nil }.map(\.0)
            let distinct = Set(present).count == present.count
            let sorted = encoder.outputFormatting.contains(.sortedKeys)
            let expectWritten = eligible && allKnown && distinct && (!sorted || Self.sortable(present))

            let fast = JSONWriter.object(named, excluding: [], encoder: encoder)
            let reference = Result { try encoder.encode(EncodableParameters(.named(named), excluding: []).encodable) }
            let context = "case \(round) (\(label)): \(named.map { "\($0.0): \(String(describing: $0.1))" })"
            if expectWritten {
                #expect(fast != nil, "\(context)")
            }
            guard let fast else { continue }
            written += 1
            let expected = try #require(try? reference.get(), "the encoder fails where the writer wrote: \(context)")
            if sorted {
                #expect(
                    fast == expected,
                    "\(context)\n  writer:  \(String(decoding: fast, as: UTF8.self))\n  encoder: \(String(decoding: expected, as: UTF8.self))"
                )
            } else {
                // Without sorted keys the encoder's order is its dictionary's; the members must be the same.
                let parsedFast = try JSONSerialization.jsonObject(with: fast) as? NSDictionary
                let parsedExpected = try JSONSerialization.jsonObject(with: expected) as? NSDictionary
                #expect(parsedFast != nil && parsedFast == parsedExpected, "\(context)")
                #expect(fast.count == expected.count, "\(context)")
            }
        }
        // The comparison above must not be vacuous.
        #expect(written > 1_000)
    }

    /// Names taken by the path or the query string are left out of the body, as the encoder leaves them out.
    @Test func excludedNamesAreLeftOut() throws {
        let named: [(String, Parameters.Value)] = [("owner", "me"), ("title", "T"), ("page", 2)]
        let body = try #require(
            JSONWriter.object(named, excluding: ["owner", "page"], encoder: APIConfiguration.makeDefaultEncoder()))
        #expect(String(decoding: body, as: UTF8.self) == #"{"title":"T"}"#)
    }

    /// A repeated name, pretty printing and a non-finite number go to the encoder, whose rules decide.
    @Test func declinedBodiesAreTheEncoders() throws {
        let endpoint = POST<(Double, String)>(wrappedValue: .init { ["x": $0.0, "x": $0.1] }, "/things")
        let twice = try endpoint.makeRequest(with: (1, "two"), using: testConfiguration)
        let expected = try APIConfiguration.makeDefaultEncoder().encode(
            EncodableParameters(.named([("x", 1.0), ("x", "two")]), excluding: []).encodable)
        #expect(twice.body.data == expected)

        var pretty = testConfiguration
        pretty.encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let prettyRequest = try endpoint.makeRequest(with: (1, "two"), using: pretty)
        #expect(prettyRequest.bodyText == "{\n  \"x\" : \"two\"\n}")

        let single = POST<Double>(wrappedValue: .init { ["ratio": $0] }, "/things")
        #expect(throws: APIError.self) { try single.makeRequest(with: .nan, using: testConfiguration) }
        var lenient = testConfiguration
        lenient.encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        #expect(try single.makeRequest(with: .infinity, using: lenient).bodyText == #"{"ratio":"inf"}"#)
    }
}
