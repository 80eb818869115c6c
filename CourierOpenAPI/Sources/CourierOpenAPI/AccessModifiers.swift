/// Gives a generated file's declarations an access level (`public` or `package`), so that a book can live in a
/// module of its own: every top-level type and extension member, every member of a type, and a memberwise
/// initializer for each struct that declares none (Swift gives a public struct's memberwise initializer internal
/// access only).
///
/// Works on the generator's own output, whose layout it knows: declarations at the start of a line (top level) or
/// 4 spaces in (members); deeper lines are bodies. Private members and enum cases are left as they are.
enum AccessModifiers {
    /// Declarations that take the modifier, at the top level or as members.
    private static let heads = [
        "struct ", "enum ", "indirect enum ", "typealias ", "static var ", "static let ", "static func ", "var ",
        "let ", "init(", "init?(", "func ", "mutating func ",
    ]

    static func apply(_ level: String, to text: String) -> String {
        var output: [String] = []
        var structure: (start: Int, stored: [(name: String, type: String, value: String?)], hasInit: Bool)?
        // A conformance the modifier pushed past 120 characters, carried to the start of the continuation line.
        var carried = ""
        for var line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if !carried.isEmpty, line.hasPrefix("    ") {
                line = "    " + carried + " " + line.dropFirst(4)
                carried = ""
            }
            let indent = line.prefix { $0 == " " }.count
            let rest = line.dropFirst(indent)
            if indent == 0 || indent == 4, heads.contains(where: { rest.hasPrefix($0) }) {
                if indent == 4, rest.hasPrefix("var ") || rest.hasPrefix("let "), let stored = storedProperty(rest) {
                    structure?.stored.append(stored)
                }
                if indent == 4, rest.hasPrefix("init") { structure?.hasInit = true }
                line = String(repeating: " ", count: indent) + level + " " + rest
            } else if indent == 4, rest.hasPrefix("@Indirect var "), let stored = storedProperty(rest.dropFirst(10)) {
                structure?.stored.append(stored)
                line = "    @Indirect \(level) " + rest.dropFirst("@Indirect ".count)
            }
            if indent == 0, rest.hasPrefix("struct ") {
                structure = (output.count, [], false)
            } else if indent == 0, line == "}", let current = structure {
                structure = nil
                if !current.hasInit, !current.stored.isEmpty {
                    output.append(contentsOf: memberwiseInitializer(level, current.stored))
                }
            }
            if indent == 0, line.count > 120, line.hasSuffix(","), let space = line.lastIndex(of: " ") {
                carried = String(line[line.index(after: space)...])
                line = String(line[..<space])
            }
            output += fitted(line)
        }
        return output.joined(separator: "\n")
    }

    /// A member line the modifier made longer than 120 characters, broken as swift-format breaks it: a one-line
    /// builder's closure over three lines, a signature's parameters one per line.
    private static func fitted(_ line: String) -> [String] {
        guard line.count > 120, line.hasPrefix("    "), !line.hasPrefix("     ") else { return [line] }
        if let open = line.range(of: " = .init { "), line.hasSuffix(" }") {
            let body = line[open.upperBound..<line.index(line.endIndex, offsetBy: -2)]
            return [line[..<open.lowerBound] + " = .init {", "        " + body, "    }"]
        }
        guard line.contains(" func "), let open = line.firstIndex(of: "("),
            let close = line.range(of: ") async throws(APIError)")
        else { return [line] }
        var parameters: [String] = []
        var depth = 0
        var current = ""
        for character in line[line.index(after: open)..<close.lowerBound] {
            if "([<".contains(character) { depth += 1 }
            if ")]>".contains(character) { depth -= 1 }
            if character == ",", depth == 0 {
                parameters.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        parameters.append(current.trimmingCharacters(in: .whitespaces))
        return [String(line[...open])]
            + parameters.enumerated().map {
                "        \($0.element)" + ($0.offset == parameters.count - 1 ? "" : ",")
            } + ["    " + line[close.lowerBound...]]
    }

    /// A stored property's name, type and initial value (`var name: Type = value`); `nil` for a computed one.
    private static func storedProperty(_ declaration: Substring) -> (name: String, type: String, value: String?)? {
        guard !declaration.hasSuffix("{"), !declaration.hasSuffix("}"), let space = declaration.firstIndex(of: " ")
        else { return nil }
        let rest = declaration[declaration.index(after: space)...]
        if let colon = rest.firstIndex(of: ":") {
            let name = String(rest[..<colon])
            let typeAndValue = rest[rest.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if let equals = typeAndValue.range(of: " = ") {
                return (
                    name, String(typeAndValue[..<equals.lowerBound]), String(typeAndValue[equals.upperBound...])
                )
            }
            return (name, typeAndValue, nil)
        }
        // `var common = CommonParameters()`: the type is the initializer's.
        guard let equals = rest.range(of: " = "), rest.hasSuffix("()") else { return nil }
        let value = String(rest[equals.upperBound...])
        return (String(rest[..<equals.lowerBound]), String(value.dropLast(2)), value)
    }

    /// `init(…) { self.… = … }` with the stored properties in order; optional ones default to `nil`, others with
    /// an initial value to that value. On one line when it fits in 120 characters, else a parameter per line.
    private static func memberwiseInitializer(
        _ level: String, _ stored: [(name: String, type: String, value: String?)]
    ) -> [String] {
        let parameters = stored.map { property in
            let value = property.value ?? (property.type.hasSuffix("?") ? "nil" : nil)
            return "\(property.name): \(property.type)" + (value.map { " = \($0)" } ?? "")
        }
        var lines = ["", "    /// Creates a value from its members."]
        let head = "    \(level) init(\(parameters.joined(separator: ", "))) {"
        if head.count <= 120 {
            lines.append(head)
        } else {
            lines.append("    \(level) init(")
            lines += parameters.enumerated().map {
                "        \($0.element)" + ($0.offset == parameters.count - 1 ? "" : ",")
            }
            lines.append("    ) {")
        }
        lines += stored.map { "        self.\($0.name) = \($0.name)" }
        lines.append("    }")
        return lines
    }
}
