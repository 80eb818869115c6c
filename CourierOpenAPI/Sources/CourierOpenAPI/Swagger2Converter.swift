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
        let schemes = (swagger["schemes"]?.array ?? []).compactMap(\.string)
        let basePath = swagger["basePath"]?.string ?? ""
        if let host = swagger["host"]?.string {
            let servers = (schemes.isEmpty ? ["https"] : schemes).map { scheme in
                JSONNode.object(members(["url": .string("\(scheme)://\(host)\(basePath)")]))
            }
            document["servers"] = .array(servers)
        } else if !basePath.isEmpty {
            document["servers"] = .array([.object(members(["url": .string(basePath)]))])
        }
        if let tags = swagger["tags"] { document["tags"] = tags }
        if let security = swagger["security"] { document["security"] = security }
        let consumes = strings(swagger["consumes"]) ?? ["application/json"]
        let produces = strings(swagger["produces"]) ?? ["application/json"]

        var paths = JSONNode.Members()
        for (path, item) in swagger["paths"]?.pairs ?? [] {
            var newItem = JSONNode.Members()
            let shared = item["parameters"]?.array ?? []
            for (key, operation) in item.pairs {
                guard Operation.methods.contains(key), case .object(var newOperation) = operation else { continue }
                let operationConsumes = strings(operation["consumes"]) ?? consumes
                let operationProduces = strings(operation["produces"]) ?? produces
                var parameters: [JSONNode] = []
                var formProperties = JSONNode.Members()
                var formRequired: [JSONNode] = []
                var hasFile = false
                let own = operation["parameters"]?.array ?? []
                let ownKeys = Set(own.map { identity(resolve($0, in: swagger)) })
                for raw in shared.filter({ !ownKeys.contains(identity(resolve($0, in: swagger))) }) + own {
                    let parameter = resolve(raw, in: swagger)
                    switch parameter["in"]?.string {
                    case "body":
                        var body = JSONNode.Members()
                        var content = JSONNode.Members()
                        for type in operationConsumes {
                            content[type] = .object(
                                members(["schema": rewrite(parameter["schema"] ?? .object(.init()))]))
                        }
                        body["content"] = .object(content)
                        if let required = parameter["required"] { body["required"] = required }
                        if let description = parameter["description"] { body["description"] = description }
                        newOperation["requestBody"] = .object(body)
                    case "formData":
                        guard let name = parameter["name"]?.string else { continue }
                        if parameter["type"]?.string == "file" { hasFile = true }
                        formProperties[name] = schema(of: parameter)
                        if parameter["required"]?.bool == true { formRequired.append(.string(name)) }
                    default:
                        parameters.append(convertParameter(parameter))
                    }
                }
                if !formProperties.keys.isEmpty {
                    let type =
                        hasFile || operationConsumes.contains("multipart/form-data")
                        ? "multipart/form-data" : "application/x-www-form-urlencoded"
                    var schema = members(["type": .string("object"), "properties": .object(formProperties)])
                    if !formRequired.isEmpty { schema["required"] = .array(formRequired) }
                    var body = members([
                        "content": .object(members([type: .object(members(["schema": .object(schema)]))]))
                    ])
                    if !formRequired.isEmpty { body["required"] = .bool(true) }
                    newOperation["requestBody"] = .object(body)
                }
                newOperation["parameters"] = parameters.isEmpty ? nil : .array(parameters)
                newOperation["consumes"] = nil
                newOperation["produces"] = nil
                newOperation["schemes"] = nil
                var responses = JSONNode.Members()
                for (status, raw) in operation["responses"]?.pairs ?? [] {
                    let response = resolve(raw, in: swagger)
                    var newResponse = members(["description": response["description"] ?? .string("")])
                    if let schema = response["schema"] {
                        var content = JSONNode.Members()
                        for type in operationProduces {
                            content[type] = .object(members(["schema": rewrite(schema)]))
                        }
                        newResponse["content"] = .object(content)
                    }
                    responses[status] = .object(newResponse)
                }
                newOperation["responses"] = .object(responses)
                newItem[key] = .object(newOperation)
            }
            paths[path] = .object(newItem)
        }
        document["paths"] = .object(paths)

        var components = JSONNode.Members()
        if let definitions = swagger["definitions"] { components["schemas"] = rewrite(definitions) }
        if let definitions = swagger["securityDefinitions"] {
            var schemes = JSONNode.Members()
            for (name, scheme) in definitions.pairs { schemes[name] = securityScheme(scheme) }
            components["securitySchemes"] = .object(schemes)
        }
        if !components.keys.isEmpty { document["components"] = .object(components) }
        return .object(document)
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
