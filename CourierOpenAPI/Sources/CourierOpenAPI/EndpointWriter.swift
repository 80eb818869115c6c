/// Writes one book: the `@MainActor enum` with an endpoint per operation in Courier's declaration style, and an
/// extension with a typed call per endpoint that returns the success response's model.
struct EndpointWriter {
    let book: String
    /// The description's common parameters, which every call takes as one `common:` value.
    let common: CommonParameters?
    private var members = NameScope()
    private var endpoints: [String] = []
    private var calls: [String] = []
    private(set) var parameterStructs: [String] = []

    /// `public ` or `package ` before each endpoint and call (see ``Generator/Access``), counted in line widths.
    let modifier: String

    init(book: String, common: CommonParameters? = nil, access: Generator.Access = .internal) {
        self.book = book
        self.common = common
        self.modifier = access == .internal ? "" : access.rawValue + " "
    }

    /// A value the caller passes: a path, query, header or cookie parameter, or the request body.
    private struct Slot {
        var label: String
        var type: String
        var optional: Bool
        var parameter: Operation.Parameter?
        var access = ""
        /// A JSON body that is not an object, beside path or query values: the endpoint takes its encoded bytes
        /// (`Data`), the typed call the model.
        var encodedJSON = false
        /// A form or multipart body with a member named like a path or query value: the builder writes the body
        /// itself (`.body(…, contentType:parameters:)`), so that the member is not taken for that value.
        var writesFields = false
        /// The common parameters (``CommonParameters``): last, and `.init()` by default.
        var isCommon = false
        var declaredType: String { optional ? type + "?" : type }
        /// The type in the endpoint's parameter type.
        var endpointType: String { encodedJSON ? "Data" : declaredType }
    }

    static let methodsWithQueryDefault: Set<String> = ["GET", "HEAD", "DELETE", "OPTIONS"]
    static let markers: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "QUERY"]

    func code() -> String {
        var code = "@MainActor\nenum \(book) {\n" + endpoints.joined(separator: "\n") + "}\n"
        if !calls.isEmpty { code += "\nextension \(book) {\n" + calls.joined(separator: "\n") + "}\n" }
        return code
    }

    /// Adds an operation's endpoint and its typed call (or a comment when Courier has no marker for its method).
    mutating func add(_ operation: Operation, models: inout ModelGenerator) {
        guard Self.markers.contains(operation.method) else {
            endpoints.append(
                "    // courier-openapi: \(operation.label) skipped: Courier declares no \(operation.method) endpoints.\n"
            )
            return
        }
        let name = members.claim(SwiftNames.memberName(Self.baseName(of: operation)))
        let typeBase = SwiftNames.typeName(name)
        var values = values(of: operation, typeBase: typeBase, models: &models)
        for slot in values.slots { models.markEncoded(slot.type) }
        if let common {
            var slot = Slot(label: "common", type: common.typeName, optional: false)
            slot.isCommon = true
            values.slots.append(slot)
        }
        let (parameterType, structName) = parameterType(
            name: name, typeBase: typeBase, slots: &values.slots, models: &models)
        let builder = builder(operation, values: values, name: name, parameterType: parameterType, models: models)
        let arguments = attributeArguments(operation, values: values, builder: builder)
        var code = docs(operation, indent: "    ")
        if let skippedBody = values.skippedBody {
            code +=
                "    // courier-openapi: the \(skippedBody) request body is left out: it has no members to send by name beside\n"
            code +=
                "    // the path and query values; send it yourself with `.body(.data(…), contentType:parameters:)`.\n"
        }
        if operation.deprecated { code += "    @available(*, deprecated)\n" }
        code += attribute(
            operation, arguments: arguments, queryNames: builder.queryNames,
            headerBuilder: headerBuilder(values.slots, models: models))
        code += declaration(builder, name: name, parameterType: parameterType)
        endpoints.append(code)
        calls.append(call(operation, name: name, slots: values.slots, structName: structName, models: &models))
    }

    /// The values an endpoint takes, and how its body is sent.
    private struct Values {
        var slots: [Slot] = []
        var bodyKind: BodyKind?
        /// The type of a request body left out: it has no members to send by name beside path and query values.
        var skippedBody: String?
    }

    /// The caller's values: the operation's parameters (but the common ones), then its request body.
    private func values(of operation: Operation, typeBase: String, models: inout ModelGenerator) -> Values {
        var labels = NameScope(reserved: common == nil ? ["body"] : ["body", "common"])
        var values = Values()
        for parameter in operation.parameters where common?.contains(parameter) != true {
            let type =
                parameter.component.map { models.sharedType(parameter.schema, component: $0) }
                ?? models.swiftType(parameter.schema, suggestedName: typeBase + SwiftNames.typeName(parameter.name))
            values.slots.append(
                Slot(
                    label: labels.claim(SwiftNames.memberName(parameter.name)), type: type,
                    optional: !parameter.required || ModelGenerator.isNullable(parameter.schema), parameter: parameter))
        }
        if let body = operation.body { addBody(body, to: &values, typeBase: typeBase, models: &models) }
        return values
    }

    /// Adds the request body's value: the model (or text, or bytes), its encoded JSON, or nothing when it cannot be
    /// sent beside the path and query values.
    private func addBody(
        _ body: Operation.Body, to values: inout Values, typeBase: String, models: inout ModelGenerator
    ) {
        let slots = values.slots
        let kind = BodyKind(body)
        let type: String
        switch kind {
        case .raw: type = "Data"
        case .text: type = "String"
        default: type = models.swiftType(body.schema, suggestedName: typeBase + "Request")
        }
        // A body that is the only value is always sent: an optional model would be sent as `null`.
        let onlyValue = slots.allSatisfy { $0.parameter?.location == .header || $0.parameter?.location == .cookie }
        let named =
            common != nil || slots.contains { $0.parameter?.location == .path || $0.parameter?.location == .query }
        // A body member named like a path or query value would be taken for it (and left out of the body).
        let collides = (models.properties[type] ?? []).contains { member in
            slots.contains {
                ($0.parameter?.location == .path || $0.parameter?.location == .query)
                    && $0.parameter?.name == member.json
            }
        }
        if case .json = kind, named, models.properties[type] == nil || collides {
            // Path or query values go by name, and a JSON body that is not an object with properties has none
            // to send beside them: it is a body of its own, encoded by the typed call.
            var slot = Slot(label: "body", type: type, optional: false)
            slot.encodedJSON = true
            values.slots.append(slot)
            values.bodyKind = kind
        } else if kind.isModel, named, models.properties[type] == nil {
            // A form or multipart body has names only for an object's members: the endpoint takes no body
            // rather than one it would drop.
            values.skippedBody = type
        } else if collides {
            // A form or multipart body whose members the builder writes itself, when each has a text (or is a
            // file part); else the endpoint takes no body rather than one it would send without that member.
            var slot = Slot(label: "body", type: type, optional: !body.required && !onlyValue)
            slot.writesFields = true
            guard fieldStatements(slot, kind, partTypes: body.partContentTypes, models: models) != nil else {
                values.skippedBody = type
                return
            }
            if case .form = kind { models.needsFormBody = true }
            values.slots.append(slot)
            values.bodyKind = kind
        } else {
            values.slots.append(
                Slot(label: "body", type: type, optional: !body.required && !onlyValue && kind.isModel))
            values.bodyKind = kind
        }
    }

    /// The endpoint's parameter type: `Void`, the one value's type, a tuple while the declaration fits on a line, or
    /// a parameters struct (declared here) beyond; and how the builder reaches each value (`$0`, `$0.label`).
    private mutating func parameterType(
        name: String, typeBase: String, slots: inout [Slot], models: inout ModelGenerator
    ) -> (type: String, structName: String?) {
        let tupleType = "(" + slots.map { "\($0.label): \($0.endpointType)" }.joined(separator: ", ") + ")"
        let tupleFits = "    \(modifier)static var \(name): APIParameterBuilder<\(tupleType)>? = .init {".count <= 120
        switch slots.count {
        case 0: return ("Void", nil)
        case 1 where common == nil:
            slots[0].access = "$0"
            return (slots[0].endpointType, nil)
        case 2...4 where tupleFits && common == nil:
            for index in slots.indices { slots[index].access = "$0.\(SwiftNames.escaped(slots[index].label))" }
            return (tupleType, nil)
        default:
            let typeName = models.names.claim(typeBase + "Parameters")
            for index in slots.indices { slots[index].access = "$0.\(SwiftNames.escaped(slots[index].label))" }
            var code = "/// The parameters of `\(book).\(name)`.\nstruct \(typeName): Sendable {\n"
            for slot in slots {
                code +=
                    slot.isCommon
                    ? "    var common = \(slot.type)()\n"
                    : "    var \(SwiftNames.escaped(slot.label)): \(slot.endpointType)\n"
            }
            parameterStructs.append(code + "}\n")
            return (typeName, typeName)
        }
    }

    /// An endpoint's builder closure, and what its declaration needs to know about it.
    private struct Builder {
        /// The closure's expression; `nil` for an endpoint without parameters.
        var expression: String?
        /// The named values, when the expression is their dictionary literal.
        var entries: [String]?
        /// How the builder reaches the common parameters, when the endpoint takes them.
        var commonAccess: String?
        /// The names sent in the query string, the common ones last.
        var queryNames: [String]
        /// `static var name: APIParameterBuilder<…>? =`, indented.
        var head: String
        /// The builder's indentation: 8 spaces, 12 when a long name and type put the closure on a line of its own.
        var indent: String
    }

    /// The builder: path and query values by name (written as their style says), then the body.
    private func builder(
        _ operation: Operation, values: Values, name: String, parameterType: String, models: ModelGenerator
    ) -> Builder {
        let slots = values.slots
        let named = slots.filter { $0.parameter?.location == .path || $0.parameter?.location == .query }
        var (entries, queryNames) = namedEntries(named, models: models)
        // The common parameters follow the operation's own.
        let commonAccess = slots.first(where: \.isCommon)?.access
        queryNames += common?.names ?? []
        let head = "    \(modifier)static var \(SwiftNames.escaped(name)): APIParameterBuilder<\(parameterType)>? ="
        let indent = head.count + " .init {".count <= 120 ? "        " : "            "
        var expression: String?
        if let bodySlot = slots.first(where: { $0.parameter == nil && !$0.isCommon }), let bodyKind = values.bodyKind {
            expression = bodyExpression(
                bodySlot, bodyKind, operation: operation, sendsNamedValues: !named.isEmpty || common != nil,
                entries: &entries, commonAccess: commonAccess, indent: indent, models: models)
        }
        var builderEntries: [String]?
        if expression == nil, !entries.isEmpty || commonAccess != nil {
            expression = Self.named(entries, adding: commonAccess)
            builderEntries = entries
        }
        return Builder(
            expression: expression, entries: builderEntries, commonAccess: commonAccess, queryNames: queryNames,
            head: head, indent: indent)
    }

    /// The builder's entries for path and query values, in order, and the query names among them (an exploded form
    /// object's members are query items of their own).
    private func namedEntries(_ named: [Slot], models: ModelGenerator) -> (entries: [String], queryNames: [String]) {
        var entries: [String] = []
        var queryNames: [String] = []
        for slot in named {
            guard let parameter = slot.parameter else { continue }
            if parameter.location == .query, parameter.style == "form", parameter.explode,
                let members = scalarMembers(of: slot.type, models: models)
            {
                // An exploded form object: each member is a query item of its own.
                let chain = slot.access + (slot.optional ? "?." : ".")
                for member in members {
                    entries.append("\(JSONNode.quoted(member.json)): \(chain)\(SwiftNames.escaped(member.swift))")
                    queryNames.append(member.json)
                }
                continue
            }
            let value = styledText(slot, parameter, models: models) ?? slot.access
            entries.append("\(JSONNode.quoted(parameter.name)): \(value)")
            if parameter.location == .query { queryNames.append(parameter.name) }
        }
        return (entries, queryNames)
    }

    /// The builder's expression for a body of its own (`.body(…)` with the named values as its parameters); `nil`
    /// for a body sent by the endpoint's encoding, whose members (when there are named values beside it) are added
    /// to `entries`. A JSON or form body alone is the builder's value as it is (`$0`).
    private func bodyExpression(
        _ bodySlot: Slot, _ bodyKind: BodyKind, operation: Operation, sendsNamedValues: Bool, entries: inout [String],
        commonAccess: String?, indent: String, models: ModelGenerator
    ) -> String? {
        let parameters = Self.literal(
            entries, adding: commonAccess, lead: "parameters: ", trailer: ")", indent: indent + "    ")
        switch bodyKind {
        case .raw(let contentType), .text(let contentType):
            let data = bodyKind.isText ? "Data(\(bodySlot.access).utf8)" : bodySlot.access
            return ".body(\n\(indent)    .data(\(data)), contentType: \(JSONNode.quoted(contentType)),\n" + parameters
        case .json where bodySlot.encodedJSON:
            return ".body(\n\(indent)    .data(\(bodySlot.access)), contentType: \"application/json\",\n" + parameters
        case .form where bodySlot.writesFields, .multipart where bodySlot.writesFields:
            let partTypes = operation.body?.partContentTypes ?? [:]
            let statements = fieldStatements(bodySlot, bodyKind, partTypes: partTypes, models: models) ?? []
            let isForm = if case .form = bodyKind { true } else { false }
            var lines = [isForm ? "var fields: [(name: String, value: String)] = []" : "var form = MultipartForm()"]
            if bodySlot.optional {
                lines.append("if let body = \(bodySlot.access) {")
                lines += statements.map { "    " + $0 }
                lines.append("}")
            } else {
                lines += statements
            }
            let body =
                isForm
                ? ".data(FormBody.data(fields)), contentType: \"application/x-www-form-urlencoded\","
                : ".multipart(form), contentType: form.contentType,"
            lines.append("return .body(\n\(indent)    \(body)\n" + parameters)
            return lines.joined(separator: "\n" + indent)
        case .multipart:
            entries += multipartEntries(bodySlot, operation: operation, models: models)
            return nil
        case .json, .form:
            guard sendsNamedValues else { return bodySlot.access }
            let chain = bodySlot.access + (bodySlot.optional ? "?." : ".")
            entries += (models.properties[bodySlot.type] ?? []).map {
                "\(JSONNode.quoted($0.json)): \(chain)\(SwiftNames.escaped($0.swift))"
            }
            return nil
        }
    }

    /// The statements that add a form or multipart body's members to `fields` (name and text pairs) or `form` (a
    /// `MultipartForm`) in the builder: a scalar's text, each item of an array of scalars under the member's name, a
    /// binary member of a multipart body as a file part with a filename; `nil` when a member has none of these (a
    /// nested object, a date).
    private func fieldStatements(
        _ bodySlot: Slot, _ kind: BodyKind, partTypes: [String: String], models: ModelGenerator
    ) -> [String]? {
        let isForm = if case .form = kind { true } else { false }
        let chain = bodySlot.optional ? "body." : bodySlot.access + "."
        var statements: [String] = []
        for member in models.properties[bodySlot.type] ?? [] {
            let key = JSONNode.quoted(member.json)
            let type = Self.unwrapped(member.type)
            let optional = member.type.hasSuffix("?")
            let access = chain + SwiftNames.escaped(member.swift)
            let value = optional ? "value" : access
            func add(_ value: String, type: String) -> String? {
                if type == "Data", !isForm {
                    let contentType = partTypes[member.json].map { ", contentType: \(JSONNode.quoted($0))" } ?? ""
                    return "form.append(.data(\(key), \(value), filename: \(key)\(contentType)))"
                }
                guard let text = Self.text(value, type: type, models: models) else { return nil }
                return isForm ? "fields.append((\(key), \(text)))" : "form.append(.field(\(key), \(text)))"
            }
            if let statement = add(value, type: type) {
                statements.append(optional ? "if let value = \(access) { \(statement) }" : statement)
            } else if type.hasPrefix("["), type.hasSuffix("]"), !type.contains(":"),
                let statement = add("item", type: String(type.dropFirst().dropLast()))
            {
                statements.append("for item in \(access)\(optional ? " ?? []" : "") { \(statement) }")
            } else {
                return nil
            }
        }
        return statements
    }

    /// A multipart body's members by name; binary members are file parts with a filename.
    private func multipartEntries(_ bodySlot: Slot, operation: Operation, models: ModelGenerator) -> [String] {
        let chain = bodySlot.access + (bodySlot.optional ? "?." : ".")
        let partTypes = operation.body?.partContentTypes ?? [:]
        return (models.properties[bodySlot.type] ?? []).map { member in
            let value = chain + SwiftNames.escaped(member.swift)
            let key = JSONNode.quoted(member.json)
            guard member.type == "Data" || member.type == "Data?" else { return "\(key): \(value)" }
            // `.data`'s content type is application/octet-stream unless the encoding names one.
            let file =
                "filename: \(key)" + (partTypes[member.json].map { ", contentType: \(JSONNode.quoted($0))" } ?? "")
            return member.type == "Data" && !bodySlot.optional
                ? "\(key): .data(\(value), \(file))"
                : "\(key): (\(value)).map { MultipartFile.data($0, \(file)) }"
        }
    }

    /// The attribute's arguments: the path, then the encoding where the method's default is not the one the
    /// values need (with the query names).
    private func attributeArguments(_ operation: Operation, values: Values, builder: Builder) -> [String] {
        var arguments = [JSONNode.quoted(operation.path)]
        let queryNames = builder.queryNames
        let querying =
            queryNames.isEmpty ? "" : ".querying(" + queryNames.map(JSONNode.quoted).joined(separator: ", ") + ")"
        switch values.bodyKind {
        case .json where builder.entries != nil || Self.methodsWithQueryDefault.contains(operation.method):
            if Self.methodsWithQueryDefault.contains(operation.method) || !queryNames.isEmpty {
                arguments.append("encoding: .json\(querying)")
            }
        case .form: arguments.append("encoding: .form\(querying)")
        case .multipart: arguments.append("encoding: .multipart\(querying)")
        case nil where !queryNames.isEmpty:
            if !Self.methodsWithQueryDefault.contains(operation.method) {
                arguments.append("encoding: .query")
            }
        default: break
        }
        return arguments
    }

    /// The marker attribute (`@GET(…)`): on one line when it fits, else one argument per line, the header builder
    /// last.
    private func attribute(
        _ operation: Operation, arguments: [String], queryNames: [String], headerBuilder: String?
    ) -> String {
        let attribute = "    @\(operation.method)(\(arguments.joined(separator: ", ")))"
        if let headerBuilder {
            return "    @\(operation.method)(\n"
                + arguments.map { Self.argumentLines($0, querying: queryNames) + ",\n" }.joined()
                + "        headerBuilder: \(headerBuilder))\n"
        } else if attribute.count > 120 {
            return "    @\(operation.method)(\n"
                + arguments.map { Self.argumentLines($0, querying: queryNames) }.joined(separator: ",\n") + "\n    )\n"
        } else {
            return attribute + "\n"
        }
    }

    /// The endpoint's `static var` with its builder, broken over lines as swift-format breaks it.
    private func declaration(_ builder: Builder, name: String, parameterType: String) -> String {
        let head = builder.head
        guard let expression = builder.expression else { return "\(head) nil\n" }
        let indent = builder.indent
        let oneLine = "\(head) .init { \(expression) }"
        let body = Self.wrapped(expression, entries: builder.entries, adding: builder.commonAccess, indent: indent)
        if oneLine.count <= 120, !expression.contains("\n") {
            return oneLine + "\n"
        } else if indent.count == 8 {
            return "\(head) .init {\n" + body + "    }\n"
        }
        // A long name and type: the closure on a line of its own (or the type too), as swift-format has it.
        let opening =
            head.count <= 120
            ? "\(head)\n        .init {\n"
            : "    \(modifier)static var \(SwiftNames.escaped(name)):\n        APIParameterBuilder<\(parameterType)>? = .init {\n"
        return opening + body + "        }\n"
    }

    /// What an operation's endpoint is named from: its `operationId`, or its method and path.
    static func baseName(of operation: Operation) -> String {
        operation.hasOperationId
            ? operation.operationId
            : ([operation.method.lowercased()] + SwiftNames.words(operation.path)).joined(separator: " ")
    }

    /// Swift types whose text in a path or query value is their description.
    private static let describedScalars: Set<String> = ["Int", "Int32", "Int64", "Double", "Float", "Bool", "UUID"]

    /// A `String` expression for `value`, a non-optional scalar of `type`; `nil` for types without a plain text.
    private static func text(_ value: String, type: String, models: ModelGenerator) -> String? {
        if type == "String" { return value }
        if models.stringEnums.contains(type) { return value + ".rawValue" }
        if describedScalars.contains(type) { return "\"\\(\(value))\"" }
        return nil
    }

    /// What to interpolate into a string literal for `value`, a non-optional scalar of `type`.
    private static func interpolated(_ value: String, type: String, models: ModelGenerator) -> String {
        models.stringEnums.contains(type) ? value + ".rawValue" : value
    }

    /// An object model's members when every one of them has a plain text (see ``text(_:type:models:)``).
    private func scalarMembers(
        of type: String, models: ModelGenerator
    ) -> [(json: String, swift: String, type: String)]? {
        guard let members = models.properties[type], !members.isEmpty else { return nil }
        let plain = members.allSatisfy {
            Self.text("x", type: Self.unwrapped($0.type), models: models) != nil
        }
        return plain ? members : nil
    }

    /// A ``DelimitedValue`` (or optional) expression writing a path or query value as its `style` and `explode` say
    /// (OpenAPI's simple, label, matrix and form styles for scalars, arrays and objects): the values encoded, the
    /// delimiters (`,` `.` `;` `=`) kept as RFC 6570 writes them; `nil` when Courier's own placement already writes
    /// it so (scalars in simple or form style, exploded query arrays, deepObject) or the value has no plain text.
    private func styledText(_ slot: Slot, _ parameter: Operation.Parameter, models: ModelGenerator) -> String? {
        let style = parameter.style
        let name = parameter.name
        let explode = parameter.explode
        let prefix: String
        switch style {
        case "label": prefix = "."
        case "matrix": prefix = ";\(name)="
        case "simple", "form": prefix = ""
        default: return nil
        }
        let value = slot.optional ? "v" : slot.access
        var expression: String
        if Self.text("x", type: slot.type, models: models) != nil {
            // A scalar: only label and matrix add to it.
            guard style == "label" || style == "matrix" else { return nil }
            expression = Self.delimited(prefix + "\\(\(Self.interpolated(value, type: slot.type, models: models)))")
        } else if slot.type.hasPrefix("["), slot.type.hasSuffix("]"), !slot.type.contains(":") {
            // An array of scalars; exploded query arrays are the encoding's (repeated keys).
            guard parameter.location == .path || (style == "form" && !explode) else { return nil }
            let element = String(slot.type.dropFirst().dropLast())
            guard Self.text("$0", type: element, models: models) != nil else { return nil }
            let text = Self.interpolated("$0", type: element, models: models)
            let items = "\(value).map { \(Self.delimited("\\(\(text))")) }"
            switch (style, explode) {
            case ("matrix", true):
                expression = "\(value).map { \(Self.delimited(prefix + "\\(\(text))")) }.joined(separator: \"\")"
            case ("label", true): expression = Self.quoted(".", "\(items).joined(separator: \".\")")
            default: expression = Self.quoted(prefix, "\(items).joined(separator: \",\")")
            }
            // An empty list is undefined and expands to nothing, its prefix included (RFC 6570, section 3.2.1).
            if !prefix.isEmpty, !(style == "matrix" && explode) {
                expression = "\(value).isEmpty ? \"\" : \(expression)"
            }
        } else if let members = scalarMembers(of: slot.type, models: models) {
            // An object: key,value pairs (explode: false) or key=value pairs (explode: true).
            let separator = explode ? "=" : ","
            var optional = false
            let pairs = members.map { member -> String in
                let type = Self.unwrapped(member.type)
                let access = "\(value).\(SwiftNames.escaped(member.swift))"
                if member.type.hasSuffix("?") {
                    optional = true
                    let text = Self.interpolated("$0", type: type, models: models)
                    return "\(access).map { \(Self.delimited("\(member.json)\(separator)\\(\(text))")) }"
                }
                let text = Self.interpolated(access, type: type, models: models)
                return Self.delimited("\(member.json)\(separator)\\(\(text))")
            }
            let between = style == "matrix" && explode ? ";" : style == "label" && explode ? "." : ","
            let lead = style == "matrix" && explode ? ";" : prefix
            if !optional {
                // Every member present: one literal, `"from=\(…),to=\(…)" as DelimitedValue`.
                let inner = pairs.map { String($0.dropFirst().dropLast("\" as DelimitedValue".count)) }
                expression = Self.delimited(lead + inner.joined(separator: between))
                return slot.optional ? "\(slot.access).map { v in \(expression) }" : expression
            }
            let list = "[\(pairs.joined(separator: ", "))].compactMap { $0 }"
            switch (style, explode) {
            case ("matrix", true): expression = "\(list).map { \(Self.delimited(";\\($0)")) }.joined(separator: \"\")"
            case ("label", true): expression = Self.quoted(".", "\(list).joined(separator: \".\")")
            default: expression = Self.quoted(prefix, "\(list).joined(separator: \",\")")
            }
            // No member present: the object is undefined and expands to nothing, its prefix included (RFC 6570).
            if !prefix.isEmpty, !(style == "matrix" && explode) {
                expression = "\(list).isEmpty ? \"\" : \(expression)"
            }
        } else {
            return nil
        }
        return slot.optional ? "\(slot.access).map { v in \(expression) }" : expression
    }

    /// `"text" as DelimitedValue`: a string literal whose literal text is delimiters and whose interpolations are
    /// values.
    private static func delimited(_ text: String) -> String { "\"\(text)\" as DelimitedValue" }

    /// `"prefix\(expression)" as DelimitedValue`, or `expression` alone when there is no prefix.
    private static func quoted(_ prefix: String, _ expression: String) -> String {
        prefix.isEmpty ? expression : delimited("\(prefix)\\(\(expression))")
    }

    /// `type` without its trailing `?`.
    private static func unwrapped(_ type: String) -> String {
        type.hasSuffix("?") ? String(type.dropLast()) : type
    }

    /// The header builder: header values in simple style (an array's items joined by `,`), and every cookie value
    /// as a `name=value` pair in one `Cookie` field, the pairs separated by `; ` (RFC 6265).
    private func headerBuilder(_ slots: [Slot], models: ModelGenerator) -> String? {
        let headers = slots.filter { $0.parameter?.location == .header || $0.parameter?.location == .cookie }
        guard !headers.isEmpty else { return nil }
        let cookieCount = headers.filter { $0.parameter?.location == .cookie }.count
        var code = "{ parameter in\n            var headers: HTTPHeaders = [:]\n"
        if cookieCount > 1 { code += "            var cookies: [String] = []\n" }
        for slot in headers {
            guard let parameter = slot.parameter else { continue }
            let access = slot.access.replacingOccurrences(of: "$0", with: "parameter")
            let reference = slot.optional ? "value" : access
            var text: String
            if slot.type == "String" || models.stringEnums.contains(slot.type) {
                text = Self.interpolated(reference, type: slot.type, models: models)
            } else if slot.type.hasPrefix("["), slot.type.hasSuffix("]"), !slot.type.contains(":"),
                let item = Self.text("$0", type: String(slot.type.dropFirst().dropLast()), models: models)
            {
                text = (item == "$0" ? reference : "\(reference).map { \(item) }") + ".joined(separator: \",\")"
            } else {
                text = "String(describing: \(reference))"
            }
            var add: String
            if parameter.location == .cookie {
                let pair = "\"\(parameter.name)=\\(\(text))\""
                add = cookieCount > 1 ? "cookies.append(\(pair))" : "headers.add(\"Cookie\", \(pair))"
            } else {
                add = "headers.add(\(JSONNode.quoted(parameter.name)), \(text))"
            }
            code += slot.optional ? "            if let value = \(access) { \(add) }\n" : "            \(add)\n"
        }
        if cookieCount > 1 {
            code += "            if !cookies.isEmpty { headers.add(\"Cookie\", cookies.joined(separator: \"; \")) }\n"
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
                models.markDecoded(returnType)
                if returnType == "String" { models.needsJSONString = true }
                code += " and decodes its `\(success.status)` response"
            } else if let contentType = success.contentType {
                returnType = contentType.hasPrefix("text/") ? "String" : "Data"
                code += " and returns its `\(success.status)` response's body"
            }
        }
        code += ".\n"
        let errors = operation.responses.filter { !$0.status.hasPrefix("2") && $0.schema != nil }
        for response in errors {
            if let schema = response.schema,
                let type = schema["$ref"]?.string.flatMap({ models.componentNames[$0] })
                    ?? models.inlineErrorModel(schema)
            {
                models.markDecoded(type)
                code += "    /// A `\(response.status)` body decodes with `error.decodeBody(as: \(type).self)`.\n"
            }
        }
        if operation.deprecated { code += "    @available(*, deprecated)\n" }
        let arguments = slots.map {
            "\(SwiftNames.escaped($0.label)): \($0.declaredType)\($0.optional ? " = nil" : $0.isCommon ? " = .init()" : "")"
        }
        var signature =
            "    \(modifier)static func \(SwiftNames.escaped(name))(\(arguments.joined(separator: ", "))) async throws(APIError)"
        if !returnType.isEmpty { signature += " -> \(returnType)" }
        if signature.count + 2 > 120 {
            signature =
                "    \(modifier)static func \(SwiftNames.escaped(name))(\n"
                + arguments.map { "        \($0)" }.joined(separator: ",\n") + "\n    ) async throws(APIError)"
            if !returnType.isEmpty { signature += " -> \(returnType)" }
        }
        code += signature + " {\n"
        if let body = slots.first(where: \.encodedJSON) {
            // A body of its own: encoded here with the configuration's JSON encoder, so a failure is a typed error.
            code += "        let json: Data\n"
            code += "        do { json = try APIConfiguration.current.encoder.coder.encode(\(body.label)) } catch {\n"
            code += "            throw APIError(\n"
            let arguments = "                .invalidRequest(.unencodableParameters), endpoint: $\(name).endpoint,"
            code += arguments + (arguments.count + " underlyingError: error)".count <= 120 ? " " : "\n                ")
            code += "underlyingError: error)\n"
            code += "        }\n"
        }
        let values = slots.map {
            "\(SwiftNames.escaped($0.label)): \($0.encodedJSON ? "json" : SwiftNames.escaped($0.label))"
        }
        let argument: String
        switch slots.count {
        case 0: argument = ""
        case 1 where structName == nil:
            argument = "with: \(slots[0].encodedJSON ? "json" : SwiftNames.escaped(slots[0].label))"
        default: argument = "with: \(structName ?? "")(\(values.joined(separator: ", ")))"
        }
        // After the encoding statements the call is no longer the body's only expression: it returns explicitly.
        // A JSON string is decoded as `JSONString`, then its value returned.
        let decodesString = returnType == "String" && operation.success?.contentType.map(Operation.isJSON) == true
        let returns =
            decodesString
            ? "let decoded: JSONString = "
            : slots.contains(where: \.encodedJSON) && !returnType.isEmpty ? "return " : ""
        let line = "        \(returns)try await $\(name).request(\(argument))"
        if line.count <= 120 {
            code += line + "\n"
        } else {
            code += "        \(returns)try await $\(name).request(\n            with: \(structName ?? "")(\n"
            code += values.map { "                \($0)" }.joined(separator: ",\n") + "\n            )\n        )\n"
        }
        if decodesString { code += "        return decoded.value\n" }
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

    /// An attribute's argument on its line (8 spaces in), a list of query names (`.querying(…)`) over several when
    /// it is longer than a line.
    static func argumentLines(_ argument: String, querying queryNames: [String]) -> String {
        let line = "        " + argument
        let names = queryNames.map(JSONNode.quoted)
        let list = ".querying(" + names.joined(separator: ", ") + ")"
        guard line.count > 120, !names.isEmpty, argument.hasSuffix(list) else { return line }
        let pieces = names.enumerated().map { $0.element + ($0.offset == names.count - 1 ? ")" : ",") }
        let lines = ModelGenerator.pack(pieces, width: 120 - 12)
        return "        " + argument.dropLast(list.count) + ".querying(\n"
            + lines.map { "            " + $0 }.joined(separator: "\n")
    }

    /// A builder expression at `indent`: a dictionary literal over several lines, one entry per line, when it does
    /// not fit on one.
    static func wrapped(_ builder: String, entries: [String]?, adding common: String?, indent: String) -> String {
        guard let entries else { return indent + builder + "\n" }
        return literal(entries, adding: common, indent: indent) + "\n"
    }

    /// The named values as a dictionary literal on one line, the argument of `common.adding(to:)` when given.
    static func named(_ entries: [String], adding common: String?) -> String {
        let text = "[\(entries.isEmpty ? ":" : entries.joined(separator: ", "))]"
        return common.map { "\($0).adding(to: \(text))" } ?? text
    }

    /// `lead` and the named values as a dictionary literal (the argument of `common.adding(to:)` when the endpoint
    /// takes the common parameters), then `trailer`, at `indent`: on one line when it is shorter than 120 characters
    /// (swift-format breaks one of 120), else one entry per line.
    static func literal(
        _ entries: [String], adding common: String?, lead: String = "", trailer: String = "", indent: String
    ) -> String {
        let line = indent + lead + named(entries, adding: common) + trailer
        guard !entries.isEmpty, line.count >= 120 else { return line }
        return indent + lead + (common.map { "\($0).adding(to: [" } ?? "[") + "\n"
            + entries.map { entryLines($0, indent: indent + "    ") }.joined() + indent + (common == nil ? "]" : "])")
            + trailer
    }

    /// A dictionary entry and its comma at `indent`; an entry longer than a line whose value is an empty list's
    /// ternary (`list.isEmpty ? "" : …`, or inside `.map { v in … }`) broken before its `?`, as swift-format breaks it.
    static func entryLines(_ entry: String, indent: String) -> String {
        let line = indent + entry + ",\n"
        let ternary = " ? \"\" : "
        guard line.count > 121, let range = entry.range(of: ternary) else { return line }
        let condition = entry[..<range.lowerBound]
        let rest = entry[range.upperBound...]
        if let open = condition.range(of: ".map { v in "), condition[open.upperBound...] == "v.isEmpty",
            rest.hasSuffix(" }")
        {
            let value = "? \"\" : " + rest.dropLast(2)
            let inner = indent + "    v.isEmpty " + value
            let body =
                inner.count <= 120 ? inner + "\n" : indent + "    v.isEmpty\n" + indent + "        " + value + "\n"
            return indent + condition[..<open.upperBound].dropLast() + "\n" + body + indent + "},\n"
        }
        guard !condition.contains("{") else { return line }
        return indent + condition + "\n" + indent + "    ? \"\" : " + rest + ",\n"
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
