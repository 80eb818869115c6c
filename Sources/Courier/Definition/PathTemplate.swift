/// A parsed endpoint path: literal text and `{name}` placeholders, plus a static query and whether the
/// path is an absolute URL.
struct PathTemplate: Sendable {
    enum Part: Sendable, Equatable {
        /// Literal text, already percent-encoded for a path.
        case literal(String)
        case placeholder(String)
        /// A `{name...}` placeholder: a value of several segments, each encoded, its `/` kept.
        case segments(String)
        /// A `/` between segments.
        case separator
    }

    /// The path's parts; empty for a malformed template.
    let parts: [Part]
    /// The names of every placeholder, in order.
    let names: [String]
    /// The query written in the path after `?`, as items, percent-encoded once here (characters a query may hold
    /// kept as written); empty when the path has none.
    let staticQuery: EncodedQuery
    /// Whether the path is an absolute URL (`https://…`) that ignores the base URL.
    let isAbsolute: Bool
    /// Whether the template could be parsed.
    let isValid: Bool
    /// The percent-encoded path when the template has no placeholder: every call renders the same text.
    private let fixedPath: String?

    /// Whether the template has no placeholder: its path is the same on every call.
    var isFixed: Bool { fixedPath != nil }

    init(_ template: String) {
        var pathPart = Substring(template)
        if let hash = pathPart.firstIndex(of: "#") {
            pathPart = pathPart[..<hash]
        }
        var query: Substring?
        if let question = pathPart.firstIndex(of: "?") {
            query = pathPart[pathPart.index(after: question)...]
            pathPart = pathPart[..<question]
        }
        // The author's own text: read into items once, here.
        staticQuery = EncodedQuery(
            parsing: Substring(query.map { PercentEncoding.encode(String($0), allowing: .queryLiteral) } ?? ""))
        isAbsolute = Self.hasScheme(pathPart)

        var parts: [Part] = []
        var names: [String] = []
        var literal = ""
        var name: String?
        var valid = true
        for character in pathPart {
            if var current = name {
                switch character {
                case "}":
                    if current.hasSuffix("...") {
                        current.removeLast(3)
                        parts.append(.segments(current))
                    } else {
                        parts.append(.placeholder(current))
                    }
                    if current.isEmpty { valid = false }
                    names.append(current)
                    name = nil
                case "{", "/":
                    valid = false
                default:
                    current.append(character)
                    name = current
                }
                continue
            }
            switch character {
            case "{":
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                name = ""
            case "}":
                valid = false
            case "/":
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                parts.append(.separator)
            default:
                literal.append(character)
            }
        }
        if name != nil { valid = false }
        // A `%` must start an escape: `URL(string:)` fails on a stray one and re-encodes the whole URL,
        // every value's escapes included (`a%20b` → `a%2520b`).
        if !Self.hasValidEscapes(pathPart) || !Self.hasValidEscapes(query ?? "") { valid = false }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        // Literals are encoded once here rather than on every call.
        parts = parts.map { part in
            guard case .literal(let text) = part else { return part }
            return .literal(PercentEncoding.encode(text, allowing: .pathLiteral))
        }
        self.parts = valid ? parts : []
        self.names = valid ? names : []
        self.isValid = valid
        if valid, names.isEmpty {
            var path = ""
            for part in parts {
                switch part {
                case .literal(let text): path += text
                case .separator: path += "/"
                case .placeholder, .segments: break
                }
            }
            fixedPath = path
        } else {
            fixedPath = nil
        }
    }

    /// Whether every `%` in `text` is followed by two hex digits.
    static func hasValidEscapes(_ text: Substring) -> Bool {
        var bytes = text.utf8[...]
        while let percent = bytes.firstIndex(of: UInt8(ascii: "%")) {
            bytes = bytes[bytes.index(after: percent)...]
            guard bytes.count >= 2, isHexDigit(bytes[bytes.startIndex]),
                isHexDigit(bytes[bytes.index(after: bytes.startIndex)])
            else { return false }
        }
        return true
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default:
            false
        }
    }

    private static func hasScheme(_ path: Substring) -> Bool {
        guard let colon = path.firstIndex(of: ":"), path[colon...].hasPrefix("://") else { return false }
        let scheme = path[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }

    /// A placeholder's value: text to encode, or a ``DelimitedValue`` already encoded.
    enum Value {
        case text(String)
        case encoded(String)
    }

    /// Appends the percent-encoded path, with every placeholder filled by `value(name)`, to `output`.
    ///
    /// Literal text keeps existing `%XX` escapes and encodes anything a path may not contain; values are
    /// encoded as one segment (`/` becomes `%2F`), except in a `{name...}` placeholder, whose value is split
    /// at `/` and each segment encoded. An encoded value (a ``DelimitedValue``, which has no `/`) is appended as it
    /// is. A segment with a placeholder may not end up empty, `.` or `..`.
    func render(
        into output: inout [UInt8],
        value: (String) throws(RequestProblemError) -> Value
    ) throws(RequestProblemError) {
        if let fixedPath {
            output.append(contentsOf: fixedPath.utf8)
            return
        }
        // Bytes rather than a `String`: appending to a string costs several times as much per piece.
        output.reserveCapacity(output.count + 64)
        // The current segment is output[segmentStart...]; it is checked when it closes.
        var segmentStart = output.count
        var segmentPlaceholder: String?
        func closeSegment() throws(RequestProblemError) {
            if let segmentPlaceholder, output.count - segmentStart <= 2 {
                let segment = output[segmentStart...]
                if segment.isEmpty || segment.elementsEqual(".".utf8) || segment.elementsEqual("..".utf8) {
                    throw RequestProblemError(.invalidPathValue(name: segmentPlaceholder))
                }
            }
            segmentPlaceholder = nil
        }
        for part in parts {
            switch part {
            case .literal(let text):
                output.append(contentsOf: text.utf8)
            case .placeholder(let name), .segments(let name):
                let text: String
                switch try value(name) {
                case .encoded(let encoded):
                    output.append(contentsOf: encoded.utf8)
                    segmentPlaceholder = segmentPlaceholder ?? name
                    continue
                case .text(let plain):
                    text = plain
                }
                guard case .segments = part else {
                    PercentEncoding.append(text, allowing: .unreserved, to: &output)
                    segmentPlaceholder = segmentPlaceholder ?? name
                    continue
                }
                // Each segment encoded on its own, the `/` between them kept; every one is checked.
                for (index, segment) in text.split(separator: "/", omittingEmptySubsequences: false)
                    .enumerated()
                {
                    if index > 0 {
                        try closeSegment()
                        output.append(UInt8(ascii: "/"))
                        segmentStart = output.count
                    }
                    PercentEncoding.append(String(segment), allowing: .unreserved, to: &output)
                    segmentPlaceholder = segmentPlaceholder ?? name
                }
            case .separator:
                try closeSegment()
                output.append(UInt8(ascii: "/"))
                segmentStart = output.count
            }
        }
        try closeSegment()
    }
}
