import Foundation
import OpenAPIKit
import OpenAPIKit30

/// An OpenAPI description, read from JSON or YAML: OpenAPI 3.0 or 3.1, or Swagger 2.0 (converted to 3.0 first).
///
/// OpenAPIKit parses and validates 3.x documents (a document it rejects throws a ``DescriptionError``
/// with its message); the generator, the checker and the contract plugin then read the document's tree,
/// with `$ref`s inside the document resolved.
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
    /// A digest of the description's bytes (64-bit FNV-1a, hex): it changes whenever the description does.
    public let digest: String
    /// The document as OpenAPI 3.x (Swagger 2.0 converted).
    let root: JSONNode
    /// The operations in document order (paths, then methods in the order the document lists them).
    let operations: [Operation]

    /// The document as OpenAPI 3.x JSON (Swagger 2.0 converted, YAML written as JSON), keys in document order.
    public var json: String { root.jsonText }

    /// Reads a description from a file.
    public init(contentsOf url: URL) throws(DescriptionError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw DescriptionError("cannot read \(url.path): \(error.localizedDescription)")
        }
        try self.init(data: data)
    }

    /// Reads a description from JSON or YAML bytes.
    public init(data: Data) throws(DescriptionError) {
        var root = try JSONNode.parse(data)
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
        try Self.validate(root)
        self.root = root
        self.title = root["info"]?["title"]?.string ?? "API"
        self.version = root["info"]?["version"]?.string ?? root["info"]?["version"]?.jsonText ?? ""
        self.digest = Self.fnv1a64(data)
        self.operations = try Operation.all(in: root)
    }

    /// Decodes the document with OpenAPIKit, which rejects what is not a valid OpenAPI 3.0 or 3.1 document.
    private static func validate(_ root: JSONNode) throws(DescriptionError) {
        let json = Data(root.jsonText.utf8)
        let version = root["openapi"]?.string ?? ""
        do {
            if version.hasPrefix("3.0") {
                _ = try JSONDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: json)
            } else if version.hasPrefix("3.1") || version.hasPrefix("3.2") {
                _ = try JSONDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: json)
            } else {
                throw DescriptionError("unsupported OpenAPI version \(version)")
            }
        } catch let error as DescriptionError {
            throw error
        } catch {
            throw DescriptionError(
                "invalid OpenAPI \(version) document: \(OpenAPIKit.OpenAPI.Error(from: error).localizedDescription)")
        }
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
