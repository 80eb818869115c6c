import Courier
import Foundation

/// A query or form value the request must carry: one scalar, or the elements of a comma-separated list.
enum Expected {
    case one(FuzzValue)
    case list([FuzzValue])
}

extension Oracle {
    static let base = "http://h/base"

    /// `nil` when `request` carries exactly what the input says, else what differs.
    func verify(_ request: APIRequest) -> String? {
        let url = request.url.absoluteString
        guard url.hasPrefix(Self.base) else { return "URL \(url) does not start with the base" }
        var rest = Substring(url.dropFirst(Self.base.count))
        var query: Substring?
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        if let problem = verifyPath(rest) { return problem }

        var expectedQuery = Self.pairs(fuzzCase.staticQuery ?? "", plusIsSpace: false).map {
            (name: $0.name, value: Expected.one(.string($0.value ?? "")), hasValue: $0.value != nil)
        }
        let parameterPairs = flattenedParameters()
        if placement == .query {
            expectedQuery += parameterPairs.map { ($0.0, $0.1, true) }
        }
        let actualQuery = Self.rawPairs(query ?? "")
        if let problem = compare(actualQuery, expectedQuery, plusIsSpace: false, what: "query") { return problem }

        let body = request.body.data ?? Data()
        switch placement {
        case .query:
            if !body.isEmpty { return "a query encoding sent a body" }
        case .form:
            let text = String(decoding: body, as: UTF8.self)
            let expected = parameterPairs.map { ($0.0, $0.1, true) }
            if let problem = compare(Self.rawPairs(Substring(text)), expected, plusIsSpace: true, what: "form") {
                return problem
            }
            if !expected.isEmpty, request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") != true
            {
                return "form body without its content type"
            }
        case .json:
            if let problem = verifyJSON(body) { return problem }
            if !body.isEmpty, request.headers[.contentType] != "application/json" {
                return "JSON body without its content type"
            }
        }

        for (name, _) in mergedHeaders {
            let expected = mergedHeaders.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
            let actual = request.headers.values(for: HTTPHeaderName(rawValue: name))
            if actual != expected { return "header \(name): \(actual.count) values, expected \(expected.count)" }
        }
        return nil
    }

    // MARK: Path

    private func verifyPath(_ path: Substring) -> String? {
        // The path is appended to the base URL whatever its slashes: leading empty segments go.
        let segments = fuzzCase.segments.drop { $0.isEmpty }
        if segments.isEmpty {
            // No path at all, or only slashes: one slash after the base.
            let expected = fuzzCase.segments.isEmpty ? "" : "/"
            return path == expected ? nil : "path \(path), expected \(expected)"
        }
        guard path.first == "/" else { return "path \(path) does not start with /" }
        let actual = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard actual.count == segments.count else {
            return "path \(path) has \(actual.count) segments, expected \(segments.count)"
        }
        for (segment, text) in zip(segments, actual) {
            let decoded = Self.percentDecode(text, plusIsSpace: false)
            if segment.count == 1, case .placeholder(let name) = segment[0] {
                guard let value = pathValue(name), matches(decoded, value) else {
                    return "path segment \(text) does not match the value of \(name)"
                }
                continue
            }
            var expected = ""
            for piece in segment {
                switch piece {
                case .literal(let literal): expected += Self.percentDecode(Substring(literal), plusIsSpace: false)
                case .placeholder(let name): expected += pathValue(name).map { Self.pathText($0, options) } ?? "?"
                }
            }
            if decoded != expected { return "path segment \(text) decodes to \(decoded), expected \(expected)" }
        }
        return nil
    }

    // MARK: Query and form

    /// The query or form pairs of the parameters, flattened the documented way.
    func flattenedParameters() -> [(String, Expected)] {
        let pathNames = Set(fuzzCase.placeholderNames)
        var output: [(String, Expected)] = []
        switch fuzzCase.parameters {
        case .named(let named):
            for entry in named where !pathNames.contains(entry.name) {
                if let value = entry.value { flatten(entry.name, value, into: &output) }
            }
        case .model(let members):
            for (key, value) in members where !pathNames.contains(key) { flatten(key, value, into: &output) }
        case .list:
            break
        }
        return output
    }

    private func flatten(_ name: String, _ value: FuzzValue, into output: inout [(String, Expected)]) {
        switch value.expanded {
        case .null:
            return
        case .array(let elements):
            switch options.arrays {
            case .repeatedKeys:
                for element in elements { flatten(name, element, into: &output) }
            case .brackets:
                for element in elements { flatten(name + "[]", element, into: &output) }
            case .indexed:
                for (index, element) in elements.enumerated() { flatten("\(name)[\(index)]", element, into: &output) }
            case .commaSeparated:
                let present = elements.map(\.expanded).filter {
                    if case .null = $0 { return false }
                    return true
                }
                if present.allSatisfy(\.isScalar) {
                    if !present.isEmpty { output.append((name, .list(present))) }
                } else {
                    for element in elements { flatten(name, element, into: &output) }
                }
            }
        case .object(let members):
            for (key, member) in members {
                flatten(options.nesting == .brackets ? "\(name)[\(key)]" : "\(name).\(key)", member, into: &output)
            }
        case let scalar:
            output.append((name, .one(scalar)))
        }
    }

    private func compare(
        _ actual: [(name: Substring, value: Substring?)],
        _ expected: [(name: String, value: Expected, hasValue: Bool)],
        plusIsSpace: Bool,
        what: String
    ) -> String? {
        guard actual.count == expected.count else {
            return "\(what) has \(actual.count) pairs, expected \(expected.count)"
        }
        for (index, (pair, wanted)) in zip(actual, expected).enumerated() {
            let name = Self.percentDecode(pair.name, plusIsSpace: plusIsSpace)
            guard name == wanted.name else { return "\(what) pair \(index) is named \(name), expected \(wanted.name)" }
            guard let raw = pair.value else {
                if wanted.hasValue { return "\(what) pair \(name) has no '='" }
                continue
            }
            switch wanted.value {
            case .one(let value):
                let text = Self.percentDecode(raw, plusIsSpace: plusIsSpace)
                if !matches(text, value) { return "\(what) pair \(name) = \(text.prefix(80)) does not match" }
            case .list(let values):
                let pieces = raw.split(separator: ",", omittingEmptySubsequences: false)
                guard pieces.count == values.count else {
                    return "\(what) pair \(name) has \(pieces.count) comma-separated elements, expected \(values.count)"
                }
                for (piece, value) in zip(pieces, values)
                where !matches(Self.percentDecode(piece, plusIsSpace: plusIsSpace), value) {
                    return "\(what) pair \(name): element \(piece.prefix(80)) does not match"
                }
            }
        }
        return nil
    }

    /// Pairs split on `&` and the first `=`, still encoded.
    static func rawPairs(_ text: Substring) -> [(name: Substring, value: Substring?)] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return (pair, nil) }
            return (pair[..<equals], pair[pair.index(after: equals)...])
        }
    }

    /// Pairs of a static query as written, decoded.
    static func pairs(_ text: String, plusIsSpace: Bool) -> [(name: String, value: String?)] {
        rawPairs(Substring(text)).map {
            (
                percentDecode($0.name, plusIsSpace: plusIsSpace),
                $0.value.map { percentDecode($0, plusIsSpace: plusIsSpace) }
            )
        }
    }

    static func percentDecode(_ text: Substring, plusIsSpace: Bool) -> String {
        var bytes: [UInt8] = []
        let source = Array(text.utf8)
        var index = 0
        while index < source.count {
            let byte = source[index]
            if byte == UInt8(ascii: "%"), index + 2 < source.count, let high = hexValue(source[index + 1]),
                let low = hexValue(source[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    // MARK: Scalars

    /// Whether `text` is a faithful form of `value` under the options.
    func matches(_ text: String, _ value: FuzzValue) -> Bool {
        switch value.expanded {
        case .string(let string): return text == string
        case .int(let int): return text == String(int)
        case .int8(let int): return text == String(int)
        case .int64(let int): return text == String(int)
        case .uint64(let int): return text == String(int)
        case .double(let double): return Double(text) == double
        case .float(let float): return Float(text) == float
        case .decimal(let decimal): return Decimal(string: text) == decimal
        case .bool(let bool):
            switch options.bools {
            case .literal: return text == (bool ? "true" : "false")
            case .numeric: return text == (bool ? "1" : "0")
            }
        case .date(let date): return Self.dateMatches(text, date, options.dates)
        case .uuid(let uuid): return text == uuid.uuidString
        case .null, .array, .object, .deep: return false
        }
    }

    static func dateMatches(_ text: String, _ date: Date, _ style: ParameterEncodingOptions.DateStyle) -> Bool {
        let seconds = date.timeIntervalSince1970
        switch style {
        case .iso8601:
            guard let parsed = parseISO(text, fractional: false) else { return false }
            return parsed == Int64(seconds.rounded(.down)) * 1000
        case .iso8601WithFractionalSeconds:
            guard let parsed = parseISO(text, fractional: true) else { return false }
            return parsed == Int64((seconds * 1000).rounded())
        case .secondsSince1970:
            return Double(text) == seconds
        case .millisecondsSince1970:
            return Int64(text) == Int64((seconds * 1000).rounded())
        }
    }

    /// Milliseconds since 1970 of `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.mmmZ`, proleptic Gregorian.
    static func parseISO(_ text: String, fractional: Bool) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == (fractional ? 24 : 20) else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A, bytes[16] == 0x3A,
            bytes.last == 0x5A, let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), day >= 1, day <= daysIn(month, year), hour < 24, minute < 60, second < 60
        else { return nil }
        var milliseconds = 0
        if fractional {
            guard bytes[19] == 0x2E, let fraction = number(20, 3) else { return nil }
            milliseconds = fraction
        }
        let days = Int64(daysSince1970(year: year, month: month, day: day))
        return ((days * 86_400) + Int64(hour * 3600 + minute * 60 + second)) * 1000 + Int64(milliseconds)
    }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Days from 1970-01-01 by counting: whole years, then months (a different road than Courier's).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        func leapDays(before year: Int) -> Int {
            // Leap years in 0..<year (year ≥ 0): multiples of 4, minus of 100, plus of 400, year 0 included.
            year <= 0 ? 0 : (year - 1) / 4 - (year - 1) / 100 + (year - 1) / 400 + 1
        }
        let daysBeforeYear = 365 * year + leapDays(before: year)
        let daysBefore1970 = 365 * 1970 + leapDays(before: 1970)
        var days = daysBeforeYear - daysBefore1970
        for earlier in 1..<month { days += daysIn(earlier, year) }
        return days + day - 1
    }

    // MARK: JSON

    private func verifyJSON(_ body: Data) -> String? {
        let pathNames = Set(fuzzCase.placeholderNames)
        let expected: FuzzValue?
        switch fuzzCase.parameters {
        case .named(let named):
            let members = named.compactMap { entry -> (String, FuzzValue)? in
                guard let value = entry.value, !pathNames.contains(entry.name) else { return nil }
                return (entry.name, value)
            }
            if Set(members.map(\.0)).count != members.count {
                // Repeated names make repeated JSON keys: only check that it parses.
                return (try? JSONSerialization.jsonObject(with: body)) == nil ? "invalid JSON with repeated keys" : nil
            }
            expected = members.isEmpty ? nil : .object(members)
        case .model(let members):
            expected = .object(members.filter { !pathNames.contains($0.0) })
        case .list(let values):
            expected = .array(values)
        }
        guard let expected else { return body.isEmpty ? nil : "a body without parameters" }
        guard let parsed = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return "invalid JSON: \(String(decoding: body.prefix(200), as: UTF8.self))"
        }
        // One rule set: the configured encoder writes dictionaries, lists and models alike.
        return jsonMatches(parsed, expected, jsonDateStyle)
            ? nil : "JSON \(String(decoding: body.prefix(200), as: UTF8.self))"
    }

    /// `text` without U+FEFF: Linux's JSONSerialization drops one at the start of a string and right after an
    /// escape sequence (`\n\u{FEFF}`), but not elsewhere, so the comparison ignores them all.
    private static func withoutBOM(_ text: String) -> String {
        text.contains("\u{FEFF}") ? text.replacingOccurrences(of: "\u{FEFF}", with: "") : text
    }

    private static func isBoolean(_ value: Any) -> Bool {
        String(describing: type(of: value)).contains("Boolean") || value is Bool && !(value is NSNumber)
    }

    private func jsonMatches(_ actual: Any, _ expected: FuzzValue, _ style: ParameterEncodingOptions.DateStyle) -> Bool
    {
        // Linux's JSONSerialization gives NSDecimalNumber for many numbers, whose doubleValue is not the
        // nearest Double: compare the number's text instead.
        let text: String? = Self.isBoolean(actual) ? nil : (actual as? NSNumber)?.description
        func number(_ wanted: Double) -> Bool {
            text.flatMap { Double($0) } == wanted
        }
        func integer(_ wanted: String) -> Bool {
            text == wanted || (text.flatMap { Double($0) } == Double(wanted) && Double(wanted) != nil)
        }
        switch expected.expanded {
        case .null: return actual is NSNull
        // Linux's JSONSerialization drops some U+FEFF (see `withoutBOM`): not Courier's doing.
        case .string(let string): return (actual as? String).map(Self.withoutBOM) == Self.withoutBOM(string)
        case .uuid(let uuid): return actual as? String == uuid.uuidString
        case .bool(let bool): return Self.isBoolean(actual) && (actual as? Bool) == bool
        case .int(let int): return integer(String(int))
        case .int8(let int): return integer(String(int))
        case .int64(let int): return integer(String(int))
        case .uint64(let int): return integer(String(int))
        case .double(let double): return number(double)
        case .float(let float): return text.flatMap { Float($0) } == float
        case .decimal(let decimal):
            guard let text else { return false }
            if Decimal(string: text) == decimal { return true }
            let wanted = NSDecimalNumber(decimal: decimal).doubleValue
            guard let got = Double(text) else { return false }
            return got == wanted || abs(got - wanted) <= 1e-12 * abs(wanted)
        case .date(let date):
            switch style {
            case .iso8601, .iso8601WithFractionalSeconds:
                guard let text = actual as? String else { return false }
                return Self.dateMatches(text, date, style)
            case .secondsSince1970:
                return number(date.timeIntervalSince1970)
            case .millisecondsSince1970:
                return number((date.timeIntervalSince1970 * 1000).rounded())
            }
        case .array(let elements):
            guard let array = actual as? [Any], array.count == elements.count else { return false }
            return zip(array, elements).allSatisfy { jsonMatches($0, $1, style) }
        case .object(let members):
            guard let parsed = actual as? [String: Any] else { return false }
            if Set(members.map { Self.withoutBOM($0.0) }).count != members.count {
                // Keys that differ only by a U+FEFF, which the decoder may drop: only the count can be checked.
                return (Set(members.map { Self.withoutBOM($0.0) }).count...members.count).contains(parsed.count)
            }
            guard parsed.count == members.count else { return false }
            let object = Dictionary(parsed.map { (Self.withoutBOM($0.key), $0.value) }) { first, _ in first }
            return members.allSatisfy { key, value in
                object[Self.withoutBOM(key)].map { jsonMatches($0, value, style) } ?? false
            }
        case .deep:
            return false
        }
    }
}
