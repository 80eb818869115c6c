/// One operation of a description, with its path-level parameters merged and references resolved (schemas
/// keep their `$ref`s: they name models).
struct Operation: Sendable {
    /// Where a parameter goes.
    enum Location: String, Sendable { case path, query, header, cookie }

    struct Parameter: Sendable {
        var name: String
        var location: Location
        var required: Bool
        var schema: JSONNode
        var description: String?
        /// `form`, `simple`, `label`, `matrix`, `deepObject`, … (the location's default when not given).
        var style: String
        /// `false` for `explode: false` (comma-separated arrays); `true` otherwise.
        var explode: Bool
        var deprecated: Bool
        /// The component's key for a parameter declared once under `components/parameters` (`per-page` for
        /// `$ref: '#/components/parameters/per-page'`): operations that share it share its type.
        var component: String? = nil
    }

    struct Body: Sendable {
        var contentType: String
        var schema: JSONNode
        var required: Bool
        /// A multipart body's part content types by property name (the media type's `encoding`).
        var partContentTypes: [String: String] = [:]
    }

    struct Response: Sendable {
        /// `200`, `2XX`, `default`, …
        var status: String
        var contentType: String?
        var schema: JSONNode?
    }

    /// The `operationId`, or `METHOD path` when the operation has none.
    var operationId: String
    var hasOperationId: Bool
    /// Upper-case method: `GET`, `POST`, …
    var method: String
    var path: String
    var tags: [String]
    var summary: String?
    var description: String?
    var deprecated: Bool
    var parameters: [Parameter]
    var body: Body?
    var responses: [Response]
    /// The names of the security schemes any of whose requirements apply (the document's when the
    /// operation has none); empty for none.
    var securitySchemes: [String]

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace", "query"]

    /// The success response: the first `2xx` (or `2XX`) the operation declares, else `default`.
    var success: Response? {
        responses.first { $0.status.hasPrefix("2") } ?? responses.first { $0.status == "default" }
    }

    var label: String { hasOperationId ? "\(operationId) (\(method) \(path))" : "\(method) \(path)" }

    static func all(in root: JSONNode) throws(DescriptionError) -> [Operation] {
        var operations: [Operation] = []
        let globalSecurity = securityNames(root["security"])
        for (path, rawItem) in root["paths"]?.pairs ?? [] {
            let item = OpenAPIDescription.resolve(rawItem, in: root)
            let shared = (item["parameters"]?.array ?? []).compactMap { parameter($0, root: root) }
            for (key, rawOperation) in item.pairs where methods.contains(key) {
                let operation = OpenAPIDescription.resolve(rawOperation, in: root)
                var parameters = shared
                for own in (operation["parameters"]?.array ?? []).compactMap({ parameter($0, root: root) }) {
                    parameters.removeAll { $0.name == own.name && $0.location == own.location }
                    parameters.append(own)
                }
                let id = operation["operationId"]?.string
                operations.append(
                    Operation(
                        operationId: id ?? "\(key.uppercased()) \(path)", hasOperationId: id != nil,
                        method: key.uppercased(), path: path,
                        tags: (operation["tags"]?.array ?? []).compactMap(\.string),
                        summary: operation["summary"]?.string, description: operation["description"]?.string,
                        deprecated: operation["deprecated"]?.bool ?? false, parameters: parameters,
                        body: body(operation["requestBody"], root: root),
                        responses: responses(operation["responses"], root: root),
                        securitySchemes: operation["security"].map { securityNames($0) } ?? globalSecurity))
            }
        }
        return operations
    }

    private static func securityNames(_ node: JSONNode?) -> [String] {
        var names: [String] = []
        for requirement in node?.array ?? [] {
            for (name, _) in requirement.pairs where !names.contains(name) { names.append(name) }
        }
        return names
    }

    private static func parameter(_ raw: JSONNode, root: JSONNode) -> Parameter? {
        let node = OpenAPIDescription.resolve(raw, in: root)
        guard let name = node["name"]?.string, let location = node["in"]?.string.flatMap(Location.init(rawValue:))
        else { return nil }
        let schema = node["schema"] ?? node["content"]?.pairs.first?.value["schema"] ?? .object(.init())
        let style = node["style"]?.string ?? (location == .query || location == .cookie ? "form" : "simple")
        return Parameter(
            name: name, location: location, required: location == .path || (node["required"]?.bool ?? false),
            schema: schema, description: node["description"]?.string, style: style,
            explode: node["explode"]?.bool ?? (style == "form"), deprecated: node["deprecated"]?.bool ?? false,
            component: raw["$ref"]?.string.flatMap { reference in
                let prefix = "#/components/parameters/"
                guard reference.hasPrefix(prefix) else { return nil }
                return String(reference.dropFirst(prefix.count))
            })
    }

    /// The request body, preferring JSON, then forms, multipart, then anything else.
    private static func body(_ raw: JSONNode?, root: JSONNode) -> Body? {
        guard let raw else { return nil }
        let node = OpenAPIDescription.resolve(raw, in: root)
        guard let (contentType, media) = preferredContent(node["content"]) else { return nil }
        var partContentTypes: [String: String] = [:]
        for (name, encoding) in media["encoding"]?.pairs ?? [] {
            if let type = encoding["contentType"]?.string { partContentTypes[name] = type }
        }
        return Body(
            contentType: contentType, schema: media["schema"] ?? .object(.init()),
            required: node["required"]?.bool ?? false, partContentTypes: partContentTypes)
    }

    private static func responses(_ raw: JSONNode?, root: JSONNode) -> [Response] {
        (raw?.pairs ?? []).map { status, value in
            let node = OpenAPIDescription.resolve(value, in: root)
            let content = preferredContent(node["content"])
            return Response(
                status: status.uppercased() == status ? status : status.lowercased(), contentType: content?.0,
                schema: content?.1["schema"])
        }
    }

    static func isJSON(_ contentType: String) -> Bool {
        let type = contentType.lowercased()
        return type.hasPrefix("application/json") || (type.hasPrefix("application/") && type.contains("+json"))
            || type == "*/*"
    }

    private static func preferredContent(_ content: JSONNode?) -> (String, JSONNode)? {
        let pairs = content?.pairs ?? []
        let ranked: [(String) -> Bool] = [
            isJSON, { $0.hasPrefix("application/x-www-form-urlencoded") }, { $0.hasPrefix("multipart/form-data") },
            { _ in true },
        ]
        for matches in ranked {
            if let pair = pairs.first(where: { matches($0.key.lowercased()) }) { return (pair.key, pair.value) }
        }
        return nil
    }
}
