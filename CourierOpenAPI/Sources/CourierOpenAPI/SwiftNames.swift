/// Turns names from a description into Swift identifiers, and keeps them unique in a scope.
enum SwiftNames {
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default",
        "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch",
        "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true",
        "try", "Type", "Protocol",
    ]

    /// Type names a model may not take: Swift's and Foundation's types the generated code uses, and Courier's.
    static let reservedTypes: Set<String> = [
        "Error", "Type", "Protocol", "Self", "Any", "Data", "Date", "URL", "UUID", "String", "Int", "Int32", "Int64",
        "Double", "Float", "Bool", "Array", "Dictionary", "Optional", "Result", "Set", "Decoder", "Encoder",
        "Codable", "Decodable", "Encodable", "Sendable", "Hashable", "API", "APIError", "APIRequest", "APIResponse",
        "APIConfiguration", "APIPlugin", "AuthPlugin", "Parameters", "HTTPHeaders", "JSONValue", "Task", "Never",
        "Void", "Character", "Hasher", "CodingKeys", "CodingKey", "DecodingError", "Foundation", "Courier",
        "JSONString", "Indirect", "DelimitedValue", "OtherKey",
    ]

    /// The words of a name: split at anything that is not a letter or digit, and at lower-to-upper changes.
    static func words(_ raw: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previous: Character?
        for character in raw {
            if !(character.isLetter || character.isNumber) || !character.isASCII {
                if !current.isEmpty { words.append(current) }
                current = ""
                previous = nil
                continue
            }
            if let previous, previous.isLowercase || previous.isNumber, character.isUppercase {
                words.append(current)
                current = ""
            }
            current.append(character)
            previous = character
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `pet_type` → `PetType`; a leading digit gets an underscore; reserved names get `Model`.
    static func typeName(_ raw: String) -> String {
        var name = words(raw).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if name.isEmpty { name = "Value" }
        if name.first?.isNumber == true { name = "_" + name }
        if reservedTypes.contains(name) { name += "Model" }
        return name
    }

    /// `pet-type` → `petType`, `URLPath` → `urlPath`, `ID` → `id`; keywords are escaped with backticks.
    static func memberName(_ raw: String) -> String {
        let parts = words(raw)
        guard let first = parts.first else { return "value" }
        var name = lowerFirstWord(first) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if name.first?.isNumber == true { name = "_" + name }
        return name
    }

    /// A member name as it is written in code (backticks around keywords).
    static func escaped(_ name: String) -> String { keywords.contains(name) ? "`\(name)`" : name }

    private static func lowerFirstWord(_ word: String) -> String {
        if word == word.uppercased() { return word.lowercased() }  // ID, URL
        // URLPath → urlPath: lower the run of capitals but the last one that starts the next word.
        let characters = Array(word)
        var index = 0
        while index < characters.count, characters[index].isUppercase { index += 1 }
        if index > 1 { index -= 1 }
        return String(characters[..<index]).lowercased() + String(characters[index...])
    }
}

/// Hands out names unique within one scope: `name`, `name2`, `name3`, …
struct NameScope {
    private var used: Set<String>

    init(reserved: Set<String> = []) { used = reserved }

    mutating func claim(_ name: String) -> String {
        var candidate = name
        var counter = 2
        while used.contains(candidate) {
            candidate = "\(name)\(counter)"
            counter += 1
        }
        used.insert(candidate)
        return candidate
    }

    func contains(_ name: String) -> Bool { used.contains(name) }
}
