import Foundation

/// Brings the files a description's `$ref`s name (`./schemas/pet.yaml#/Pet`, `common.json`) into the description,
/// so that the rest of the package reads one document with local references only.
///
/// A relative reference is resolved beside the file that writes it (one inside `schemas/pet.yaml` beside
/// `schemas/`), JSON or YAML, with a fragment (a JSON pointer into the file) or without (the whole file). A schema
/// it names becomes a schema of the description's own (`components/schemas`, `definitions` in Swagger 2.0), named
/// after the fragment's last token or the file's name: a model is declared once however often it is referenced,
/// and a cycle of references ends at the schema it started from. Anything else (a parameter, a response, a path
/// item) is written in place of its reference; a cycle of those is an error. A reference to a URL (`https:` or
/// any other scheme) is refused: the tools read local files only.
struct ExternalReferences {
    /// The description's own file.
    private let main: URL
    /// Whether the description is Swagger 2.0 (its schemas live under `definitions`).
    private let swagger: Bool
    /// The files read so far, by path, in the order they were first read.
    private var files: [(path: String, data: Data, root: JSONNode)] = []
    /// The schemas brought in: their key by file and pointer, and the schemas in the order they were named.
    private var schemaKeys: [String: String] = [:]
    private var schemas: [(key: String, schema: JSONNode)] = []
    private var takenKeys: Set<String>
    /// The references being written in place, to refuse a cycle of them.
    private var inlining: [String] = []

    /// What a node is: a schema, a map of schemas (`properties`, `components/schemas`), `components`, or anything
    /// else (a parameter, a response, a path item, …).
    private enum Position { case schema, schemas, components, other }

    /// `root`, the description read from `main`, with every reference to another file resolved, and the bytes of
    /// the files it read.
    static func resolve(_ root: JSONNode, in main: URL) throws(DescriptionError) -> (root: JSONNode, files: [Data]) {
        var references = ExternalReferences(main: main.standardizedFileURL, root: root)
        let walked = try references.walk(root, file: references.main, position: .other, location: "#", depth: 0)
        return (references.adding(to: walked), references.files.map(\.data))
    }

    /// Throws for the first reference to another file in a description read from bytes, which has no folder to
    /// resolve it in, and for the first reference to a URL.
    static func refuse(in root: JSONNode) throws(DescriptionError) {
        guard let (reference, location) = firstExternal(in: root, at: "#", depth: 0) else { return }
        if isURL(reference) { throw urlRefusal(reference, location) }
        throw DescriptionError(
            "$ref \(reference) (at \(location)) names another file: read the description from its file to resolve it")
    }

    private init(main: URL, root: JSONNode) {
        self.main = main
        self.swagger = root["swagger"] != nil
        let section = swagger ? root["definitions"] : root["components"]?["schemas"]
        self.takenKeys = Set(section?.members?.keys ?? [])
    }

    // MARK: - Walking

    private mutating func walk(
        _ node: JSONNode, file: URL, position: Position, location: String, depth: Int
    ) throws(DescriptionError) -> JSONNode {
        guard depth < JSONNode.maximumDepth else { return node }
        switch node {
        case .object(let members):
            if let reference = members["$ref"]?.string, position != .schemas, position != .components {
                return try resolve(reference, members, file: file, position: position, location: location)
            }
            let holdsData = position == .schema || Self.holdsData(members)
            var result = JSONNode.Members()
            for (key, value) in members.pairs {
                if holdsData, Self.dataKeys.contains(key) {
                    result[key] = value
                } else {
                    result[key] = try walk(
                        value, file: file, position: Self.position(of: key, in: position, atRoot: depth == 0),
                        location: location + "/" + Self.token(key), depth: depth + 1)
                }
            }
            return .object(result)
        case .array(let elements):
            var result: [JSONNode] = []
            for (index, element) in elements.enumerated() {
                result.append(
                    try walk(
                        element, file: file, position: position, location: "\(location)/\(index)", depth: depth + 1)
                )
            }
            return .array(result)
        default:
            return node
        }
    }

    /// The position of the member `key` of a node at `position`.
    private static func position(of key: String, in position: Position, atRoot: Bool) -> Position {
        switch position {
        case .schema:
            if schemaKeys.contains(key) { return .schema }
            if schemaMapKeys.contains(key) { return .schemas }
            return .other
        case .schemas: return .schema
        case .components: return key == "schemas" ? .schemas : .other
        case .other:
            if key == "schema" { return .schema }
            if atRoot, key == "components" { return .components }
            if atRoot, key == "definitions" { return .schemas }
            return .other
        }
    }

    /// Members whose value is a schema, or a list of schemas.
    private static let schemaKeys: Set<String> = [
        "items", "additionalProperties", "not", "contains", "if", "then", "else", "propertyNames", "additionalItems",
        "unevaluatedItems", "unevaluatedProperties", "allOf", "oneOf", "anyOf", "prefixItems",
    ]
    /// Members whose value is a map of schemas.
    private static let schemaMapKeys: Set<String> = [
        "properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
    ]
    /// Members that hold data (examples, defaults, enumerations) in a schema, a parameter or a media type.
    private static let dataKeys: Set<String> = ["example", "examples", "default", "enum", "const"]

    private static func holdsData(_ members: JSONNode.Members) -> Bool {
        ["type", "schema", "in", "properties", "items"].contains { members[$0] != nil }
    }

    /// The node a `$ref` written in `file` stands for: a local reference of the main file as it is, a schema of
    /// another file as a reference to the schema brought in, anything else of another file in its place.
    private mutating func resolve(
        _ reference: String, _ members: JSONNode.Members, file: URL, position: Position, location: String
    ) throws(DescriptionError) -> JSONNode {
        if Self.isURL(reference) { throw Self.urlRefusal(reference, location) }
        let hash = reference.firstIndex(of: "#") ?? reference.endIndex
        let path = String(reference[..<hash])
        let fragment = hash == reference.endIndex ? "" : String(reference[reference.index(after: hash)...])
        let target =
            path.isEmpty
            ? file
            : URL(fileURLWithPath: path.removingPercentEncoding ?? path, relativeTo: file.deletingLastPathComponent())
                .standardizedFileURL
        if target.path == main.path {
            // The main file's own JSON pointer, written here or in another file.
            guard !path.isEmpty || file.path != main.path else { return .object(members) }
            var local = members
            local["$ref"] = .string("#" + fragment)
            return .object(local)
        }
        let document = try read(target, reference: reference, location: location)
        guard let value = OpenAPIDescription.pointer("#" + fragment, in: document) else {
            throw DescriptionError(
                "$ref \(reference) (at \(location)) points to nothing in \(Self.relativePath(target, from: main))")
        }
        let key = target.path + "#" + fragment
        if inlining.contains(key) {
            throw DescriptionError("$ref \(reference) (at \(location)) is part of a cycle of references")
        }
        if position == .schema, case .object(let inner) = value, inner.keys == ["$ref"],
            let next = inner["$ref"]?.string
        {
            // A schema that is only a reference is the schema it refers to.
            inlining.append(key)
            defer { inlining.removeLast() }
            var local = members
            local["$ref"] = try resolve(next, inner, file: target, position: .schema, location: location)["$ref"]
            return .object(local)
        }
        if position == .schema {
            var local = members
            local["$ref"] = .string(try schemaReference(key, value, file: target, fragment: fragment))
            return .object(local)
        }
        inlining.append(key)
        defer { inlining.removeLast() }
        return try walk(value, file: target, position: position, location: reference, depth: 1)
    }

    /// The local reference of a schema brought in from another file, bringing it in the first time.
    private mutating func schemaReference(
        _ key: String, _ value: JSONNode, file: URL, fragment: String
    ) throws(DescriptionError) -> String {
        let section = swagger ? "#/definitions/" : "#/components/schemas/"
        if let name = schemaKeys[key] { return section + Self.token(name) }
        let last = fragment.split(separator: "/").last.map {
            String($0).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
        let base = last ?? file.deletingPathExtension().lastPathComponent
        var name = base
        var number = 2
        while takenKeys.contains(name) {
            name = base + String(number)
            number += 1
        }
        takenKeys.insert(name)
        schemaKeys[key] = name
        // Named before its members are walked: a reference back to it from inside is a reference to the name.
        let index = schemas.count
        schemas.append((name, value))
        schemas[index].schema = try walk(value, file: file, position: .schema, location: key, depth: 1)
        return section + Self.token(name)
    }

    /// The description with the schemas brought in added to its own.
    private func adding(to root: JSONNode) -> JSONNode {
        guard !schemas.isEmpty, case .object(var members) = root else { return root }
        if swagger {
            var definitions = members["definitions"]?.members ?? JSONNode.Members()
            for (name, schema) in schemas { definitions[name] = schema }
            members["definitions"] = .object(definitions)
        } else {
            var components = members["components"]?.members ?? JSONNode.Members()
            var section = components["schemas"]?.members ?? JSONNode.Members()
            for (name, schema) in schemas { section[name] = schema }
            components["schemas"] = .object(section)
            members["components"] = .object(components)
        }
        return .object(members)
    }

    /// A file's document, read once.
    private mutating func read(_ url: URL, reference: String, location: String) throws(DescriptionError) -> JSONNode {
        if let file = files.first(where: { $0.path == url.path }) { return file.root }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw DescriptionError(
                "$ref \(reference) (at \(location)): cannot read \(Self.relativePath(url, from: main))")
        }
        let root: JSONNode
        do {
            root = try JSONNode.parse(data)
        } catch {
            throw DescriptionError("$ref \(reference) (at \(location)): \(error.message)")
        }
        files.append((url.path, data, root))
        return root
    }

    // MARK: - Helpers

    /// Whether a reference is a URL (it starts with a scheme such as `https:`) rather than a file path.
    static func isURL(_ reference: String) -> Bool {
        reference.wholeMatch(of: /[A-Za-z][A-Za-z0-9+.\-]*:.*/) != nil
    }

    private static func urlRefusal(_ reference: String, _ location: String) -> DescriptionError {
        DescriptionError(
            "$ref \(reference) (at \(location)) is a URL: references resolve to files beside the description only")
    }

    /// `url`'s path from the folder of `main` when it is inside it, else its whole path.
    private static func relativePath(_ url: URL, from main: URL) -> String {
        let folder = main.deletingLastPathComponent().path + "/"
        return url.path.hasPrefix(folder) ? String(url.path.dropFirst(folder.count)) : url.path
    }

    /// A key as a JSON pointer token.
    private static func token(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// The first `$ref` that is not a local one (`#/…`), in document order, and where it is written.
    private static func firstExternal(in node: JSONNode, at location: String, depth: Int) -> (String, String)? {
        guard depth < JSONNode.maximumDepth else { return nil }
        switch node {
        case .object(let members):
            if let reference = members["$ref"]?.string, !reference.hasPrefix("#") { return (reference, location) }
            let holdsData = holdsData(members)
            for (key, value) in members.pairs where !holdsData || !dataKeys.contains(key) {
                if let found = firstExternal(in: value, at: location + "/" + token(key), depth: depth + 1) {
                    return found
                }
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = firstExternal(in: element, at: "\(location)/\(index)", depth: depth + 1) {
                    return found
                }
            }
        default: break
        }
        return nil
    }
}
