/// Writes the Swift models of a description's schemas: structs for objects, enums for string enums (with a case
/// for values the description does not list) and for `oneOf`/`anyOf`, `allOf` merged into one struct,
/// dictionaries for `additionalProperties`, typealiases for the rest. Inline schemas that need a type of their
/// own are named after where they appear (`CreatePetRequest`, `PetOwner`).
struct ModelGenerator {
    let description: OpenAPIDescription
    /// The type namespace: books, component models, inline models and parameter structs.
    var names: NameScope
    /// Component schema reference (`#/components/schemas/Pet`) → Swift type name.
    private(set) var componentNames: [String: String] = [:]
    /// Declarations in the order they were made; ``declarationCode()`` writes them.
    private var declarations: [Declaration] = []
    /// Declared types the book decodes (success and error responses) and encodes (parameters, request bodies),
    /// as marked; ``declarationCode()`` extends both to the types they contain.
    private var decodedRoots: Set<String> = []
    private var encodedRoots: Set<String> = []
    /// A struct's properties as (JSON name, Swift name, Swift type with `?` when optional), for spreading a body
    /// model into named parameters.
    private(set) var properties: [String: [(json: String, swift: String, type: String)]] = [:]
    /// The generated string enums (their `rawValue` is the text to send).
    private(set) var stringEnums: Set<String> = []
    private(set) var needsJSONValue = false
    private var declared: Set<String> = []
    /// `components/parameters` key → the Swift type of its schema.
    private var sharedTypes: [String: String] = [:]

    /// One declaration: its text for the coding its uses need (`Codable`, `Decodable` or `Encodable`), and the
    /// declared types its text names.
    private struct Declaration {
        var name: String
        var references: Set<String>
        var text: (_ decodes: Bool, _ encodes: Bool) -> String
    }

    init(description: OpenAPIDescription, names: NameScope) {
        self.description = description
        self.names = names
        for (key, _) in description.root["components"]?["schemas"]?.pairs ?? [] {
            componentNames["#/components/schemas/\(key)"] = self.names.claim(SwiftNames.typeName(key))
        }
    }

    /// Declares every component schema, in document order.
    mutating func declareComponents() {
        for (key, schema) in description.root["components"]?["schemas"]?.pairs ?? [] {
            guard let name = componentNames["#/components/schemas/\(key)"] else { continue }
            declare(name, schema)
        }
    }

    // MARK: - Types

    /// The Swift type of a schema, declaring a model named `suggestedName` when the schema needs one.
    /// Optionality (not required, nullable) is the caller's.
    mutating func swiftType(_ schema: JSONNode, suggestedName: String) -> String {
        if let reference = schema["$ref"]?.string {
            if let name = componentNames[reference] { return name }
            return swiftType(description.resolve(schema), suggestedName: suggestedName)
        }
        if let composed = schema["allOf"]?.array, composed.count == 1, schema["properties"] == nil {
            return swiftType(composed[0], suggestedName: suggestedName)
        }
        if needsDeclaration(schema) {
            let name = names.claim(suggestedName)
            declare(name, schema)
            return name
        }
        return primitiveType(schema, suggestedName: suggestedName)
    }

    /// The Swift type of a parameter declared under `components/parameters`: one type for every operation that
    /// uses it, named after its key (`Alt` rather than an `…Alt` enum per operation).
    mutating func sharedType(_ schema: JSONNode, component: String) -> String {
        if let type = sharedTypes[component] { return type }
        let type = swiftType(schema, suggestedName: SwiftNames.typeName(component))
        sharedTypes[component] = type
        return type
    }

    static func isNullable(_ schema: JSONNode) -> Bool {
        if schema["nullable"]?.bool == true { return true }
        if let types = schema["type"]?.array, types.contains(.string("null")) { return true }
        for key in ["oneOf", "anyOf"]
        where schema[key]?.array?.contains(where: { $0["type"]?.string == "null" }) == true {
            return true
        }
        return false
    }

    /// The schema's `type`, the non-null one of a 3.1 type list.
    static func type(of schema: JSONNode) -> String? {
        if let type = schema["type"]?.string { return type }
        return schema["type"]?.array?.compactMap(\.string).first { $0 != "null" }
    }

    private func needsDeclaration(_ schema: JSONNode) -> Bool {
        if schema["properties"] != nil || schema["allOf"] != nil { return true }
        if unionMembers(schema) != nil { return true }
        return Self.type(of: schema) == "string" && schema["enum"]?.array != nil
    }

    private mutating func primitiveType(_ schema: JSONNode, suggestedName: String) -> String {
        let format = schema["format"]?.string
        switch Self.type(of: schema) {
        case "string":
            switch format {
            case "date-time": return "Date"
            case "uuid": return "UUID"
            case "binary", "byte": return "Data"
            default: return "String"
            }
        case "integer":
            switch format {
            case "int32": return "Int32"
            case "int64": return "Int64"
            default: return "Int"
            }
        case "number": return format == "float" ? "Float" : "Double"
        case "boolean": return "Bool"
        case "array":
            let items = schema["items"] ?? .object(.init())
            return "[\(swiftType(items, suggestedName: suggestedName + "Item"))]"
        case "object", nil:
            if let additional = schema["additionalProperties"], additional.members != nil,
                additional.pairs.isEmpty == false
            {
                return "[String: \(swiftType(additional, suggestedName: suggestedName + "Value"))]"
            }
            if Self.type(of: schema) == "object" || schema.pairs.isEmpty || schema["additionalProperties"] != nil {
                needsJSONValue = true
                return Self.type(of: schema) == "object" ? "[String: JSONValue]" : "JSONValue"
            }
            needsJSONValue = true
            return "JSONValue"
        default:
            needsJSONValue = true
            return "JSONValue"
        }
    }

    // MARK: - Declarations

    private mutating func declare(_ name: String, _ schema: JSONNode) {
        guard declared.insert(name).inserted else { return }
        let doc = Self.docComment(schema["description"]?.string ?? schema["title"]?.string, indent: "")
        var declaration: Declaration
        if Self.type(of: schema) == "string", let values = schema["enum"]?.array {
            let code = stringEnum(name, values.compactMap(\.string))
            declaration = Declaration(name: name, references: [], text: { _, _ in code })
            stringEnums.insert(name)
        } else if let members = unionMembers(schema) {
            declaration = union(name, schema, members)
        } else if schema["properties"] != nil || schema["allOf"] != nil {
            let (properties, required) = mergedProperties(schema, depth: 0)
            if properties.isEmpty {
                needsJSONValue = true
                let code = "typealias \(name) = [String: JSONValue]\n"
                declaration = Declaration(name: name, references: [], text: { _, _ in code })
            } else {
                declaration = structure(name, properties, required)
            }
        } else {
            let type = primitiveType(schema, suggestedName: name + "Element")
            let code = "typealias \(name) = \(type)\n"
            declaration = Declaration(name: name, references: Self.typeNames(in: type), text: { _, _ in code })
        }
        let text = declaration.text
        declaration.text = { doc + text($0, $1) }
        declarations.append(declaration)
    }

    /// Marks `type` (a Swift type such as `[Pet]?`) as decoded from a response.
    mutating func markDecoded(_ type: String) { decodedRoots.formUnion(Self.typeNames(in: type)) }

    /// Marks `type` as encoded into a request (a parameter or a body).
    mutating func markEncoded(_ type: String) { encodedRoots.formUnion(Self.typeNames(in: type)) }

    /// The identifiers in a Swift type's text (`[String: Pet]?` → `String`, `Pet`).
    static func typeNames(in type: String) -> Set<String> {
        Set(type.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
    }

    /// The declarations' code in the order they were made. A model only decoded is `Decodable`, one only encoded
    /// `Encodable`, others (both, or used by no operation, and what those contain) `Codable`: half the coding code
    /// to compile where a model goes one way.
    func declarationCode() -> [String] {
        let byName = Dictionary(declarations.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func closure(_ roots: Set<String>) -> Set<String> {
            var reached: Set<String> = []
            var pending = Array(roots)
            while let name = pending.popLast() {
                guard let declaration = byName[name], reached.insert(name).inserted else { continue }
                pending += declaration.references
            }
            return reached
        }
        // A model no operation uses is the user's to decode or encode: `Codable`, and so is everything it contains.
        let used = closure(decodedRoots).union(closure(encodedRoots))
        let unused = Set(declarations.map(\.name)).subtracting(used)
        let decoded = closure(decodedRoots.union(unused))
        let encoded = closure(encodedRoots.union(unused))
        return declarations.map { declaration in
            declaration.text(decoded.contains(declaration.name), encoded.contains(declaration.name))
        }
    }

    /// The conformance for a model that decodes and/or encodes.
    private static func coding(decodes: Bool, encodes: Bool) -> String {
        decodes == encodes ? "Codable" : decodes ? "Decodable" : "Encodable"
    }

    private func unionMembers(_ schema: JSONNode) -> [JSONNode]? {
        guard let members = schema["oneOf"]?.array ?? schema["anyOf"]?.array else { return nil }
        let nonNull = members.filter { $0["type"]?.string != "null" }
        return nonNull.isEmpty ? nil : nonNull
    }

    /// The properties of an object schema with those of its `allOf` members merged in, in order.
    private func mergedProperties(_ schema: JSONNode, depth: Int) -> ([(String, JSONNode)], Set<String>) {
        var properties: [(String, JSONNode)] = []
        var required = Set((schema["required"]?.array ?? []).compactMap(\.string))
        guard depth < 32 else { return (properties, required) }
        for member in schema["allOf"]?.array ?? [] {
            let (memberProperties, memberRequired) = mergedProperties(description.resolve(member), depth: depth + 1)
            for property in memberProperties where !properties.contains(where: { $0.0 == property.0 }) {
                properties.append(property)
            }
            required.formUnion(memberRequired)
        }
        for (key, value) in schema["properties"]?.pairs ?? [] {
            properties.removeAll { $0.0 == key }
            properties.append((key, value))
        }
        return (properties, required)
    }

    private mutating func structure(
        _ name: String, _ properties: [(String, JSONNode)], _ required: Set<String>
    ) -> Declaration {
        var scope = NameScope()
        var lines: [String] = []
        var keys: [(json: String, swift: String, type: String)] = []
        for (key, schema) in properties {
            let member = scope.claim(SwiftNames.memberName(key))
            var type = swiftType(schema, suggestedName: name + SwiftNames.typeName(key))
            if !required.contains(key) || Self.isNullable(schema) || Self.isNullable(description.resolve(schema)) {
                type += "?"
            }
            keys.append((key, member, type))
            lines.append(Self.docComment(description.resolve(schema)["description"]?.string, indent: "    "))
            lines.append("    var \(SwiftNames.escaped(member)): \(type)\n")
        }
        self.properties[name] = keys
        var code = lines.joined()
        if keys.contains(where: { $0.json != $0.swift }) {
            code += "\n    enum CodingKeys: String, CodingKey {\n"
            for key in keys {
                code +=
                    key.json == key.swift
                    ? "        case \(SwiftNames.escaped(key.swift))\n"
                    : "        case \(SwiftNames.escaped(key.swift)) = \(JSONNode.quoted(key.json))\n"
            }
            code += "    }\n"
        }
        let body = code
        let references = keys.reduce(into: Set<String>()) { $0.formUnion(Self.typeNames(in: $1.type)) }
        return Declaration(name: name, references: references) { decodes, encodes in
            Self.declaration("struct \(name)", [Self.coding(decodes: decodes, encodes: encodes), "Sendable"]) + body
                + "}\n"
        }
    }

    /// A string enum: a case per listed value and `unknown` for the rest. `init(rawValue:)` never fails, so the
    /// standard library's `Codable` for `RawRepresentable` types with `String` raw values decodes an unlisted value as
    /// `unknown` and encodes every case as its text, and `Hashable` compares and hashes the raw value: no hand-written
    /// coding or synthesized conformance code to compile per enum.
    private func stringEnum(_ name: String, _ values: [String]) -> String {
        var scope = NameScope(reserved: ["unknown", "rawValue"])
        let cases = values.map { (value: $0, name: scope.claim(SwiftNames.memberName($0.isEmpty ? "empty" : $0))) }
        var code = Self.declaration("enum \(name)", ["RawRepresentable", "Codable", "Hashable", "Sendable"])
        for item in cases { code += "    case \(SwiftNames.escaped(item.name))\n" }
        code += "    /// A value this version of the description does not list.\n    case unknown(String)\n\n"
        code += "    init(rawValue: String) {\n        switch rawValue {\n"
        for item in cases {
            code += "        case \(JSONNode.quoted(item.value)): self = .\(SwiftNames.escaped(item.name))\n"
        }
        code += "        default: self = .unknown(rawValue)\n        }\n    }\n\n"
        code += "    /// The value as the server writes it.\n    var rawValue: String {\n        switch self {\n"
        for item in cases { code += "        case .\(SwiftNames.escaped(item.name)): \(JSONNode.quoted(item.value))\n" }
        code += "        case .unknown(let value): value\n        }\n    }\n}\n"
        return code
    }

    private mutating func union(_ name: String, _ schema: JSONNode, _ members: [JSONNode]) -> Declaration {
        var scope = NameScope()
        var cases: [(name: String, type: String, member: JSONNode)] = []
        for (index, member) in members.enumerated() {
            let type = swiftType(member, suggestedName: name + "Case\(index + 1)")
            let caseName = scope.claim(SwiftNames.memberName(type.filter { $0.isLetter || $0.isNumber }))
            cases.append((caseName, type, member))
        }
        var caseLines = ""
        for item in cases { caseLines += "    case \(SwiftNames.escaped(item.name))(\(item.type))\n" }
        var code = "\n    init(from decoder: any Decoder) throws {\n"
        if let discriminator = schema["discriminator"], let property = discriminator["propertyName"]?.string {
            var mapping: [String: [String]] = [:]
            for (value, target) in discriminator["mapping"]?.pairs ?? [] {
                if let reference = target.string { mapping[reference, default: []].append(value) }
            }
            code += "        let container = try decoder.container(keyedBy: DiscriminatorKey.self)\n"
            code += "        let kind = try container.decode(String.self, forKey: .kind)\n"
            code += "        switch kind {\n"
            for item in cases {
                var values = item.member["$ref"]?.string.flatMap { mapping[$0] } ?? []
                if values.isEmpty, let reference = item.member["$ref"]?.string,
                    let last = reference.split(separator: "/").last
                {
                    values = [String(last)]
                }
                guard !values.isEmpty else { continue }
                code += "        case \(values.map(JSONNode.quoted).joined(separator: ", ")):"
                code += " self = .\(SwiftNames.escaped(item.name))(try \(item.type)(from: decoder))\n"
            }
            code += "        default:\n            throw DecodingError.dataCorruptedError(\n"
            code +=
                "                forKey: .kind, in: container, debugDescription: \"unknown \(property) \\(kind)\")\n"
            code += "        }\n    }\n"
            code +=
                "\n    private enum DiscriminatorKey: String, CodingKey {\n        case kind = \(JSONNode.quoted(property))\n    }\n"
        } else {
            for item in cases {
                code += "        if let value = try? \(item.type)(from: decoder) {\n"
                code += "            self = .\(SwiftNames.escaped(item.name))(value)\n            return\n        }\n"
            }
            code += "        throw DecodingError.dataCorrupted(\n"
            let context = "codingPath: decoder.codingPath, debugDescription: \"no member of \(name) matches\""
            code +=
                "            .init(\(context)))".count <= 120
                ? "            .init(\(context)))\n"
                : "            .init(\n                "
                    + context.replacingOccurrences(
                        of: ", debugDescription", with: ",\n                debugDescription")
                    + "))\n"
            code += "    }\n"
        }
        var encoding = "\n    func encode(to encoder: any Encoder) throws {\n        switch self {\n"
        for item in cases {
            encoding += "        case .\(SwiftNames.escaped(item.name))(let value): try value.encode(to: encoder)\n"
        }
        encoding += "        }\n    }\n"
        let head = caseLines
        let decoding = code
        let references = cases.reduce(into: Set<String>()) { $0.formUnion(Self.typeNames(in: $1.type)) }
        return Declaration(name: name, references: references) { decodes, encodes in
            Self.declaration("enum \(name)", [Self.coding(decodes: decodes, encodes: encodes), "Sendable"]) + head
                + (decodes ? decoding : "") + (encodes ? encoding : "") + "}\n"
        }
    }

    /// `struct Name: A, B {` and a line break; past 120 characters the conformances go on as swift-format breaks
    /// them (a continuation line 4 spaces in, the brace on a line of its own).
    static func declaration(_ head: String, _ conformances: [String]) -> String {
        let line = "\(head): \(conformances.joined(separator: ", ")) {"
        guard line.count > 120 else { return line + "\n" }
        let pieces = conformances.enumerated().map { $0.element + ($0.offset == conformances.count - 1 ? "" : ",") }
        let lines = pack(["\(head):"] + pieces, width: 120 - 4, firstWidth: 120)
        return lines.enumerated().map { ($0.offset == 0 ? "" : "    ") + $0.element }.joined(separator: "\n") + "\n{\n"
    }

    static func docComment(_ text: String?, indent: String) -> String {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return "" }
        return text.trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .map { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return "\(indent)///\n" }
            return wrap(trimmed, width: 120 - indent.count - 4).map { "\(indent)/// \($0)\n" }.joined()
        }.joined()
    }

    /// Splits a line at spaces so that no piece is longer than `width` (a single longer word stays whole).
    static func wrap(_ line: String, width: Int) -> [String] {
        pack(line.split(separator: " ").map(String.init), width: width)
    }

    /// Pieces joined by spaces into lines of at most `width` characters (`firstWidth` for the first line); a piece
    /// longer than a line stays whole.
    static func pack(_ pieces: [String], width: Int, firstWidth: Int? = nil) -> [String] {
        var lines: [String] = []
        var current = ""
        for piece in pieces {
            if !current.isEmpty, current.count + 1 + piece.count > (lines.isEmpty ? firstWidth ?? width : width) {
                lines.append(current)
                current = ""
            }
            current += current.isEmpty ? piece : " " + piece
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    static let jsonValue = """
        /// Any JSON value, for schemas that allow anything.
        enum JSONValue: Codable, Hashable, Sendable {
            case null
            case bool(Bool)
            case number(Double)
            case string(String)
            case array([JSONValue])
            case object([String: JSONValue])

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if container.decodeNil() {
                    self = .null
                } else if let value = try? container.decode(Bool.self) {
                    self = .bool(value)
                } else if let value = try? container.decode(Double.self) {
                    self = .number(value)
                } else if let value = try? container.decode(String.self) {
                    self = .string(value)
                } else if let value = try? container.decode([JSONValue].self) {
                    self = .array(value)
                } else {
                    self = .object(try container.decode([String: JSONValue].self))
                }
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .null: try container.encodeNil()
                case .bool(let value): try container.encode(value)
                case .number(let value): try container.encode(value)
                case .string(let value): try container.encode(value)
                case .array(let value): try container.encode(value)
                case .object(let value): try container.encode(value)
                }
            }
        }

        """
}
