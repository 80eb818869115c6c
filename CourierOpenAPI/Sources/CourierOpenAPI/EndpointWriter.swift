/// Writes one book: the `@MainActor enum` with an endpoint per operation in Courier's declaration style, and an
/// extension with a typed call per endpoint that returns the success response's model.
struct EndpointWriter {
    let book: String
    private var members = NameScope()
    private var endpoints: [String] = []
    private var calls: [String] = []
    private(set) var parameterStructs: [String] = []

    init(book: String) { self.book = book }

    /// A value the caller passes: a path, query, header or cookie parameter, or the request body.
    private struct Slot {
        var label: String
        var type: String
        var optional: Bool
        var parameter: Operation.Parameter?
        var access = ""
        var declaredType: String { optional ? type + "?" : type }
    }

    static let methodsWithQueryDefault: Set<String> = ["GET", "HEAD", "DELETE", "OPTIONS"]
    static let markers: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "QUERY"]

    func code() -> String {
        var code = "@MainActor\nenum \(book) {\n" + endpoints.joined(separator: "\n") + "}\n"
        if !calls.isEmpty { code += "\nextension \(book) {\n" + calls.joined(separator: "\n") + "}\n" }
        return code
    }

    mutating func add(_ operation: Operation, models: inout ModelGenerator) {
        guard Self.markers.contains(operation.method) else {
            endpoints.append(
                "    // courier-openapi: \(operation.label) skipped: Courier declares no \(operation.method) endpoints.\n"
            )
            return
        }
        let base =
            operation.hasOperationId
            ? operation.operationId
            : ([operation.method.lowercased()] + SwiftNames.words(operation.path)).joined(separator: " ")
        let name = members.claim(SwiftNames.memberName(base))
        let typeBase = SwiftNames.typeName(name)

        // The caller's values.
        var labels = NameScope(reserved: ["body"])
        var slots: [Slot] = []
        for parameter in operation.parameters {
            let type = models.swiftType(parameter.schema, suggestedName: typeBase + SwiftNames.typeName(parameter.name))
            slots.append(
                Slot(
                    label: labels.claim(SwiftNames.memberName(parameter.name)), type: type,
                    optional: !parameter.required || ModelGenerator.isNullable(parameter.schema), parameter: parameter))
        }
        var bodyKind: BodyKind?
        var skippedBody: String?
        if let body = operation.body {
            let kind = BodyKind(body)
            let type: String
            switch kind {
            case .raw: type = "Data"
            case .text: type = "String"
            default: type = models.swiftType(body.schema, suggestedName: typeBase + "Request")
            }
            // A body that is the only value is always sent: an optional model would be sent as `null`.
            let onlyValue = slots.allSatisfy { $0.parameter?.location == .header || $0.parameter?.location == .cookie }
            let named = slots.contains { $0.parameter?.location == .path || $0.parameter?.location == .query }
            if kind.isModel, named, models.properties[type] == nil {
                // Path or query values go by name, and a body that is not an object with properties has none to
                // send beside them: the endpoint takes no body rather than one it would drop.
                skippedBody = type
            } else {
                slots.append(Slot(label: "body", type: type, optional: !body.required && !onlyValue && kind.isModel))
                bodyKind = kind
            }
        }

        // The parameter type and how the builder reaches each value.
        let parameterType: String
        var structName: String?
        let tupleType = "(" + slots.map { "\($0.label): \($0.declaredType)" }.joined(separator: ", ") + ")"
        // A tuple while the declaration fits on a line, a struct beyond.
        let tupleFits = "    static var \(name): APIParameterBuilder<\(tupleType)>? = .init {".count <= 120
        switch slots.count {
        case 0: parameterType = "Void"
        case 1:
            parameterType = slots[0].declaredType
            slots[0].access = "$0"
        case 2...4 where tupleFits:
            parameterType = tupleType
            for index in slots.indices { slots[index].access = "$0.\(SwiftNames.escaped(slots[index].label))" }
        default:
            let name = models.names.claim(typeBase + "Parameters")
            structName = name
            parameterType = name
            for index in slots.indices { slots[index].access = "$0.\(SwiftNames.escaped(slots[index].label))" }
            var code = "/// The parameters of `\(book).\(name)`.\nstruct \(name): Sendable {\n"
            for slot in slots { code += "    var \(SwiftNames.escaped(slot.label)): \(slot.declaredType)\n" }
            parameterStructs.append(code + "}\n")
        }

        // The builder: path and query values by name, then the body.
        let named = slots.filter { $0.parameter?.location == .path || $0.parameter?.location == .query }
        var entries = named.compactMap { slot in slot.parameter.map { "\(JSONNode.quoted($0.name)): \(slot.access)" } }
        var builder: String?
        let bodySlot = slots.first { $0.parameter == nil }
        if let bodySlot, let bodyKind {
            switch bodyKind {
            case .raw(let contentType), .text(let contentType):
                let data = bodyKind.isText ? "Data(\(bodySlot.access).utf8)" : bodySlot.access
                builder =
                    ".data(\n            \(data), contentType: \(JSONNode.quoted(contentType)),\n"
                    + "            parameters: [\(entries.isEmpty ? ":" : entries.joined(separator: ", "))])"
            case .json, .form, .multipart:
                if named.isEmpty {
                    builder = bodySlot.access
                } else {
                    let chain = bodySlot.access + (bodySlot.optional ? "?." : ".")
                    entries += (models.properties[bodySlot.type] ?? []).map {
                        "\(JSONNode.quoted($0.json)): \(chain)\(SwiftNames.escaped($0.swift))"
                    }
                }
            }
        }
        if builder == nil, !entries.isEmpty { builder = "[" + entries.joined(separator: ", ") + "]" }

        // Where the named values go.
        var arguments = [JSONNode.quoted(operation.path)]
        let queryNames = named.compactMap { $0.parameter?.location == .query ? $0.parameter?.name : nil }
        let commaSeparated = named.contains {
            $0.parameter?.location == .query && $0.parameter?.explode == false && $0.type.hasPrefix("[")
        }
        let querying =
            queryNames.isEmpty ? "" : ".querying(" + queryNames.map(JSONNode.quoted).joined(separator: ", ") + ")"
        switch bodyKind {
        case .json where builder?.hasPrefix("[") == true || Self.methodsWithQueryDefault.contains(operation.method):
            if Self.methodsWithQueryDefault.contains(operation.method) || !queryNames.isEmpty {
                arguments.append("encoding: .json\(querying)")
            }
        case .form: arguments.append("encoding: .form\(querying)")
        case .multipart: arguments.append("encoding: .multipart\(querying)")
        case nil where !queryNames.isEmpty:
            if commaSeparated {
                arguments.append("encoding: .query(ParameterEncodingOptions(arrays: .commaSeparated))")
            } else if !Self.methodsWithQueryDefault.contains(operation.method) {
                arguments.append("encoding: .query")
            }
        default: break
        }
        let headerBuilder = headerBuilder(slots, stringEnums: models.stringEnums)

        // The declaration.
        var code = docs(operation, indent: "    ")
        if let skippedBody {
            code +=
                "    // courier-openapi: the \(skippedBody) request body is left out: it has no members to send by name beside\n"
            code += "    // the path and query values; send it yourself with `.data(…, parameters:)`.\n"
        }
        if operation.deprecated { code += "    @available(*, deprecated)\n" }
        let attribute = "    @\(operation.method)(\(arguments.joined(separator: ", ")))"
        if let headerBuilder {
            code += "    @\(operation.method)(\n" + arguments.map { "        \($0),\n" }.joined()
            code += "        headerBuilder: \(headerBuilder))\n"
        } else if attribute.count > 120 {
            code +=
                "    @\(operation.method)(\n" + arguments.map { "        \($0)" }.joined(separator: ",\n") + "\n    )\n"
        } else {
            code += attribute + "\n"
        }
        let head = "    static var \(SwiftNames.escaped(name)): APIParameterBuilder<\(parameterType)>? ="
        if let builder {
            let oneLine = "\(head) .init { \(builder) }"
            if oneLine.count <= 120, !builder.contains("\n") {
                code += oneLine + "\n"
            } else {
                code += "\(head) .init {\n" + Self.wrapped(builder, indent: "        ") + "    }\n"
            }
        } else {
            code += "\(head) nil\n"
        }
        endpoints.append(code)
        calls.append(call(operation, name: name, slots: slots, structName: structName, models: &models))
    }

    private func headerBuilder(_ slots: [Slot], stringEnums: Set<String>) -> String? {
        let headers = slots.filter { $0.parameter?.location == .header || $0.parameter?.location == .cookie }
        guard !headers.isEmpty else { return nil }
        var code = "{ parameter in\n            var headers: HTTPHeaders = [:]\n"
        for slot in headers {
            guard let parameter = slot.parameter else { continue }
            let access = slot.access.replacingOccurrences(of: "$0", with: "parameter")
            let reference = slot.optional ? "value" : access
            var text =
                slot.type == "String"
                ? reference
                : stringEnums.contains(slot.type) ? "\(reference).rawValue" : "String(describing: \(reference))"
            var name = JSONNode.quoted(parameter.name)
            if parameter.location == .cookie {
                name = "\"Cookie\""
                text = "\"\(parameter.name)=\\(\(text))\""
            }
            if slot.optional {
                code += "            if let value = \(access) { headers.add(\(name), \(text)) }\n"
            } else {
                code += "            headers.add(\(name), \(text))\n"
            }
        }
        return code + "            return headers\n        }"
    }

    private func call(
        _ operation: Operation, name: String, slots: [Slot], structName: String?, models: inout ModelGenerator
    ) -> String {
        var code = "    /// Calls ``\(name)``"
        var returnType = ""
        if let success = operation.success {
            if let schema = success.schema, let contentType = success.contentType, Operation.isJSON(contentType) {
                returnType = models.swiftType(schema, suggestedName: SwiftNames.typeName(name) + "Response")
                code += " and decodes its `\(success.status)` response"
            } else if let contentType = success.contentType {
                returnType = contentType.hasPrefix("text/") ? "String" : "Data"
                code += " and returns its `\(success.status)` response's body"
            }
        }
        code += ".\n"
        let errors = operation.responses.filter { !$0.status.hasPrefix("2") && $0.schema?["$ref"] != nil }
        for response in errors {
            if let schema = response.schema, let type = schema["$ref"]?.string.flatMap({ models.componentNames[$0] }) {
                code += "    /// A `\(response.status)` body decodes with `error.decodeBody(as: \(type).self)`.\n"
            }
        }
        if operation.deprecated { code += "    @available(*, deprecated)\n" }
        let arguments = slots.map {
            "\(SwiftNames.escaped($0.label)): \($0.declaredType)\($0.optional ? " = nil" : "")"
        }
        var signature =
            "    static func \(SwiftNames.escaped(name))(\(arguments.joined(separator: ", "))) async throws(APIError)"
        if !returnType.isEmpty { signature += " -> \(returnType)" }
        if signature.count + 2 > 120 {
            signature =
                "    static func \(SwiftNames.escaped(name))(\n"
                + arguments.map { "        \($0)" }.joined(separator: ",\n") + "\n    ) async throws(APIError)"
            if !returnType.isEmpty { signature += " -> \(returnType)" }
        }
        code += signature + " {\n"
        let values = slots.map { "\(SwiftNames.escaped($0.label)): \(SwiftNames.escaped($0.label))" }
        let argument: String
        switch slots.count {
        case 0: argument = ""
        case 1: argument = "with: \(SwiftNames.escaped(slots[0].label))"
        default: argument = "with: \(structName ?? "")(\(values.joined(separator: ", ")))"
        }
        let line = "        try await $\(name).request(\(argument))"
        if line.count <= 120 {
            code += line + "\n"
        } else {
            code += "        try await $\(name).request(\n            with: \(structName ?? "")(\n"
            code += values.map { "                \($0)" }.joined(separator: ",\n") + "\n            )\n        )\n"
        }
        return code + "    }\n"
    }

    private func docs(_ operation: Operation, indent: String) -> String {
        var parts = [operation.summary, operation.description].compactMap { $0 }
        if parts.count == 2, parts[0] == parts[1] { parts.removeLast() }
        var text = parts.joined(separator: "\n\n")
        if !text.isEmpty { text += "\n\n" }
        text += operation.hasOperationId ? "`\(operation.operationId)`" : "`\(operation.method) \(operation.path)`"
        return ModelGenerator.docComment(text, indent: indent)
    }

    /// A builder expression over several lines: a dictionary literal with one entry per line.
    static func wrapped(_ builder: String, indent: String) -> String {
        guard builder.hasPrefix("["), builder.hasSuffix("]") else { return indent + builder + "\n" }
        let inner = String(builder.dropFirst().dropLast())
        let oneLine = indent + builder
        if oneLine.count <= 120 { return oneLine + "\n" }
        let entries = inner.components(separatedBy: ", \"")
        var code = indent + "[\n"
        for (index, entry) in entries.enumerated() {
            code += indent + "    " + (index == 0 ? entry : "\"" + entry) + ",\n"
        }
        return code + indent + "]\n"
    }
}

/// How a request body is sent.
enum BodyKind {
    case json, form, multipart
    case raw(String)
    case text(String)

    init(_ body: Operation.Body) {
        let type = body.contentType.lowercased()
        if Operation.isJSON(type) {
            self = .json
        } else if type.hasPrefix("application/x-www-form-urlencoded") {
            self = .form
        } else if type.hasPrefix("multipart/form-data") {
            self = .multipart
        } else if type.hasPrefix("text/") {
            self = .text(body.contentType)
        } else {
            self = .raw(body.contentType)
        }
    }

    var isModel: Bool {
        switch self {
        case .json, .form, .multipart: true
        case .raw, .text: false
        }
    }

    var isText: Bool {
        if case .text = self { return true }
        return false
    }
}
