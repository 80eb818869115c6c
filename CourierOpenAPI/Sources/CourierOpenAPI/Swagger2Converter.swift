/// Turns a Swagger 2.0 document into the OpenAPI 3.0 document that says the same, so that the rest of the
/// package (and OpenAPIKit, which reads 3.x only) sees one shape.
///
/// - `host` + `basePath` + `schemes` become `servers`; `definitions` `components/schemas`;
///   `securityDefinitions` `components/securitySchemes` (`basic` → HTTP basic);
/// - `body` parameters become `requestBody` and `formData` parameters a form (multipart when one is a file)
///   request body, with the operation's (or document's) `consumes`; responses' `schema` goes under `content`
///   with `produces`;
/// - other parameters' `type`, `format`, `items`, `enum`, … move into `schema`; `collectionFormat: csv` is
///   `explode: false`; `type: file` is `string`/`binary`; `x-nullable` is `nullable`;
/// - `$ref`s to `#/definitions/…` are rewritten; parameter and response references are inlined.
enum Swagger2Converter {
    static func convert(_ swagger: JSONNode) throws(DescriptionError) -> JSONNode {
        var document = JSONNode.Members()
        document["openapi"] = .string("3.0.3")
        document["info"] = swagger["info"] ?? .object(info())
        document["servers"] = servers(of: swagger)
        if let tags = swagger["tags"] { document["tags"] = tags }
        if let security = swagger["security"] { document["security"] = security }
        let media = MediaTypes(
            consumes: strings(swagger["consumes"]) ?? ["application/json"],
            produces: strings(swagger["produces"]) ?? ["application/json"])
        var paths = JSONNode.Members()
        for (path, item) in swagger["paths"]?.pairs ?? [] {
            paths[path] = pathItem(item, media: media, in: swagger)
        }
        document["paths"] = .object(paths)
        let components = components(of: swagger)
        if !components.keys.isEmpty { document["components"] = .object(components) }
        return .object(document)
    }

    /// The media types a document or an operation reads (`consumes`) and writes (`produces`).
    private struct MediaTypes {
        var consumes: [String]
        var produces: [String]

        /// An operation's own media types, else these.
        func overridden(by operation: JSONNode) -> MediaTypes {
            MediaTypes(
                consumes: Swagger2Converter.strings(operation["consumes"]) ?? consumes,
                produces: Swagger2Converter.strings(operation["produces"]) ?? produces)
        }
    }

    /// `servers` from `host`, `basePath` and `schemes` (`https` when none is listed); `nil` without either.
    private static func servers(of swagger: JSONNode) -> JSONNode? {
        let schemes = (swagger["schemes"]?.array ?? []).compactMap(\.string)
        let basePath = swagger["basePath"]?.string ?? ""
        if let host = swagger["host"]?.string {
            let servers = (schemes.isEmpty ? ["https"] : schemes).map { scheme in
                JSONNode.object(members(["url": .string("\(scheme)://\(host)\(basePath)")]))
            }
            return .array(servers)
        } else if !basePath.isEmpty {
            return .array([.object(members(["url": .string(basePath)]))])
        }
        return nil
    }

    /// A path item with each of its operations converted; its other members are left out.
    private static func pathItem(_ item: JSONNode, media: MediaTypes, in swagger: JSONNode) -> JSONNode {
        var newItem = JSONNode.Members()
        let shared = item["parameters"]?.array ?? []
        for (key, operation) in item.pairs {
            guard Operation.methods.contains(key), case .object(var newOperation) = operation else { continue }
            let media = media.overridden(by: operation)
            let parameters = convertParameters(
                shared: shared, own: operation["parameters"]?.array ?? [], consumes: media.consumes, in: swagger)
            if let body = parameters.body { newOperation["requestBody"] = body }
            newOperation["parameters"] = parameters.others.isEmpty ? nil : .array(parameters.others)
            newOperation["consumes"] = nil
            newOperation["produces"] = nil
            newOperation["schemes"] = nil
            newOperation["responses"] = responses(operation["responses"], produces: media.produces, in: swagger)
            newItem[key] = .object(newOperation)
        }
        return .object(newItem)
    }

    /// An operation's parameters (the path item's shared ones first, unless the operation has its own of the same
    /// name and location): the request body they make (a `body` parameter, or the `formData` ones as a form) and
    /// the others, converted.
    private static func convertParameters(
        shared: [JSONNode], own: [JSONNode], consumes: [String], in swagger: JSONNode
    ) -> (body: JSONNode?, others: [JSONNode]) {
        var body: JSONNode?
        var others: [JSONNode] = []
        var form = FormFields()
        let ownKeys = Set(own.map { identity(resolve($0, in: swagger)) })
        for raw in shared.filter({ !ownKeys.contains(identity(resolve($0, in: swagger))) }) + own {
            let parameter = resolve(raw, in: swagger)
            switch parameter["in"]?.string {
            case "body": body = requestBody(parameter, consumes: consumes)
            case "formData": form.add(parameter)
            default: others.append(convertParameter(parameter))
            }
        }
        return (form.requestBody(consumes: consumes) ?? body, others)
    }

    /// A `body` parameter as a request body, its schema under each media type the operation consumes.
    private static func requestBody(_ parameter: JSONNode, consumes: [String]) -> JSONNode {
        var body = JSONNode.Members()
        var content = JSONNode.Members()
        for type in consumes {
            content[type] = .object(members(["schema": rewrite(parameter["schema"] ?? .object(.init()))]))
        }
        body["content"] = .object(content)
        if let required = parameter["required"] { body["required"] = required }
        if let description = parameter["description"] { body["description"] = description }
        return .object(body)
    }

    /// An operation's `formData` parameters, gathered into one object schema.
    private struct FormFields {
        var properties = JSONNode.Members()
        var required: [JSONNode] = []
        var hasFile = false

        mutating func add(_ parameter: JSONNode) {
            guard let name = parameter["name"]?.string else { return }
            if parameter["type"]?.string == "file" { hasFile = true }
            properties[name] = Swagger2Converter.schema(of: parameter)
            if parameter["required"]?.bool == true { required.append(.string(name)) }
        }

        /// The fields as a form request body (multipart when one is a file or the operation consumes
        /// `multipart/form-data`); `nil` without fields.
        func requestBody(consumes: [String]) -> JSONNode? {
            guard !properties.keys.isEmpty else { return nil }
            let type =
                hasFile || consumes.contains("multipart/form-data")
                ? "multipart/form-data" : "application/x-www-form-urlencoded"
            var schema = Swagger2Converter.members(["type": .string("object"), "properties": .object(properties)])
            if !required.isEmpty { schema["required"] = .array(required) }
            let media = Swagger2Converter.members(["schema": .object(schema)])
            var body = Swagger2Converter.members(["content": .object(Swagger2Converter.members([type: .object(media)]))]
            )
            if !required.isEmpty { body["required"] = .bool(true) }
            return .object(body)
        }
    }

    /// An operation's responses, references inlined, each schema under each media type the operation produces.
    private static func responses(_ raw: JSONNode?, produces: [String], in swagger: JSONNode) -> JSONNode {
        var responses = JSONNode.Members()
        for (status, raw) in raw?.pairs ?? [] {
            let response = resolve(raw, in: swagger)
            var newResponse = members(["description": response["description"] ?? .string("")])
            if let schema = response["schema"] {
                var content = JSONNode.Members()
                for type in produces {
                    content[type] = .object(members(["schema": rewrite(schema)]))
                }
                newResponse["content"] = .object(content)
            }
            responses[status] = .object(newResponse)
        }
        return .object(responses)
    }

    /// `definitions` as `components/schemas`, `securityDefinitions` as `components/securitySchemes`.
    private static func components(of swagger: JSONNode) -> JSONNode.Members {
        var components = JSONNode.Members()
        if let definitions = swagger["definitions"] { components["schemas"] = rewrite(definitions) }
        if let definitions = swagger["securityDefinitions"] {
            var schemes = JSONNode.Members()
            for (name, scheme) in definitions.pairs { schemes[name] = securityScheme(scheme) }
            components["securitySchemes"] = .object(schemes)
        }
        return components
    }

    private static func info() -> JSONNode.Members { members(["title": .string("API"), "version": .string("")]) }

    private static func members(_ pairs: KeyValuePairs<String, JSONNode>) -> JSONNode.Members {
        var members = JSONNode.Members()
        for (key, value) in pairs { members[key] = value }
        return members
    }

    private static func strings(_ node: JSONNode?) -> [String]? {
        guard let array = node?.array else { return nil }
        let strings = array.compactMap(\.string)
        return strings.isEmpty ? nil : strings
    }

    private static func identity(_ parameter: JSONNode) -> String {
        "\(parameter["in"]?.string ?? "") \(parameter["name"]?.string ?? "")"
    }

    /// A parameter or response reference (`#/parameters/…`, `#/responses/…`) inlined.
    private static func resolve(_ node: JSONNode, in root: JSONNode) -> JSONNode {
        OpenAPIDescription.resolve(node, in: root)
    }

    private static let schemaKeys = [
        "type", "format", "items", "enum", "default", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "multipleOf",
    ]

    /// The schema of a non-body parameter, from its own `type`, `format`, `items`, ….
    private static func schema(of parameter: JSONNode) -> JSONNode {
        var schema = JSONNode.Members()
        for key in schemaKeys { schema[key] = parameter[key] }
        if parameter["type"]?.string == "file" {
            schema["type"] = .string("string")
            schema["format"] = .string("binary")
        }
        if let description = parameter["description"] { schema["description"] = description }
        return rewrite(.object(schema))
    }

    private static func convertParameter(_ parameter: JSONNode) -> JSONNode {
        var converted = JSONNode.Members()
        for key in ["name", "in", "description", "required", "deprecated"] { converted[key] = parameter[key] }
        converted["schema"] = schema(of: parameter)
        switch parameter["collectionFormat"]?.string {
        case "multi": converted["explode"] = .bool(true)
        default:
            if parameter["type"]?.string == "array" { converted["explode"] = .bool(false) }
        }
        return .object(converted)
    }

    private static func securityScheme(_ scheme: JSONNode) -> JSONNode {
        switch scheme["type"]?.string {
        case "basic":
            return .object(members(["type": .string("http"), "scheme": .string("basic")]))
        case "oauth2":
            var flow = JSONNode.Members()
            flow["authorizationUrl"] = scheme["authorizationUrl"]
            flow["tokenUrl"] = scheme["tokenUrl"]
            flow["scopes"] = scheme["scopes"] ?? .object(.init())
            let flowName =
                switch scheme["flow"]?.string {
                case "password": "password"
                case "application": "clientCredentials"
                case "accessCode": "authorizationCode"
                default: "implicit"
                }
            return .object(members(["type": .string("oauth2"), "flows": .object(members([flowName: .object(flow)]))]))
        default:
            return scheme
        }
    }

    /// Rewrites `#/definitions/` references, `type: file` and `x-nullable` throughout a schema.
    private static func rewrite(_ node: JSONNode, depth: Int = 0) -> JSONNode {
        guard depth < JSONNode.maximumDepth else { return node }
        switch node {
        case .array(let elements):
            return .array(elements.map { rewrite($0, depth: depth + 1) })
        case .object(let object):
            var result = JSONNode.Members()
            for (key, value) in object.pairs {
                switch (key, value) {
                case ("$ref", .string(let reference)) where reference.hasPrefix("#/definitions/"):
                    result[key] = .string("#/components/schemas/" + reference.dropFirst("#/definitions/".count))
                case ("x-nullable", _):
                    result["nullable"] = value
                case ("type", .string("file")):
                    result["type"] = .string("string")
                    result["format"] = .string("binary")
                default:
                    result[key] = rewrite(value, depth: depth + 1)
                }
            }
            return .object(result)
        default:
            return node
        }
    }
}
