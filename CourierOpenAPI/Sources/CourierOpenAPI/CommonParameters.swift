/// Optional query parameters that every operation of a description declares the same way — Google's `fields`,
/// `key`, `alt`, `prettyPrint`, … on each of its paths. They become one struct that every call takes as
/// `common:` (`.init()`, nothing sent, by default), instead of the same arguments and struct members repeated on
/// every endpoint: a book that reads shorter and compiles in a fraction of the time (a struct holding them by value
/// would copy each of them in every endpoint's parameter struct; this one holds one array).
struct CommonParameters {
    /// One shared parameter: its declaration, its label in the initializer and its Swift type.
    struct Member {
        var parameter: Operation.Parameter
        var label: String
        var type: String
    }

    /// The struct's name (`CommonParameters` unless a model has it).
    let typeName: String
    let members: [Member]

    /// Fewer shared parameters than this stay arguments of their own.
    static let minimumCount = 3
    /// A description with fewer operations than this has no common parameters: what two operations share is
    /// theirs, not the description's.
    static let minimumOperations = 3

    /// The common parameters of `operations` (those the book declares), or `nil` when they are too few to group.
    init?(operations: [Operation], models: inout ModelGenerator) {
        guard operations.count >= Self.minimumOperations, let first = operations.first else { return nil }
        let root = models.description.root
        let shared = first.parameters.filter { parameter in
            Self.isGroupable(parameter, root: root)
                && operations.allSatisfy { operation in
                    operation.parameters.contains { Self.sameDeclaration($0, parameter) }
                }
        }
        guard shared.count >= Self.minimumCount else { return nil }
        typeName = models.names.claim("CommonParameters")
        var labels = NameScope()
        members = shared.map { parameter in
            let type =
                parameter.component.map { models.sharedType(parameter.schema, component: $0) }
                ?? models.swiftType(parameter.schema, suggestedName: SwiftNames.typeName(parameter.name))
            models.markEncoded(type)
            return Member(parameter: parameter, label: labels.claim(SwiftNames.memberName(parameter.name)), type: type)
        }
    }

    /// Whether `parameter` is one of these.
    func contains(_ parameter: Operation.Parameter) -> Bool {
        members.contains { $0.parameter.name == parameter.name && $0.parameter.location == parameter.location }
    }

    /// The query names, in the order they are sent.
    var names: [String] { members.map(\.parameter.name) }

    /// An optional query value sent as it is: a scalar or an exploded array in form style (not an object, whose
    /// members are query items of their own, nor a comma-separated array, which sets the endpoint's encoding).
    private static func isGroupable(_ parameter: Operation.Parameter, root: JSONNode) -> Bool {
        guard parameter.location == .query, !parameter.required, parameter.style == "form", parameter.explode
        else { return false }
        let schema = OpenAPIDescription.resolve(parameter.schema, in: root)
        let composed = ["properties", "allOf", "oneOf", "anyOf", "additionalProperties"].contains { schema[$0] != nil }
        return !composed && ModelGenerator.type(of: schema) != "object"
    }

    private static func sameDeclaration(_ a: Operation.Parameter, _ b: Operation.Parameter) -> Bool {
        a.name == b.name && a.location == b.location && a.required == b.required && a.schema == b.schema
            && a.style == b.style && a.explode == b.explode && a.component == b.component
    }

    /// The struct: an initializer with a `nil` default per parameter, and the values in the order they are sent.
    func code() -> String {
        let list = names.prefix(3).map { "`\($0)`" }.joined(separator: ", ") + (names.count > 3 ? ", …" : "")
        var code = ModelGenerator.docComment(
            "The query parameters every operation takes (\(list)): pass them to any call as `common:`; those left "
                + "`nil` are not sent.", indent: "")
        code += "struct \(typeName): Sendable {\n"
        code += "    /// The values in the order they are sent.\n"
        code += "    private let values: [(String, Parameters.Value)]\n\n"
        code += "    /// Creates the parameters of a call.\n"
        let described = members.filter { $0.parameter.description != nil }
        if !described.isEmpty { code += "    ///\n    /// - Parameters:\n" }
        for member in described {
            let text = (member.parameter.description ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let lines = ModelGenerator.wrap("\(member.label): \(text)", width: 120 - 4 - 8)
            code += lines.enumerated().map { "    ///   \($0.offset == 0 ? "- " : "  ")\($0.element)\n" }.joined()
        }
        code += "    init(\n"
        code += members.map { "        \(SwiftNames.escaped($0.label)): \($0.type)? = nil" }.joined(separator: ",\n")
        code += "\n    ) {\n        values = [\n"
        code += members.map {
            "            (\(JSONNode.quoted($0.parameter.name)), \(SwiftNames.escaped($0.label))),\n"
        }
        .joined()
        code += "        ]\n    }\n\n"
        code += "    /// `parameters` followed by these values.\n"
        code += "    func adding(to parameters: Parameters) -> Parameters {\n"
        code += "        var all = parameters\n"
        code += "        for (name, value) in values { all.append(name, value) }\n"
        code += "        return all\n    }\n}\n"
        return code
    }
}
