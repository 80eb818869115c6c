@_spi(Testing) import Courier
import Foundation

/// A piece of a path segment in a generated template.
enum PathPiece {
    /// Literal text as written in the template.
    case literal(String)
    case placeholder(String)
}

/// The parameters of a generated call.
enum FuzzParameters {
    /// Named values in order; `nil` is left out. `raw` passes a scalar as its Swift value rather than
    /// as a ``FuzzValue``, to take Courier's fast paths.
    case named([(name: String, value: FuzzValue?, raw: Bool)])
    case model([(String, FuzzValue)])
    case list([FuzzValue])
}

/// One generated endpoint and call.
struct FuzzCase {
    var methodIndex: Int
    var segments: [[PathPiece]]
    /// The static query as written after `?`, or `nil`.
    var staticQuery: String?
    /// Text spliced into the template to break it (`{`, `%zz`, …), or `nil`.
    var breakage: String?
    var encoding: ParameterEncoding?
    var configurationOptions: ParameterEncodingOptions
    var parameters: FuzzParameters
    var staticHeaders: [(String, String)]
    var builderHeaders: [(String, String)]

    static let methods: [HTTPMethod] = [
        .get, .post, .put, .patch, .delete, .head, .options, .query, "TRACE", "CONNECT",
    ]

    var method: HTTPMethod { Self.methods[methodIndex] }

    /// The template text.
    var template: String {
        var text = ""
        for segment in segments {
            text += "/"
            for piece in segment {
                switch piece {
                case .literal(let literal): text += literal
                case .placeholder(let name): text += "{\(name)}"
                }
            }
        }
        if let breakage { text += breakage }
        if let staticQuery { text += "?" + staticQuery }
        return text
    }

    var placeholderNames: [String] {
        segments.flatMap { $0 }.compactMap { piece in
            if case .placeholder(let name) = piece { return name }
            return nil
        }
    }
}

/// Generates cases from a seeded generator.
struct Generator {
    var random: SplitMix64

    // MARK: Strings

    private static let pools: [[String]] = [
        Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789").map(String.init),
        [
            " ", "&", "=", "+", "#", "?", "/", "%", ",", ";", ":", "@", "[", "]", "{", "}", "\"", "\\", "'", "!", "$",
            "(",
            ")", "*", "-", ".", "_", "~", "<", ">", "|", "^", "`",
        ],
        ["\u{0}", "\r", "\n", "\r\n", "\t", "\u{1}", "\u{1F}", "\u{7F}", "\u{8}", "\u{C}"],
        ["%zz", "%41", "%2", "%", "%%", "%E9", "%C3%A9", "%2F", "%00", "%0D%0A"],
        ["é", "東京", "🚀", "e\u{301}", "\u{200B}", "\u{FEFF}", "ß", "Ω", "\u{10FFFF}", "👩‍👩‍👧"],
    ]

    mutating func string(maxLength: Int = 12) -> String {
        if random.oneIn(3000) {
            return String(repeating: random.pick(["a", "é", "%", " ", "\n"]), count: 100_000)
        }
        var text = ""
        let length = random.below(maxLength + 1)
        for _ in 0..<length {
            let pool = random.below(10) < 6 ? Self.pools[0] : random.pick(Self.pools)
            text += random.pick(pool)
        }
        return text
    }

    /// A name for a parameter or key: mostly plain, sometimes anything.
    mutating func name() -> String {
        random.oneIn(4) ? string(maxLength: 6) : "k" + String(random.below(1000))
    }

    // MARK: Values

    mutating func double() -> Double {
        switch random.below(14) {
        case 0: return .nan
        case 1: return random.bool() ? .infinity : -.infinity
        case 2: return .greatestFiniteMagnitude * (random.bool() ? 1 : -1)
        case 3: return .leastNonzeroMagnitude
        case 4: return -0.0
        case 5: return Double(bitPattern: random.next())
        case 6: return random.pick([0.1, 1.5, 1e15, 1e15 - 1, 1e16, 1e20, 1e-7, 123_456.789, 9.3e18, 1e300])
        default: return Double(Int64(bitPattern: random.next()) % 1_000_000) / Double(random.pick([1, 10, 1000, 7]))
        }
    }

    mutating func float() -> Float {
        switch random.below(8) {
        case 0: return .nan
        case 1: return random.bool() ? .infinity : -.infinity
        case 2: return Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
        case 3: return random.pick([0.1, 3.4e38, -1.5, 1e7, 16_777_216, .leastNonzeroMagnitude])
        default: return Float(random.below(100_000)) / Float(random.pick([1, 10, 3]))
        }
    }

    mutating func decimal() -> Decimal {
        switch random.below(8) {
        case 0: return .nan
        case 1: return .greatestFiniteMagnitude
        case 2: return .leastFiniteMagnitude
        case 3:
            return Decimal(string: random.pick(["12.50", "-0.001", "1e-100", "123456789012345678901234567890"])) ?? 0
        default: return Decimal(random.below(1_000_000)) / Decimal(random.pick([1, 100, 1000]))
        }
    }

    mutating func date() -> Date {
        let seconds: Double
        switch random.below(16) {
        case 0: seconds = .nan
        case 1: seconds = random.bool() ? .infinity : -.infinity
        case 2: seconds = random.pick([1e17, 9.3e18, -9.3e18, 1e300, -1e15, 1e15, 9.2e15, 9.3e15])
        case 3: seconds = random.pick([-62_135_596_800, -62_167_219_200, -62_167_219_201, -12_219_292_801])
        case 4:
            seconds = random.pick([253_402_300_799.999, 253_402_300_799.9996, 253_402_300_800, -62_167_219_200.0006])
        case 5: seconds = random.pick([Date.distantPast, .distantFuture]).timeIntervalSince1970
        case 6: seconds = Double(bitPattern: random.next())
        case 7: seconds = Double(Int64(bitPattern: random.next()) % 400_000_000_000) - 62_167_219_200
        default:
            seconds = Double(Int64(bitPattern: random.next()) % 4_000_000_000) / Double(random.pick([1, 1000, 8, 3]))
        }
        return Date(timeIntervalSince1970: seconds)
    }

    mutating func scalar() -> FuzzValue {
        switch random.below(13) {
        case 0, 1, 2: return .string(string())
        case 3: return .int(random.pick([0, -1, Int.min, Int.max, random.below(100_000)]))
        case 4: return random.bool() ? .int8(Int8.min) : .int64(Int64(bitPattern: random.next()))
        case 5: return .uint64(random.bool() ? UInt64.max : random.next())
        case 6: return .double(double())
        case 7: return .float(float())
        case 8: return .decimal(decimal())
        case 9: return .bool(random.bool())
        case 10: return .date(date())
        case 11: return .uuid(UUID(uuid: uuidBytes()))
        default: return .null
        }
    }

    private mutating func uuidBytes() -> uuid_t {
        let a = random.next()
        let b = random.next()
        func byte(_ value: UInt64, _ index: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: value >> (index * 8)) }
        return (
            byte(a, 0), byte(a, 1), byte(a, 2), byte(a, 3), byte(a, 4), byte(a, 5), byte(a, 6), byte(a, 7),
            byte(b, 0), byte(b, 1), byte(b, 2), byte(b, 3), byte(b, 4), byte(b, 5), byte(b, 6), byte(b, 7)
        )
    }

    /// Any value, nested up to `depth` more levels; sometimes a deep chain.
    mutating func value(depth: Int) -> FuzzValue {
        if random.oneIn(60) {
            let levels = random.pick([
                random.below(5), Parameters.maximumDepth - 2, Parameters.maximumDepth - 1, Parameters.maximumDepth,
                Parameters.maximumDepth + 1, Parameters.maximumDepth + 2, 1000, 10_000,
            ])
            return .deep(levels: levels, keyed: random.bool(), leaf: random.below(10))
        }
        guard depth > 0, random.oneIn(3) else { return scalar() }
        if random.bool() {
            return .array((0..<random.below(4)).map { _ in value(depth: depth - 1) })
        }
        return .object(uniqueMembers(count: random.below(4), depth: depth - 1))
    }

    mutating func uniqueMembers(count: Int, depth: Int, avoiding used: Set<String> = []) -> [(String, FuzzValue)] {
        var seen = used
        var members: [(String, FuzzValue)] = []
        for _ in 0..<count {
            let key = name()
            guard seen.insert(key).inserted else { continue }
            members.append((key, value(depth: depth)))
        }
        return members
    }

    /// A value for a path placeholder: mostly a string, alone in its segment anything scalar-ish.
    mutating func pathValue(alone: Bool) -> FuzzValue? {
        if random.oneIn(30) { return nil }
        if random.oneIn(10) { return .string(random.pick(["", ".", "..", "...", "/", "%2E", "a/../b"])) }
        if alone, random.oneIn(4) {
            return random.oneIn(8) ? .array([.string("a"), .string("b")]) : scalar()
        }
        return random.bool() ? .string(string()) : .int(random.below(100_000) - 500)
    }

    // MARK: Templates

    /// Literal text for a segment: plain, with escapes, or anything a path may hold.
    mutating func literal(withPlaceholders: Bool) -> String {
        if withPlaceholders {
            // Unreserved text and valid escapes only, so the oracle can tell an empty/dot segment by length.
            return random.pick(["", "", ".", ".json", "x", "v", "-", "~a_b", "%41"])
        }
        switch random.below(8) {
        case 0: return random.pick([".", "..", "...", ""])
        case 1: return random.pick(["a b", "caf%C3%A9", "é", "!$&'()*+,;=:@", "%2F", "x%20y", "東京"])
        default: return "p" + String(random.below(100))
        }
    }

    mutating func makeCase() -> FuzzCase {
        let methodIndex = random.below(FuzzCase.methods.count)
        var segments: [[PathPiece]] = []
        var names: [String] = []
        for _ in 0..<random.below(5) {
            var pieces: [PathPiece] = []
            if random.oneIn(3) {
                let count = random.oneIn(4) ? 2 : 1
                for index in 0..<count {
                    let prefix = literal(withPlaceholders: true)
                    if !prefix.isEmpty { pieces.append(.literal(prefix)) }
                    let name = "p\(names.count)"
                    names.append(name)
                    pieces.append(.placeholder(name))
                    if index == count - 1 {
                        let suffix = literal(withPlaceholders: true)
                        if !suffix.isEmpty { pieces.append(.literal(suffix)) }
                    }
                }
            } else {
                let text = literal(withPlaceholders: false)
                if !text.isEmpty { pieces.append(.literal(text)) }
            }
            segments.append(pieces)
        }
        var staticQuery: String?
        if random.oneIn(4) {
            staticQuery = random.pick(["a=1", "a=1&b=two", "r=%41%2b", "x=a%20b&y", "q=a b", "e=é", "", "t=%zz", "u=%"])
        }
        let breakage: String? =
            random.oneIn(25) ? random.pick(["{", "}", "{}", "/%zz", "/%g0", "/x%", "/{a/b}", "/%4"]) : nil

        let options = randomOptions()
        var encoding: ParameterEncoding?
        if random.bool() {
            let base: ParameterEncoding = random.pick([.query, .json, .form])
            encoding = random.bool() ? ParameterEncoding(base.encoder, options: randomOptions()) : base
        }

        let parameters: FuzzParameters
        let alone = Set(
            segments.filter { $0.count == 1 }.compactMap { segment -> String? in
                if case .placeholder(let name) = segment[0] { return name }
                return nil
            })
        switch random.below(10) {
        case 0..<6:
            var named: [(name: String, value: FuzzValue?, raw: Bool)] = []
            for name in names where !random.oneIn(40) {
                named.append((name, pathValue(alone: alone.contains(name)), random.bool()))
            }
            var used = Set(names)
            for _ in 0..<random.below(6) {
                var key = name()
                // Repeated names only where they are well defined: query and form pairs.
                if random.oneIn(6), let previous = named.last, !names.contains(previous.name) { key = previous.name }
                if used.contains(key), key != named.last?.name { continue }
                used.insert(key)
                let value: FuzzValue? = random.oneIn(12) ? nil : self.value(depth: 3)
                named.append((key, value, random.bool()))
            }
            parameters = .named(named.shuffledPathFirst(random: &random))
        case 6..<9:
            var members: [(String, FuzzValue)] = []
            for name in names where !random.oneIn(40) {
                members.append((name, pathValue(alone: alone.contains(name)) ?? .null))
            }
            members += uniqueMembers(count: random.below(5), depth: 3, avoiding: Set(names))
            parameters = .model(members)
        default:
            parameters = .list((0..<(1 + random.below(3))).map { _ in value(depth: 2) })
        }

        return FuzzCase(
            methodIndex: methodIndex,
            segments: segments,
            staticQuery: staticQuery,
            breakage: breakage,
            encoding: encoding,
            configurationOptions: options,
            parameters: parameters,
            staticHeaders: headers(),
            builderHeaders: headers()
        )
    }

    mutating func randomOptions() -> ParameterEncodingOptions {
        ParameterEncodingOptions(
            arrays: random.pick([.repeatedKeys, .brackets, .indexed, .commaSeparated]),
            bools: random.pick([.literal, .numeric]),
            dates: random.pick([.iso8601, .iso8601WithFractionalSeconds, .secondsSince1970, .millisecondsSince1970]),
            nesting: random.pick([.brackets, .dotted])
        )
    }

    mutating func headers() -> [(String, String)] {
        (0..<random.below(3)).map { _ in
            let name =
                random.oneIn(40)
                ? random.pick(["", "Bad Name", "X:Y", "é", "X-\n", "X\u{0}"])
                : random.pick(["X-A", "x-a", "X-B", "Accept"])
            let value =
                random.oneIn(40)
                ? string() + random.pick(["\r", "\n", "\u{0}", ""]) : random.pick(["v", "a b", "1", "", "é"])
            return (name, value)
        }
    }
}

extension Array where Element == (name: String, value: FuzzValue?, raw: Bool) {
    /// Keeps the path values first or mixes them in, at random.
    fileprivate func shuffledPathFirst(random: inout SplitMix64) -> Self {
        guard random.bool(), count > 1 else { return self }
        var copy = self
        copy.swapAt(0, count - 1)
        return copy
    }
}
