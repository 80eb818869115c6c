import Foundation

/// Checks a JSON value against a schema of the description: types, required properties, enums, formats,
/// numeric bounds (`minimum`, `maximum` and their exclusive forms), `allOf` / `oneOf` / `anyOf`, `nullable`,
/// `additionalProperties: false`. Each problem is a (location, rule, message); locations read like
/// `body.pets[0].id`.
struct SchemaValidator {
    let description: OpenAPIDescription

    struct Problem: Sendable, Equatable {
        var location: String
        var rule: String
        var message: String
    }

    func validate(_ value: JSONNode, against raw: JSONNode, at location: String, depth: Int = 0) -> [Problem] {
        let schema = description.resolve(raw)
        guard depth < JSONNode.maximumDepth else { return [] }
        if value == .null {
            if ModelGenerator.isNullable(schema) || schema.pairs.isEmpty { return [] }
            return [Problem(location: location, rule: "type", message: "null where the schema allows no null")]
        }
        var problems: [Problem] = []
        for member in schema["allOf"]?.array ?? [] {
            problems += validate(value, against: member, at: location, depth: depth + 1)
        }
        if let members = schema["oneOf"]?.array ?? schema["anyOf"]?.array {
            let matches = members.contains { validate(value, against: $0, at: location, depth: depth + 1).isEmpty }
            if !matches {
                problems.append(
                    Problem(location: location, rule: "oneOf", message: "matches none of the schema's alternatives"))
            }
        }
        let type = ModelGenerator.type(of: schema) ?? (schema["properties"] != nil ? "object" : nil)
        switch (type, value) {
        case (nil, .integer), (nil, .number): problems += bounds(value, schema, at: location)
        case (nil, _): break
        case ("string", .string(let text)):
            problems += string(text, schema, at: location)
        case ("integer", .integer(let number)):
            if schema["format"]?.string == "int32", Int32(exactly: number) == nil {
                problems.append(Problem(location: location, rule: "format", message: "\(number) is not an int32"))
            }
            problems += enumeration(value, schema, at: location) + bounds(value, schema, at: location)
        case ("integer", .number(let number)) where number.rounded() == number:
            problems += bounds(value, schema, at: location)
        case ("number", .integer), ("number", .number):
            problems += enumeration(value, schema, at: location) + bounds(value, schema, at: location)
        case ("boolean", .bool): break
        case ("array", .array(let elements)):
            let items = schema["items"] ?? .object(.init())
            for (index, element) in elements.enumerated() {
                problems += validate(element, against: items, at: "\(location)[\(index)]", depth: depth + 1)
            }
        case ("object", .object(let members)):
            problems += object(members, schema, at: location, depth: depth)
        default:
            problems.append(
                Problem(
                    location: location, rule: "type",
                    message: "\(Self.kind(of: value)) where the schema wants \(type ?? "")"))
        }
        return problems
    }

    private func string(_ text: String, _ schema: JSONNode, at location: String) -> [Problem] {
        var problems = enumeration(.string(text), schema, at: location)
        let valid: Bool
        switch schema["format"]?.string {
        case "date-time": valid = Self.isDateTime(text)
        case "date": valid = text.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil
        case "uuid": valid = UUID(uuidString: text) != nil
        default: valid = true
        }
        if !valid, let format = schema["format"]?.string {
            problems.append(Problem(location: location, rule: "format", message: "\"\(text)\" is not a \(format)"))
        }
        return problems
    }

    private func enumeration(_ value: JSONNode, _ schema: JSONNode, at location: String) -> [Problem] {
        guard let values = schema["enum"]?.array, !values.contains(value) else { return [] }
        if case .integer(let number) = value, values.contains(.number(Double(number))) { return [] }
        return [
            Problem(
                location: location, rule: "enum",
                message: "\(value.jsonText) is not one of \(JSONNode.array(values).jsonText)")
        ]
    }

    /// `minimum` and `maximum`, inclusive unless OpenAPI 3.0's boolean `exclusiveMinimum` or `exclusiveMaximum`
    /// says otherwise, and OpenAPI 3.1's numeric `exclusiveMinimum` and `exclusiveMaximum`.
    private func bounds(_ value: JSONNode, _ schema: JSONNode, at location: String) -> [Problem] {
        var problems: [Problem] = []
        func check(_ key: String, lower: Bool, exclusive: Bool) {
            guard let bound = schema[key], let order = Self.compare(value, bound) else { return }
            let broken = lower ? (order < 0 || (exclusive && order == 0)) : (order > 0 || (exclusive && order == 0))
            guard broken else { return }
            let rule = exclusive ? (lower ? "exclusiveMinimum" : "exclusiveMaximum") : key
            let relation =
                exclusive
                ? (lower ? "is not greater than" : "is not less than") : (lower ? "is less than" : "is greater than")
            let name = (exclusive ? "the exclusive " : "the ") + (lower ? "minimum" : "maximum")
            problems.append(
                Problem(
                    location: location, rule: rule, message: "\(value.jsonText) \(relation) \(name) \(bound.jsonText)"))
        }
        check("minimum", lower: true, exclusive: schema["exclusiveMinimum"]?.bool == true)
        check("exclusiveMinimum", lower: true, exclusive: true)
        check("maximum", lower: false, exclusive: schema["exclusiveMaximum"]?.bool == true)
        check("exclusiveMaximum", lower: false, exclusive: true)
        return problems
    }

    /// -1, 0 or 1 as the number `value` is less than, equal to or greater than the number `bound`, exactly for
    /// 64-bit integers; `nil` when either is not a number (OpenAPI 3.0's boolean `exclusiveMinimum`, say).
    static func compare(_ value: JSONNode, _ bound: JSONNode) -> Int? {
        switch (value, bound) {
        case (.integer(let value), .integer(let bound)): return value < bound ? -1 : value == bound ? 0 : 1
        case (.integer(let value), .number(let bound)): return compare(value, bound)
        case (.number(let value), .integer(let bound)): return compare(bound, value).map { -$0 }
        case (.number(let value), .number(let bound)): return value < bound ? -1 : value == bound ? 0 : 1
        default: return nil
        }
    }

    /// `integer` against `number` without rounding the integer into a `Double` where that would change it.
    private static func compare(_ integer: Int64, _ number: Double) -> Int? {
        guard !number.isNaN else { return nil }
        if number >= 0x1p63 { return -1 }
        if number < -0x1p63 { return 1 }
        if number.rounded() == number, let whole = Int64(exactly: number) {
            return integer < whole ? -1 : integer == whole ? 0 : 1
        }
        let converted = Double(integer)
        return converted < number ? -1 : converted == number ? 0 : 1
    }

    private func object(_ members: JSONNode.Members, _ schema: JSONNode, at location: String, depth: Int) -> [Problem] {
        var problems: [Problem] = []
        for name in (schema["required"]?.array ?? []).compactMap(\.string) where members[name] == nil {
            problems.append(
                Problem(location: "\(location).\(name)", rule: "required", message: "the required property is missing"))
        }
        let properties = schema["properties"]
        for (name, value) in members.pairs {
            if let property = properties?[name] {
                problems += validate(value, against: property, at: "\(location).\(name)", depth: depth + 1)
            } else if let additional = schema["additionalProperties"] {
                if additional == .bool(false) {
                    problems.append(
                        Problem(
                            location: "\(location).\(name)", rule: "additionalProperties",
                            message: "the schema has no such property"))
                } else if additional.members != nil {
                    problems += validate(value, against: additional, at: "\(location).\(name)", depth: depth + 1)
                }
            }
        }
        return problems
    }

    static func kind(of value: JSONNode) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    static func isDateTime(_ text: String) -> Bool {
        text.wholeMatch(of: /\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})/) != nil
    }

    /// A parameter's text (query item, header, path segment) as the JSON value its schema describes, so that the
    /// same validation applies: `"12"` is an integer for an integer schema, `"a,b"` an array when not exploded.
    func typed(_ texts: [String], for raw: JSONNode, explode: Bool) -> JSONNode {
        let schema = description.resolve(raw)
        switch ModelGenerator.type(of: schema) {
        case "array":
            let items = schema["items"] ?? .object(.init())
            let parts =
                explode
                ? texts : texts.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            return .array(parts.map { typed([$0], for: items, explode: true) })
        case "integer": return Int64(texts.first ?? "").map(JSONNode.integer) ?? .string(texts.first ?? "")
        case "number": return Double(texts.first ?? "").map(JSONNode.number) ?? .string(texts.first ?? "")
        case "boolean":
            switch texts.first {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: return .string(texts.first ?? "")
            }
        default: return .string(texts.first ?? "")
        }
    }

    /// A parameter's value read back as its `style` and `explode` write it (OpenAPI's simple, label, matrix and
    /// form styles, for scalars, arrays and objects); a message when the text does not have the style's shape.
    func value(of parameter: Operation.Parameter, texts: [String]) -> Result<JSONNode, ShapeError> {
        var texts = texts
        var explode = parameter.explode
        let prefix = ";\(parameter.name)="
        if parameter.location == .path, let text = texts.first {
            // An empty list or object in label or matrix style expands to nothing, its prefix included (RFC 6570).
            if text.isEmpty, ["label", "matrix"].contains(parameter.style) {
                switch ModelGenerator.type(of: description.resolve(parameter.schema)) {
                case "array": return .success(.array([]))
                case "object": return .success(.object(.init()))
                default: break
                }
            }
            switch parameter.style {
            case "label":
                guard text.hasPrefix(".") else { return .failure(ShapeError("a label value starts with '.'")) }
                let rest = String(text.dropFirst())
                texts = [explode ? rest.replacingOccurrences(of: ".", with: ",") : rest]
            case "matrix":
                if explode, text.hasPrefix(";"), !text.hasPrefix(prefix) {
                    texts = [text.dropFirst().split(separator: ";").joined(separator: ",")]  // ;key=value;…
                } else if text.hasPrefix(prefix) {
                    texts = [String(text.dropFirst(prefix.count)).replacingOccurrences(of: prefix, with: ",")]
                } else {
                    return .failure(ShapeError("a matrix value starts with '\(prefix)'"))
                }
            default: break
            }
            // A path array is one comma-separated text once its style's marks are gone.
            if ModelGenerator.type(of: description.resolve(parameter.schema)) == "array" { explode = false }
        }
        let schema = description.resolve(parameter.schema)
        guard schema["properties"] != nil, let text = texts.first else {
            return .success(typed(texts, for: parameter.schema, explode: explode))
        }
        // An object: key,value pairs, or key=value pairs when exploded (not in form style: the query reader
        // gathers an exploded form object's items itself).
        let parts = text.isEmpty ? [] : text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var pairs: [(String, String)] = []
        if explode, parameter.style != "form" {
            for part in parts {
                let halves = part.split(separator: "=", maxSplits: 1).map(String.init)
                guard halves.count == 2 else { return .failure(ShapeError("not key=value pairs: '\(text)'")) }
                pairs.append((halves[0], halves[1]))
            }
        } else {
            guard parts.count.isMultiple(of: 2) else { return .failure(ShapeError("not key,value pairs: '\(text)'")) }
            pairs = stride(from: 0, to: parts.count, by: 2).map { (parts[$0], parts[$0 + 1]) }
        }
        return .success(object(pairs, schema: schema))
    }

    /// An object parameter's member texts as the values their schemas describe.
    func object(_ pairs: [(String, String)], schema: JSONNode) -> JSONNode {
        var members = JSONNode.Members()
        for (key, text) in pairs {
            members[key] = typed([text], for: schema["properties"]?[key] ?? .object(.init()), explode: true)
        }
        return .object(members)
    }

    /// A value that does not have its style's shape.
    struct ShapeError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }
}
