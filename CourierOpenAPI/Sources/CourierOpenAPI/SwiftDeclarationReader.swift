import Foundation

/// Reads the endpoint declarations of an address book from Swift source text, without a Swift parser.
///
/// Courier's declarations have one narrow shape — a method attribute or value with a string-literal path
/// (`@GET("/users/{login}")`, `GET<String>("/users/{login}") { … }`), then a builder whose dictionary literals
/// name the parameters (`["login": $0]`) — so a small scanner that skips comments and string contents and
/// balances brackets reads them reliably, and the tool does not pay swift-syntax's build time. What it cannot
/// see (names computed at run time, a whole model passed as `$0`) it reports as unknown rather than guessing.
struct SwiftDeclarationReader {
    /// One endpoint as declared.
    struct Endpoint: Sendable {
        var file: String
        var line: Int
        var method: String
        var path: String
        var name: String?
        /// Names the declaration's dictionary literals and `.querying(…)` list, in order.
        var names: [String]
        /// Header names (`headers.add("X", …)`, `["X": …]` inside `headerBuilder:`).
        var headerNames: [String]
        /// Whether the builder passes a whole value (`.init { $0 }`, `.init { $0.body }`) whose names are unknown.
        var passesModel: Bool
        /// Whether the builder sends a body of its own (`.body(.data(json), contentType:parameters:)`), whose
        /// members are not in the source.
        var sendsBody: Bool
    }

    static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "QUERY"]

    static func endpoints(in text: String, file: String) -> [Endpoint] {
        let code = Array(blankingComments(text).utf8)
        var endpoints: [Endpoint] = []
        var index = 0
        while index < code.count {
            guard code[index] == UInt8(ascii: "@") || isWordStart(code, index),
                let (method, afterMethod) = method(in: code, at: index)
            else {
                index += 1
                continue
            }
            let isAttribute = code[index] == UInt8(ascii: "@")
            var cursor = afterMethod
            if !isAttribute {  // GET<Parameter>(…): skip the generic argument
                guard cursor < code.count, code[cursor] == UInt8(ascii: "<"),
                    let end = matching(code, from: cursor, open: "<", close: ">")
                else {
                    index += 1
                    continue
                }
                cursor = end + 1
            }
            cursor = skipSpaces(code, cursor)
            guard cursor < code.count, code[cursor] == UInt8(ascii: "("),
                let pathStart = Optional(skipSpaces(code, cursor + 1)), pathStart < code.count,
                code[pathStart] == UInt8(ascii: "\""), let (path, _) = stringLiteral(code, at: pathStart),
                let attributeEnd = matching(code, from: cursor, open: "(", close: ")")
            else {
                index += 1
                continue
            }
            // The declaration: the attribute, then up to the end of the statement that follows it.
            let end = statementEnd(code, from: attributeEnd + 1, skipFirstLine: isAttribute)
            let region = Array(code[index..<end])
            let line = code[..<index].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            endpoints.append(
                Endpoint(
                    file: file, line: line, method: method, path: path,
                    name: isAttribute
                        ? declaredName(Array(code[(attributeEnd + 1)..<max(attributeEnd + 1, end)]))
                        : valueName(Array(code[max(0, index - 300)..<index])),
                    names: dictionaryKeys(region, headers: false) + queryingNames(region),
                    headerNames: dictionaryKeys(region, headers: true), passesModel: passesModel(region),
                    sendsBody: String(decoding: region, as: UTF8.self).contains(".body(")))
            index = end
        }
        return endpoints
    }

    // MARK: - Scanning

    private static func isWordStart(_ code: [UInt8], _ index: Int) -> Bool {
        index == 0 || !(isIdentifier(code[index - 1]) || code[index - 1] == UInt8(ascii: "."))
    }

    private static func isIdentifier(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
            || byte == UInt8(ascii: "_")
    }

    private static func method(in code: [UInt8], at index: Int) -> (String, Int)? {
        let start = code[index] == UInt8(ascii: "@") ? index + 1 : index
        for method in methods {
            let bytes = Array(method.utf8)
            let end = start + bytes.count
            guard end <= code.count, Array(code[start..<end]) == bytes else { continue }
            if end < code.count, isIdentifier(code[end]) { continue }
            return (method, end)
        }
        return nil
    }

    private static func skipSpaces(_ code: [UInt8], _ index: Int) -> Int {
        var index = index
        while index < code.count, [0x20, 0x09, 0x0a, 0x0d].contains(code[index]) { index += 1 }
        return index
    }

    /// The string literal starting at `index` (a `"`), unescaped, and the index after it.
    private static func stringLiteral(_ code: [UInt8], at index: Int) -> (String, Int)? {
        var bytes: [UInt8] = []
        var cursor = index + 1
        while cursor < code.count {
            switch code[cursor] {
            case UInt8(ascii: "\\"):
                if cursor + 1 < code.count { bytes.append(code[cursor + 1]) }
                cursor += 2
            case UInt8(ascii: "\""):
                return (String(decoding: bytes, as: UTF8.self), cursor + 1)
            case UInt8(ascii: "\n"):
                return nil
            default:
                bytes.append(code[cursor])
                cursor += 1
            }
        }
        return nil
    }

    /// The index of the bracket that closes the one at `start`, skipping string literals.
    private static func matching(_ code: [UInt8], from start: Int, open: Character, close: Character) -> Int? {
        let openByte = UInt8(ascii: open.unicodeScalars.first ?? "(")
        let closeByte = UInt8(ascii: close.unicodeScalars.first ?? ")")
        var depth = 0
        var cursor = start
        while cursor < code.count {
            switch code[cursor] {
            case UInt8(ascii: "\""):
                guard let (_, next) = stringLiteral(code, at: cursor) else { return nil }
                cursor = next
                continue
            case openByte: depth += 1
            case closeByte:
                depth -= 1
                if depth == 0 { return cursor }
            default: break
            }
            cursor += 1
        }
        return nil
    }

    /// The end of the statement after an attribute (or of a value declaration): the first line break outside
    /// brackets, after the declaration's own line when it follows an attribute.
    private static func statementEnd(_ code: [UInt8], from start: Int, skipFirstLine: Bool) -> Int {
        var depth = 0
        var cursor = start
        var seenCode = !skipFirstLine
        while cursor < code.count {
            let byte = code[cursor]
            switch byte {
            case UInt8(ascii: "\""):
                if let (_, next) = stringLiteral(code, at: cursor) {
                    cursor = next
                    seenCode = true
                    continue
                }
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth < 0 { return cursor }
            case UInt8(ascii: "\n"):
                // A builder that continues on the next line (`= .init {` ends with an open brace: depth > 0), or a
                // line that swift-format broke after `=` or `:`, before `.init`.
                if depth == 0, seenCode, !continues(code, at: cursor) { return cursor }
            case 0x20, 0x09, 0x0d: break
            default: seenCode = true
            }
            cursor += 1
        }
        return code.count
    }

    /// Whether the statement goes on past the line break at `index`: the line ends with `=`, `:` or `,`, or the next
    /// one starts with `.` (`static var name: Type =` / `.init {`).
    private static func continues(_ code: [UInt8], at index: Int) -> Bool {
        let blank: Set<UInt8> = [0x20, 0x09, 0x0d, 0x0a]
        var before = index - 1
        while before >= 0, blank.contains(code[before]) { before -= 1 }
        if before >= 0, [UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: ",")].contains(code[before]) {
            return true
        }
        var after = index + 1
        while after < code.count, blank.contains(code[after]) { after += 1 }
        return after < code.count && code[after] == UInt8(ascii: ".")
    }

    /// Keys of dictionary literals (`"name": value`), or the header names: keys inside the `headerBuilder:`
    /// closure and names given to `headers.add(…)`. Keys of the static `headers: [...]` are neither.
    private static func dictionaryKeys(_ region: [UInt8], headers: Bool) -> [String] {
        let text = String(decoding: region, as: UTF8.self)
        let builderRange = closureRange(after: "headerBuilder:", in: region, open: "{", close: "}")
        let staticRange = closureRange(after: "headers:", in: region, open: "[", close: "]")
        var keys: [String] = []
        for match in text.matches(of: /"((?:[^"\\\n]|\\.)*)"\s*:/) {
            let offset = text.utf8.distance(from: text.startIndex, to: match.range.lowerBound)
            if staticRange?.contains(offset) == true { continue }
            // A ternary's first value (`list.isEmpty ? "" : …`) is not a key.
            if text[..<match.range.lowerBound].last(where: { !$0.isWhitespace }) == "?" { continue }
            if (builderRange?.contains(offset) == true) == headers { keys.append(String(match.output.1)) }
        }
        if headers {
            for match in text.matches(of: /headers\.add\(\s*"((?:[^"\\\n]|\\.)*)"/) {
                keys.append(String(match.output.1))
            }
        }
        return keys
    }

    /// The byte range from `label` to the bracket that closes the first `open` after it.
    private static func closureRange(
        after label: String, in region: [UInt8], open: Character, close: Character
    )
        -> Range<Int>?
    {
        let bytes = Array(label.utf8)
        guard bytes.count <= region.count else { return nil }
        for start in 0...(region.count - bytes.count) where Array(region[start..<(start + bytes.count)]) == bytes {
            var cursor = skipSpaces(region, start + bytes.count)
            guard cursor < region.count, region[cursor] == UInt8(ascii: open.unicodeScalars.first ?? "{") else {
                return nil
            }
            cursor = matching(region, from: cursor, open: open, close: close) ?? region.count
            return start..<cursor
        }
        return nil
    }

    private static func queryingNames(_ region: [UInt8]) -> [String] {
        let text = String(decoding: region, as: UTF8.self)
        guard let match = text.firstMatch(of: /\.querying\(([^)]*)\)/) else { return [] }
        return String(match.output.1).matches(of: /"((?:[^"\\\n]|\\.)*)"/).map { String($0.output.1) }
    }

    /// The property an attribute marks: the first `var` or `let` after the attribute (not one in a closure of the
    /// attribute's own, such as a `headerBuilder`'s `var headers`).
    private static func declaredName(_ region: [UInt8]) -> String? {
        let text = String(decoding: region, as: UTF8.self)
        return text.firstMatch(of: /(?:var|let)\s+`?([A-Za-z_][A-Za-z0-9_]*)`?/).map { String($0.output.1) }
    }

    /// The property an endpoint value is assigned to (`static let user = GET<String>(…)`), from the text before the
    /// value.
    private static func valueName(_ before: [UInt8]) -> String? {
        let text = String(decoding: before, as: UTF8.self)
        return text.firstMatch(of: /(?:var|let)\s+`?([A-Za-z_][A-Za-z0-9_]*)`?\s*(?::[^=\n]*)?=\s*$/).map {
            String($0.output.1)
        }
    }

    private static func passesModel(_ region: [UInt8]) -> Bool {
        let text = String(decoding: region, as: UTF8.self)
        return text.contains(/(?:\.init|\))\s*\{\s*\$0(?:\.[A-Za-z_`]+)?\s*\}/)
    }

    /// The text with `//` and `/* */` comments replaced by spaces (line breaks kept), strings left alone.
    static func blankingComments(_ text: String) -> String {
        var bytes = Array(text.utf8)
        var index = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\n") { inString = false }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count {
                if bytes[index + 1] == UInt8(ascii: "/") {
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\n") {
                        bytes[index] = 0x20
                        index += 1
                    }
                    continue
                } else if bytes[index + 1] == UInt8(ascii: "*") {
                    while index < bytes.count {
                        if bytes[index] == UInt8(ascii: "*"), index + 1 < bytes.count,
                            bytes[index + 1] == UInt8(ascii: "/")
                        {
                            bytes[index] = 0x20
                            bytes[index + 1] = 0x20
                            index += 2
                            break
                        }
                        if bytes[index] != UInt8(ascii: "\n") { bytes[index] = 0x20 }
                        index += 1
                    }
                    continue
                }
            }
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
