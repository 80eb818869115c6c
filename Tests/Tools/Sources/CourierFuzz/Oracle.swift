@_spi(Testing) import Courier
import Foundation

/// What a case must do, worked out from the generated input alone, and an independent decoder that checks
/// a built request against it. Nothing here calls Courier's encoders.
struct Oracle {
    let fuzzCase: FuzzCase
    let placement: Placement
    /// The date style of JSON bodies: the endpoint's own options, else the configured encoder's (ISO 8601).
    let jsonDateStyle: ParameterEncodingOptions.DateStyle
    let options: ParameterEncodingOptions
    /// Reasons the call must fail; empty when it must build.
    private(set) var mustFail: [String] = []
    /// Whether a failure is acceptable anyway (right at the depth limit, where wrapper values count).
    private(set) var mayFail = false

    static let limit = Parameters.maximumDepth
    static let firstISOSecond: Int64 = -62_167_219_200
    static let endISOSecond: Int64 = 253_402_300_800

    init(_ fuzzCase: FuzzCase) {
        self.fuzzCase = fuzzCase
        let method = fuzzCase.method
        let queryByDefault: [HTTPMethod] = [.get, .head, .delete, .options, "TRACE", "CONNECT"]
        placement =
            fuzzCase.encoding.map { Placement($0) } ?? (queryByDefault.contains(method) ? .query : .json)
        options = fuzzCase.encoding?.options ?? fuzzCase.configurationOptions
        jsonDateStyle = fuzzCase.encoding?.options?.dates ?? .iso8601
        judge()
    }

    // MARK: Judging

    private mutating func judge() {
        if fuzzCase.breakage != nil { mustFail.append("malformed template") }
        if let query = fuzzCase.staticQuery, !Self.hasValidEscapes(query) { mustFail.append("bad % in query") }
        if fuzzCase.segments.joined().contains(where: { piece in
            if case .literal(let text) = piece { return !Self.hasValidEscapes(text) }
            return false
        }) {
            mustFail.append("bad % in path")
        }
        if placement != .query, [HTTPMethod.get, .head, "TRACE", "CONNECT"].contains(fuzzCase.method) {
            mustFail.append("body not allowed")
        }
        if !headersAreValid { mustFail.append("invalid header") }

        let pathNames = Set(fuzzCase.placeholderNames)
        // Path values.
        for segment in fuzzCase.segments where segment.contains(where: Self.isPlaceholder) {
            var encodedLength = 0
            var dots = ""
            for piece in segment {
                switch piece {
                case .literal(let text):
                    encodedLength += text.utf8.count
                    dots += text
                case .placeholder(let name):
                    guard let value = pathValue(name) else {
                        mustFail.append("missing path value \(name)")
                        continue
                    }
                    guard value.isScalar else {
                        mustFail.append("unsupported path value \(name)")
                        continue
                    }
                    guard isEncodable(value, dateStyle: options.dates) else {
                        mustFail.append("unencodable path value \(name)")
                        continue
                    }
                    let text = Self.pathText(value, options)
                    encodedLength += Self.encodedLength(text)
                    dots += text
                }
            }
            if encodedLength <= 2, dots == "" || dots == "." || dots == ".." {
                mustFail.append("empty or dot segment")
            }
        }

        // The rest.
        switch fuzzCase.parameters {
        case .named(let named):
            for entry in named {
                guard let value = entry.value, !pathNames.contains(entry.name) else { continue }
                checkValue(value, depth: 1 + value.depth, dateStyle: placement == .json ? jsonDateStyle : options.dates)
            }
        case .model(let members):
            let model = FuzzValue.object(members)
            // Query and form: Courier's tree; JSON: the configured encoder (ISO 8601 seconds unless the endpoint's
            // options say otherwise).
            let style: ParameterEncodingOptions.DateStyle = placement == .json ? jsonDateStyle : options.dates
            for (key, value) in members where !pathNames.contains(key) {
                checkValue(value, depth: 1 + value.depth, dateStyle: style)
            }
            checkDepth(model.depth)
            // With path names the whole model goes through Courier's tree first: numbers are checked there too.
            if placement == .json, !pathNames.isEmpty {
                for (key, value) in members where pathNames.contains(key) && !isEncodable(value, dateStyle: nil) {
                    mustFail.append("unencodable number under path key \(key)")
                }
            }
        case .list(let values):
            if placement != .json { mustFail.append("list outside JSON") }
            for value in values { checkValue(value, depth: 1 + value.depth, dateStyle: jsonDateStyle) }
        }
    }

    /// Where the parameters go, told from the encoding's encoder.
    enum Placement {
        case query, json, form

        init(_ encoding: ParameterEncoding) {
            let encoder = ParameterEncoding(encoding.encoder)  // the encoder alone, without options or query names
            if encoder == .json {
                self = .json
            } else if encoder == .form {
                self = .form
            } else {
                self = .query
            }
        }
    }

    private static func isPlaceholder(_ piece: PathPiece) -> Bool {
        if case .placeholder = piece { return true }
        return false
    }

    private mutating func checkValue(_ value: FuzzValue, depth: Int, dateStyle: ParameterEncodingOptions.DateStyle) {
        checkDepth(depth)
        if depth <= Self.limit + 2, !isEncodable(value, dateStyle: dateStyle) {
            mustFail.append("unencodable value")
        }
    }

    private mutating func checkDepth(_ depth: Int) {
        if depth > Self.limit + 1 {
            mustFail.append("nested \(depth) deep")
        } else if depth >= Self.limit - 1 {
            mayFail = true
        }
    }

    /// The path value for `name`: the first non-nil named value, or the model member.
    func pathValue(_ name: String) -> FuzzValue? {
        switch fuzzCase.parameters {
        case .named(let named):
            for entry in named where entry.name == name {
                if let value = entry.value, case .null = value { return nil }
                if let value = entry.value { return value }
            }
            return nil
        case .model(let members):
            for (key, value) in members where key == name {
                if case .null = value { return nil }
                return value
            }
            return nil
        case .list:
            return nil
        }
    }

    /// Whether every number is finite and every date fits `dateStyle` (`nil`: dates are not checked).
    func isEncodable(_ value: FuzzValue, dateStyle: ParameterEncodingOptions.DateStyle?) -> Bool {
        switch value {
        case .double(let double): return double.isFinite
        case .float(let float): return float.isFinite
        case .decimal(let decimal): return !decimal.isNaN
        case .date(let date): return dateStyle.map { Self.dateFits(date, $0) } ?? true
        case .array(let elements): return elements.allSatisfy { isEncodable($0, dateStyle: dateStyle) }
        case .object(let members): return members.allSatisfy { isEncodable($0.1, dateStyle: dateStyle) }
        default: return true
        }
    }

    static func dateFits(_ date: Date, _ style: ParameterEncodingOptions.DateStyle) -> Bool {
        let seconds = date.timeIntervalSince1970
        switch style {
        case .iso8601:
            let whole = seconds.rounded(.down)
            return whole >= Double(firstISOSecond) && whole < Double(endISOSecond)
        case .iso8601WithFractionalSeconds:
            let milliseconds = (seconds * 1000).rounded()
            return milliseconds >= Double(firstISOSecond) * 1000 && milliseconds < Double(endISOSecond) * 1000
        case .secondsSince1970:
            return seconds.isFinite && (seconds != seconds.rounded() || Int64(exactly: seconds) != nil)
        case .millisecondsSince1970:
            return seconds.isFinite && Int64(exactly: (seconds * 1000).rounded()) != nil
        }
    }

    /// The headers after the builder's replace the static ones of the same name.
    var mergedHeaders: [(String, String)] {
        let replaced = Set(fuzzCase.builderHeaders.map { $0.0.lowercased() })
        return fuzzCase.staticHeaders.filter { !replaced.contains($0.0.lowercased()) } + fuzzCase.builderHeaders
    }

    private var headersAreValid: Bool {
        let tchar = Set("!#$%&'*+-.^_`|~".utf8)
        return mergedHeaders.allSatisfy { name, value in
            !name.utf8.isEmpty
                && name.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                        || tchar.contains(byte)
                } && !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
        }
    }

    static func hasValidEscapes(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count + 0, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else {
                    return false
                }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }

    static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
    }

    /// The text of a path value in a segment shared with other pieces (strings and integers only).
    static func pathText(_ value: FuzzValue, _ options: ParameterEncodingOptions) -> String {
        switch value {
        case .string(let string): string
        case .int(let int): String(int)
        default: "?"  // alone in its segment: compared by `matches`, never by text
        }
    }

    /// The length of `text` percent-encoded with only unreserved bytes left as they are.
    static func encodedLength(_ text: String) -> Int {
        text.utf8.reduce(0) { $0 + (isUnreserved($1) ? 1 : 3) }
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D || byte == 0x2E
            || byte == 0x5F || byte == 0x7E
    }
}
