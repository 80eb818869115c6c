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
    /// Whether a model keeps members the description does not list (``otherKey``).
    private(set) var needsOtherKey = false
    /// Whether a typed call decodes a JSON string response (``jsonString``).
    var needsJSONString = false
    /// Whether a builder writes a form body of its own (``formBody``).
    var needsFormBody = false
    private var declared: Set<String> = []
    /// Inline error response schemas (their JSON text) → their models.
    private var inlineErrors: [String: String] = [:]
    /// `components/parameters` key → the Swift type of its schema.
    private var sharedTypes: [String: String] = [:]

    /// One declaration: its text for the coding its uses need (`Codable`, `Decodable` or `Encodable`), and the
    /// declared types its text names. `direct` are the types it stores inline (a member `T` or `T?`, not `[T]`):
    /// a cycle of those does not compile, so the text stores the `cyclic` ones out of line (see ``indirect``).
    private struct Declaration {
        var name: String
        var references: Set<String>
        var direct: Set<String> = []
        var text: (_ decodes: Bool, _ encodes: Bool, _ cyclic: Set<String>) -> String
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

    /// Declares a model for each distinct inline schema of an error response (one written on the response rather
    /// than under `components`), so that `error.decodeBody(as:)` has a type: named after the operation
    /// (`CreateBucketError`), or `ErrorBody` when several operations write the same schema.
    mutating func declareInlineErrors(_ operations: [Operation]) {
        var uses: [(text: String, schema: JSONNode, operations: [String])] = []
        for operation in operations {
            for response in operation.responses where !response.status.hasPrefix("2") {
                guard let schema = response.schema, schema["$ref"] == nil, needsDeclaration(schema),
                    response.contentType.map(Operation.isJSON) == true
                else { continue }
                let text = schema.jsonText
                let name = EndpointWriter.baseName(of: operation)
                if let index = uses.firstIndex(where: { $0.text == text }) {
                    if !uses[index].operations.contains(name) { uses[index].operations.append(name) }
                } else {
                    uses.append((text, schema, [name]))
                }
            }
        }
        for use in uses {
            let base =
                use.operations.count > 1
                ? "ErrorBody" : SwiftNames.typeName(SwiftNames.memberName(use.operations[0])) + "Error"
            let name = names.claim(base)
            inlineErrors[use.text] = name
            declare(name, use.schema)
        }
    }

    /// The model of an inline error response schema (see ``declareInlineErrors(_:)``).
    func inlineErrorModel(_ schema: JSONNode) -> String? {
        schema["$ref"] == nil ? inlineErrors[schema.jsonText] : nil
    }

    // MARK: - Types

    /// The Swift type of a schema, declaring a model named `suggestedName` when the schema needs one.
    /// Optionality (not required, nullable) is the caller's.
    mutating func swiftType(_ schema: JSONNode, suggestedName: String) -> String {
        if let reference = schema["$ref"]?.string {
            if let name = componentNames[reference] { return name }
            let target = description.resolve(schema)
            // A reference outside the document, or a loop of references: any JSON.
            guard target["$ref"] == nil else {
                needsJSONValue = true
                return "JSONValue"
            }
            return swiftType(target, suggestedName: suggestedName)
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
            declaration = Declaration(name: name, references: [], text: { _, _, _ in code })
            stringEnums.insert(name)
        } else if let members = unionMembers(schema) {
            declaration = union(name, schema, members)
        } else if schema["properties"] != nil || schema["allOf"] != nil {
            let (properties, required) = mergedProperties(schema, depth: 0)
            if properties.isEmpty {
                needsJSONValue = true
                let code = "typealias \(name) = [String: JSONValue]\n"
                declaration = Declaration(name: name, references: [], text: { _, _, _ in code })
            } else {
                // `additionalProperties` beside `properties` (anything but `false`): the other members are kept.
                let additional = schema["additionalProperties"].flatMap { $0 == .bool(false) ? nil : $0 }
                declaration = structure(name, properties, required, additional: additional)
            }
        } else {
            let type = primitiveType(schema, suggestedName: name + "Element")
            let code = "typealias \(name) = \(type)\n"
            declaration = Declaration(
                name: name, references: Self.typeNames(in: type), direct: Self.directName(type).map { [$0] } ?? [],
                text: { _, _, _ in code })
        }
        let text = declaration.text
        declaration.text = { doc + text($0, $1, $2) }
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

    /// The type a member of Swift type `type` stores inline: `Node` for `Node` and `Node?`, none for `[Node]`.
    static func directName(_ type: String) -> String? {
        let name = type.hasSuffix("?") ? String(type.dropLast()) : type
        return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } ? name : nil
    }

    /// The declarations' code in the order they were made. A model only decoded is `Decodable`, one only encoded
    /// `Encodable`, others (both, or used by no operation, and what those contain) `Codable`: half the coding code
    /// to compile where a model goes one way. A model that holds itself inline, directly or through others
    /// (`Node.parent: Node?`), holds those members out of line (``indirect``): every edge of such a cycle is broken.
    mutating func declarationCode() -> [String] {
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
        func reaches(_ start: String, _ goal: String) -> Bool {
            var seen: Set<String> = []
            var pending = [start]
            while let name = pending.popLast() {
                if name == goal { return true }
                guard seen.insert(name).inserted, let declaration = byName[name] else { continue }
                pending += declaration.direct
            }
            return false
        }
        var code = declarations.map { declaration in
            let cyclic = declaration.direct.filter { reaches($0, declaration.name) }
            return declaration.text(decoded.contains(declaration.name), encoded.contains(declaration.name), cyclic)
        }
        if declarations.contains(where: { declaration in declaration.direct.contains { reaches($0, declaration.name) } }
        ) {
            code.append(Self.indirect)
        }
        return code
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
        _ name: String, _ properties: [(String, JSONNode)], _ required: Set<String>, additional: JSONNode? = nil
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
        // The members the description does not list, beside the listed ones.
        var others: (swift: String, type: String)?
        if let additional {
            let member = scope.claim("additionalProperties")
            let value =
                additional.members?.pairs.isEmpty == false
                ? swiftType(additional, suggestedName: name + "Value") : "JSONValue"
            if value == "JSONValue" { needsJSONValue = true }
            needsOtherKey = true
            others = (member, value)
            code += "    /// The members the description does not list, by name.\n"
            code += "    var \(SwiftNames.escaped(member)): [String: \(value)] = [:]\n"
        }
        if keys.contains(where: { $0.json != $0.swift }) || others != nil {
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
        var references = keys.reduce(into: Set<String>()) { $0.formUnion(Self.typeNames(in: $1.type)) }
        if let others { references.formUnion(Self.typeNames(in: others.type)) }
        let direct = Set(keys.compactMap { Self.directName($0.type) })
        return Declaration(name: name, references: references, direct: direct) { decodes, encodes, cyclic in
            let tail = others.map { Self.otherMembersCoding(name, keys, $0, decodes: decodes, encodes: encodes) } ?? ""
            var text = body
            // Members of a cycle are stored out of line: `@Indirect var parent: Node?`.
            for key in keys where Self.directName(key.type).map(cyclic.contains) == true {
                let line = "    var \(SwiftNames.escaped(key.swift)): \(key.type)\n"
                text = text.replacingOccurrences(of: line, with: "    @Indirect" + line.dropFirst(3))
            }
            return Self.declaration("struct \(name)", [Self.coding(decodes: decodes, encodes: encodes), "Sendable"])
                + text + "}\n" + tail
        }
    }

    /// The coding of a struct with members the description does not list (`others`): the listed members by their
    /// `CodingKeys`, the others by name. In an extension, so that the struct keeps its memberwise initializer.
    private static func otherMembersCoding(
        _ name: String, _ keys: [(json: String, swift: String, type: String)], _ others: (swift: String, type: String),
        decodes: Bool, encodes: Bool
    ) -> String {
        var code = "\nextension \(name) {\n"
        if decodes {
            code += "    init(from decoder: any Decoder) throws {\n"
            code += "        let container = try decoder.container(keyedBy: CodingKeys.self)\n"
            for key in keys {
                let member = SwiftNames.escaped(key.swift)
                let type = key.type.hasSuffix("?") ? String(key.type.dropLast()) : key.type
                let method = key.type.hasSuffix("?") ? "decodeIfPresent" : "decode"
                code += "        \(member) = try container.\(method)(\(type).self, forKey: .\(member))\n"
            }
            code += "        let others = try decoder.container(keyedBy: OtherKey.self)\n"
            code += "        \(SwiftNames.escaped(others.swift)) = [:]\n"
            code += "        for key in others.allKeys where CodingKeys(stringValue: key.stringValue) == nil {\n"
            code +=
                "            \(SwiftNames.escaped(others.swift))[key.stringValue] = try others.decode(\(others.type).self, forKey: key)\n"
            code += "        }\n    }\n"
        }
        if encodes {
            if decodes { code += "\n" }
            code += "    func encode(to encoder: any Encoder) throws {\n"
            code += "        var container = encoder.container(keyedBy: CodingKeys.self)\n"
            for key in keys {
                let member = SwiftNames.escaped(key.swift)
                let method = key.type.hasSuffix("?") ? "encodeIfPresent" : "encode"
                code += "        try container.\(method)(\(member), forKey: .\(member))\n"
            }
            code += "        var others = encoder.container(keyedBy: OtherKey.self)\n"
            code += "        let sorted = \(SwiftNames.escaped(others.swift)).sorted { $0.key < $1.key }\n"
            code += "        for (key, value) in sorted where CodingKeys(stringValue: key) == nil {\n"
            code += "            try others.encode(value, forKey: OtherKey(stringValue: key))\n"
            code += "        }\n    }\n"
        }
        return code + "}\n"
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
        let direct = Set(cases.compactMap { Self.directName($0.type) })
        return Declaration(name: name, references: references, direct: direct) { decodes, encodes, cyclic in
            // A union in a cycle holds its cases out of line.
            Self.declaration(
                (cyclic.isEmpty ? "" : "indirect ") + "enum \(name)",
                [Self.coding(decodes: decodes, encodes: encodes), "Sendable"]) + head
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

    /// The key of a member the description does not list.
    static let otherKey = """
        /// The key of a member the description does not list.
        struct OtherKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }

            init(stringValue: String) { self.stringValue = stringValue }

            init?(intValue: Int) { nil }
        }

        """

    /// A JSON string response, decoded (Courier's `String` call form returns the body's text as it is).
    static let jsonString = """
        /// A response body that is a JSON string: its decoded text.
        struct JSONString: Decodable, Sendable {
            /// The decoded string.
            var value: String

            init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(String.self) }
        }

        """

    /// An `application/x-www-form-urlencoded` body a builder writes itself, beside path values of the same names.
    static let formBody = """
        /// An `application/x-www-form-urlencoded` body: each name and value percent-encoded (all but the RFC 3986
        /// unreserved characters), `name=value` pairs joined by `&`.
        enum FormBody {
            private static let unreserved = CharacterSet(
                charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

            /// The fields as the body's bytes, in order.
            static func data(_ fields: [(name: String, value: String)]) -> Data {
                func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
                return Data(fields.map { encoded($0.name) + "=" + encoded($0.value) }.joined(separator: "&").utf8)
            }
        }

        """

    /// The out-of-line storage of the members that close a cycle of models.
    static let indirect = """
        /// Stores a model's member out of line, so that a model can hold itself (`Node.parent: Node?`), directly or
        /// through other models. The member reads and writes as its own type, and codes as it would without this.
        @propertyWrapper
        struct Indirect<Value: Sendable>: Sendable {
            private final class Storage: Sendable {
                let value: Value
                init(_ value: Value) { self.value = value }
            }

            private var storage: Storage

            init(wrappedValue: Value) { storage = Storage(wrappedValue) }

            var wrappedValue: Value {
                get { storage.value }
                set { storage = Storage(newValue) }
            }
        }

        extension Indirect: Decodable where Value: Decodable {
            init(from decoder: any Decoder) throws { self.init(wrappedValue: try Value(from: decoder)) }
        }

        extension Indirect: Encodable where Value: Encodable {
            func encode(to encoder: any Encoder) throws { try wrappedValue.encode(to: encoder) }
        }

        extension KeyedDecodingContainer {
            /// An optional out-of-line member may be missing, as an optional member may.
            func decode<T: Decodable>(_ type: Indirect<T?>.Type, forKey key: Key) throws -> Indirect<T?> {
                Indirect(wrappedValue: try decodeIfPresent(T.self, forKey: key))
            }
        }

        extension KeyedEncodingContainer {
            /// A `nil` out-of-line member is left out, as a `nil` optional member is.
            mutating func encode<T: Encodable>(_ value: Indirect<T?>, forKey key: Key) throws {
                try encodeIfPresent(value.wrappedValue, forKey: key)
            }
        }

        """

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
