/// Writes an address book for a description: Swift files a user commits and edits.
///
/// ```swift
/// let files = try Generator(description: description).files()   // file name → contents
/// ```
///
/// - one `@MainActor enum` per tag (`PetsAPI`; untagged operations go to the title's book), or one book;
/// - an endpoint per operation in Courier's declaration style, named from `operationId`, with a typed call
///   (`try await PetsAPI.showPetById(petId: "1")`) that returns the success response's model;
/// - `Models.swift`: the schemas' models and the parameter structs (with `CommonParameters` when every
///   operation takes the same optional query parameters, as Google's descriptions do);
/// - `Configuration.swift`: the servers as base-URL constants and an `APIConfiguration` helper that installs
///   the auth plugin each security scheme needs.
public struct Generator: Sendable {
    /// How operations are grouped into books.
    public enum Grouping: Sendable {
        /// One book per operation's first tag; untagged operations go to the title's book.
        case byTag
        /// One book for every operation, named after the description's title.
        case single
    }

    /// The access level of the generated declarations.
    public enum Access: String, Sendable, CaseIterable {
        /// No modifier: the book is part of the module that uses it.
        case `internal`
        /// `package`: the book is a module of its own, used by the modules of its package.
        case `package`
        /// `public`: the book is a module of its own, used by any module (with public memberwise initializers).
        case `public`
    }

    /// The description to generate from.
    public let description: OpenAPIDescription
    /// How operations are grouped into books.
    public let grouping: Grouping
    /// The access level of the generated declarations.
    public let access: Access

    /// A generator for `description`.
    public init(description: OpenAPIDescription, grouping: Grouping = .byTag, access: Access = .internal) {
        self.description = description
        self.grouping = grouping
        self.access = access
    }

    /// The generated files: file name → contents, deterministic for the same description.
    public func files() -> [String: String] {
        var types = NameScope(reserved: SwiftNames.reservedTypes)
        let titleBook = Self.bookName(description.title)
        var bookNames: [String: String] = [:]  // tag (or "") → book
        var order: [String] = []
        for operation in description.operations {
            let key = grouping == .single ? "" : (operation.tags.first ?? "")
            if bookNames[key] == nil {
                bookNames[key] = key.isEmpty ? titleBook : Self.bookName(key)
                order.append(key)
            }
        }
        // Books first, so that models that share a name get the suffix.
        for key in order { bookNames[key] = types.claim(bookNames[key] ?? titleBook) }
        let serversName = types.claim(SwiftNames.typeName(description.title) + "Servers")
        var models = ModelGenerator(description: description, names: types)
        models.declareComponents()
        models.declareInlineErrors(description.operations.filter { EndpointWriter.markers.contains($0.method) })
        let common = CommonParameters(
            operations: description.operations.filter { EndpointWriter.markers.contains($0.method) }, models: &models)

        var files: [String: String] = [:]
        var parameterStructs: [String] = []
        for key in order {
            guard let book = bookNames[key] else { continue }
            var writer = EndpointWriter(book: book, common: common, access: access)
            for operation in description.operations
            where (grouping == .single ? "" : (operation.tags.first ?? "")) == key {
                writer.add(operation, models: &models)
            }
            parameterStructs += writer.parameterStructs
            files["\(book).swift"] = header(imports: ["Courier", "Foundation"]) + writer.code()
        }
        var modelCode = models.declarationCode() + (common.map { [$0.code()] } ?? []) + parameterStructs
        if models.needsJSONValue { modelCode.append(ModelGenerator.jsonValue) }
        if models.needsOtherKey { modelCode.append(ModelGenerator.otherKey) }
        if models.needsJSONString { modelCode.append(ModelGenerator.jsonString) }
        if models.needsFormBody { modelCode.append(ModelGenerator.formBody) }
        // The common parameters hold Courier's `Parameters`.
        let imports = common == nil ? ["Foundation"] : ["Courier", "Foundation"]
        files["Models.swift"] = header(imports: imports) + modelCode.joined(separator: "\n")
        files["Configuration.swift"] =
            header(imports: ["Courier", "Foundation"])
            + ConfigurationWriter(description: description).code(servers: serversName)
        guard access != .internal else { return files }
        return files.mapValues { AccessModifiers.apply(access.rawValue, to: $0) }
    }

    static func bookName(_ raw: String) -> String {
        let name = SwiftNames.typeName(raw)
        return name.hasSuffix("API") || name.hasSuffix("Api") ? name : name + "API"
    }

    private func header(imports: [String]) -> String {
        var text = "// Generated by courier-openapi from \(JSONNode.quoted(description.title)) \(description.version)"
        text += " (OpenAPI \(description.specificationVersion), digest \(description.digest)).\n"
        text += "// Edit freely; `courier-openapi check` reports where this book and the description drift apart.\n\n"
        return text + imports.map { "import \($0)\n" }.joined() + "\n"
    }
}
