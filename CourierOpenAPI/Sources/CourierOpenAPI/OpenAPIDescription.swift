import Foundation
import OpenAPIKit
import OpenAPIKit30

/// An OpenAPI description, read from JSON or YAML: OpenAPI 3.0 or 3.1, or Swagger 2.0 (converted to 3.0 first).
///
/// OpenAPIKit parses and validates 3.x documents (a document it rejects throws a ``DescriptionError``
/// with its message); the generator, the checker and the contract plugin then read the document's tree,
/// with `$ref`s resolved (those to files beside the description brought into it).
///
/// ```swift
/// let description = try OpenAPIDescription(contentsOf: URL(fileURLWithPath: "openapi.yaml"))
/// ```
public struct OpenAPIDescription: Sendable {
    /// The description's `info.title`.
    public let title: String
    /// The description's `info.version`.
    public let version: String
    /// The `openapi` (or `swagger`) version the document declared.
    public let specificationVersion: String
    /// A digest of the description's bytes and those of the files its `$ref`s name (64-bit FNV-1a, hex): it changes
    /// whenever the description does.
    public let digest: String
    /// The document as OpenAPI 3.x (Swagger 2.0 converted).
    let root: JSONNode
    /// The operations in document order (paths, then methods in the order the document lists them).
    let operations: [Operation]

    /// The document as OpenAPI 3.x JSON (Swagger 2.0 converted, YAML written as JSON), keys in document order.
    public var json: String { root.jsonText }

    /// Reads a description from a file, and the files its `$ref`s name relative to it (`./schemas/pet.yaml#/Pet`),
    /// JSON or YAML. A `$ref` to a URL is refused.
    public init(contentsOf url: URL) throws(DescriptionError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw DescriptionError("cannot read \(url.path): \(error.localizedDescription)")
        }
        let (root, files) = try ExternalReferences.resolve(try JSONNode.parse(data), in: url)
        try self.init(parsed: root, digest: files.isEmpty ? Self.fnv1a64(data) : Self.fnv1a64(files.reduce(data, +)))
    }

    /// Reads a description from JSON or YAML bytes. A `$ref` to another file or to a URL is refused: read a
    /// description that has them with ``init(contentsOf:)``.
    public init(data: Data) throws(DescriptionError) {
        let root = try JSONNode.parse(data)
        try ExternalReferences.refuse(in: root)
        try self.init(parsed: root, digest: Self.fnv1a64(data))
    }

    private init(parsed: JSONNode, digest: String) throws(DescriptionError) {
        var root = parsed
        if let (reference, location) = Self.firstBrokenReference(in: root, at: "#", depth: 0) {
            throw DescriptionError("$ref \(reference) (at \(location)) points to nothing in the description")
        }
        if let swagger = root["swagger"] {
            let version = swagger.string ?? swagger.jsonText
            guard version.hasPrefix("2.") else { throw DescriptionError("unsupported Swagger version \(version)") }
            specificationVersion = version
            root = try Swagger2Converter.convert(root)
        } else if let openapi = root["openapi"]?.string {
            specificationVersion = openapi
        } else {
            throw DescriptionError("not an OpenAPI document: it has neither an `openapi` nor a `swagger` field")
        }
        try Self.validate(root, specificationVersion: specificationVersion)
        self.root = root
        self.title = root["info"]?["title"]?.string ?? "API"
        self.version = root["info"]?["version"]?.string ?? root["info"]?["version"]?.jsonText ?? ""
        self.digest = digest
        self.operations = try Operation.all(in: root)
    }

    /// Decodes the document with OpenAPIKit, which rejects what is not a valid OpenAPI 3.0 or 3.1 document.
    ///
    /// OpenAPIKit reads integer bounds (`minimum`, `maximum`, …) as `Int`: a bound beyond 64 bits (Kinto's
    /// `maximum: 9223372036854775808`) is valid JSON Schema, so OpenAPIKit sees it clamped; the description keeps
    /// it as written. A rejected document is named by the version it declared (`Swagger 2.0` for a converted one),
    /// and the error by the first part, in document order, that OpenAPIKit rejects on its own (its own path to the
    /// error changes from run to run).
    private static func validate(_ root: JSONNode, specificationVersion: String) throws(DescriptionError) {
        let version = root["openapi"]?.string ?? ""
        let decode: (JSONNode) throws -> Void
        if version.hasPrefix("3.0") {
            decode = { _ = try JSONDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: Data($0.jsonText.utf8)) }
        } else if version.hasPrefix("3.1") || version.hasPrefix("3.2") {
            decode = { _ = try JSONDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: Data($0.jsonText.utf8)) }
        } else {
            throw DescriptionError("unsupported OpenAPI version \(version)")
        }
        let clamped = clampingIntegerBounds(root, depth: 0)
        do {
            try decode(clamped)
        } catch {
            let name = specificationVersion == version ? "OpenAPI \(version)" : "Swagger \(specificationVersion)"
            var location = ""
            var message = OpenAPIKit.OpenAPI.Error(from: error).localizedDescription
            for (part, document) in parts(of: clamped) {
                do { try decode(document) } catch {
                    location = " at \(part)"
                    message = OpenAPIKit.OpenAPI.Error(from: error).localizedDescription
                    break
                }
            }
            // One line: OpenAPIKit's message may hold line breaks.
            let text = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }.joined(separator: " ")
            throw DescriptionError("invalid \(name) document\(location): \(text)")
        }
    }

    /// The document cut into pieces OpenAPIKit can decode alone, in document order, each named by where it is
    /// (`paths./users.get`, `components.schemas.Pet`): the document without paths and components, then each
    /// component, then each operation of each path (with the path item's other members).
    private static func parts(of root: JSONNode) -> [(String, JSONNode)] {
        guard case .object(var base) = root else { return [] }
        base["paths"] = .object(.init())
        base["components"] = nil
        var parts: [(String, JSONNode)] = [("the document's top level", .object(base))]
        for (section, entries) in root["components"]?.pairs ?? [] {
            for (key, value) in entries.pairs {
                var piece = base
                var one = JSONNode.Members()
                one[key] = value
                var components = JSONNode.Members()
                components[section] = .object(one)
                piece["components"] = .object(components)
                parts.append(("components.\(section).\(key)", .object(piece)))
            }
        }
        for (path, item) in root["paths"]?.pairs ?? [] {
            guard case .object(let members) = item else { continue }
            var shared = members
            for key in Operation.methods { shared[key] = nil }
            for (key, value) in members.pairs {
                guard Operation.methods.contains(key) else { continue }
                var single = shared
                single[key] = value
                var paths = JSONNode.Members()
                paths[path] = .object(single)
                var piece = base
                piece["paths"] = .object(paths)
                parts.append(("paths.\(path).\(key)", .object(piece)))
            }
            var paths = JSONNode.Members()
            paths[path] = .object(shared)
            var piece = base
            piece["paths"] = .object(paths)
            parts.append(("paths.\(path)", .object(piece)))
        }
        return parts
    }

    /// `root` with the bounds of integer schemas that OpenAPIKit cannot read as `Int` (beyond 64 bits, or with a
    /// fraction) clamped and rounded into range.
    static func clampingIntegerBounds(_ node: JSONNode, depth: Int) -> JSONNode {
        guard depth < JSONNode.maximumDepth else { return node }
        switch node {
        case .array(let elements):
            return .array(elements.map { clampingIntegerBounds($0, depth: depth + 1) })
        case .object(var members):
            let isInteger = ModelGenerator.type(of: node) == "integer"
            for (key, value) in members.pairs {
                if isInteger, case .number(let bound) = value,
                    ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].contains(key)
                {
                    let rounded = key.hasSuffix("inimum") ? bound.rounded(.up) : bound.rounded(.down)
                    members[key] = .integer(
                        rounded >= 0x1p63 ? .max : rounded < -0x1p63 ? .min : Int64(exactly: rounded) ?? 0)
                } else {
                    members[key] = clampingIntegerBounds(value, depth: depth + 1)
                }
            }
            return .object(members)
        default:
            return node
        }
    }

    /// The first local `$ref` (`#/…`), in document order, that points to nothing, and the JSON pointer of where it
    /// is written.
    static func firstBrokenReference(
        in node: JSONNode, at location: String, depth: Int, root: JSONNode? = nil
    ) -> (String, String)? {
        let root = root ?? node
        guard depth < JSONNode.maximumDepth else { return nil }
        switch node {
        case .object(let members):
            if let reference = members["$ref"]?.string, reference.hasPrefix("#"), pointer(reference, in: root) == nil {
                return (reference, location)
            }
            // The examples, defaults and enumerations of a schema, a parameter or a media type are data: a `$ref`
            // in them is not a reference.
            let holdsData = ["type", "schema", "in", "properties", "items"].contains { members[$0] != nil }
            for (key, value) in members.pairs
            where !holdsData || !["example", "examples", "default", "enum", "const"].contains(key) {
                let token = key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
                if let broken = firstBrokenReference(
                    in: value, at: location + "/" + token, depth: depth + 1, root: root)
                {
                    return broken
                }
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let broken = firstBrokenReference(
                    in: element, at: "\(location)/\(index)", depth: depth + 1, root: root)
                {
                    return broken
                }
            }
        default: break
        }
        return nil
    }

    static func fnv1a64(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let text = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// Follows `$ref`s inside the document (`#/components/…`, JSON pointers) until a value that is not a
    /// reference; a reference that leads nowhere or loops is returned as it is.
    func resolve(_ node: JSONNode) -> JSONNode { Self.resolve(node, in: root) }

    static func resolve(_ node: JSONNode, in root: JSONNode) -> JSONNode {
        var current = node
        for _ in 0..<32 {
            guard let reference = current["$ref"]?.string, let target = pointer(reference, in: root) else {
                return current
            }
            current = target
        }
        return current
    }

    /// The value a local JSON pointer (`#/components/schemas/Pet`) points to.
    static func pointer(_ reference: String, in root: JSONNode) -> JSONNode? {
        guard reference.hasPrefix("#") else { return nil }
        var current = root
        for token in reference.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            let key = (String(token).removingPercentEncoding ?? String(token))
                .replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if case .array(let elements) = current, let index = Int(key), elements.indices.contains(index) {
                current = elements[index]
            } else if let next = current[key] {
                current = next
            } else {
                return nil
            }
        }
        return current
    }
}
