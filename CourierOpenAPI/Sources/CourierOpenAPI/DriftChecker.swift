import Foundation

/// Compares an address book — generated, hand-edited or hand-written — with a description and reports drift:
///
/// - an endpoint whose method and path template match no operation;
/// - path placeholders named differently from the operation's;
/// - query or body names the operation does not have;
/// - required query, header or body values the builder never sets;
/// - operations the book does not declare (notes; errors with `requireAll`).
///
/// ```swift
/// let report = try DriftChecker(description: description).check(paths: ["Sources/App/API"])
/// for finding in report.findings { print(finding) }   // Sources/App/API/PetAPI.swift:42: error: …
/// ```
public struct DriftChecker: Sendable {
    /// The description to check against.
    public let description: OpenAPIDescription

    /// A checker for `description`.
    public init(description: OpenAPIDescription) { self.description = description }

    /// One difference between the book and the description.
    public struct Finding: Sendable, CustomStringConvertible {
        /// Whether the finding is drift (fails the check) or a note.
        public let isError: Bool
        /// The file and line of the endpoint; `nil` for an operation the book does not declare.
        public let location: String?
        /// The operation concerned: its `operationId` (or method and path) and method and path.
        public let operation: String?
        /// What differs.
        public let message: String

        /// `file:line: error: operation: message`, as compilers write it.
        public var description: String {
            let prefix = location.map { "\($0): " } ?? ""
            let subject = operation.map { "\($0): " } ?? ""
            return "\(prefix)\(isError ? "error" : "note"): \(subject)\(message)"
        }
    }

    /// What a check found.
    public struct Report: Sendable {
        /// The findings, endpoints in file and line order, then undeclared operations in document order.
        public let findings: [Finding]
        /// How many endpoints the sources declare.
        public let endpointCount: Int
        /// How many operations the description has.
        public let operationCount: Int

        /// Whether any finding is an error.
        public var hasDrift: Bool { findings.contains { $0.isError } }

        /// One line: what was checked and what was found.
        public var summary: String {
            let errors = findings.filter(\.isError).count
            let notes = findings.count - errors
            return "courier-openapi check: \(endpointCount) endpoints against \(operationCount) operations: "
                + "\(errors) error\(errors == 1 ? "" : "s"), \(notes) note\(notes == 1 ? "" : "s")"
        }
    }

    /// Checks the Swift files at `paths` (files, or folders searched for `.swift` files).
    public func check(paths: [String], requireAll: Bool = false) throws(DescriptionError) -> Report {
        var sources: [(String, String)] = []
        for path in paths {
            for file in Self.swiftFiles(at: path) {
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                    throw DescriptionError("cannot read \(file)")
                }
                sources.append((file, text))
            }
        }
        return check(sources: sources, requireAll: requireAll)
    }

    /// Checks Swift source texts given as (file name, text).
    public func check(sources: [(file: String, text: String)], requireAll: Bool = false) -> Report {
        let endpoints = sources.flatMap { SwiftDeclarationReader.endpoints(in: $0.text, file: $0.file) }
        var findings: [Finding] = []
        var declared = Set<Int>()
        // Method and path shape → the first operation with them, computed once.
        var byShape: [String: Int] = [:]
        for (index, operation) in description.operations.enumerated() {
            let key = operation.method + " " + Self.shape(operation.path)
            if byShape[key] == nil { byShape[key] = index }
        }
        for endpoint in endpoints {
            let location = "\(endpoint.file):\(endpoint.line)"
            let template = Self.template(endpoint.path)
            guard let index = byShape[endpoint.method + " " + Self.shape(template)] else {
                findings.append(
                    Finding(
                        isError: true, location: location, operation: endpoint.name.map { "\($0)" },
                        message: "\(endpoint.method) \(template) matches no operation of the description"))
                continue
            }
            declared.insert(index)
            let operation = description.operations[index]
            func drift(_ message: String) {
                findings.append(
                    Finding(isError: true, location: location, operation: operation.label, message: message))
            }
            let ours = Self.placeholders(template)
            let theirs = Self.placeholders(operation.path)
            for (mine, expected) in zip(ours, theirs) where mine != expected {
                drift("path placeholder {\(mine)} is {\(expected)} in the description")
            }
            let pathNames = Set(theirs).union(ours)
            let query = operation.parameters.filter { $0.location == .query }
            let headers = operation.parameters.filter { $0.location == .header }
            let body = bodyNames(operation)
            // An exploded form object (the query default) is sent as its members, each a query item of its own.
            let exploded = Dictionary(
                query.compactMap { parameter in explodedMembers(parameter).map { (parameter.name, $0) } },
                uniquingKeysWith: { first, _ in first })
            let known = Set(query.map(\.name)).union(exploded.values.flatMap(\.names)).union(body.names)
                .union(pathNames)
            for name in endpoint.names where !known.contains(name) && !body.isOpen {
                drift("'\(name)' is neither a query nor a body name of the operation")
            }
            guard !endpoint.passesModel else { continue }  // a whole model: its names are not in the source
            for parameter in query where parameter.required && !endpoint.names.contains(parameter.name) {
                if let members = exploded[parameter.name] {
                    for name in members.required where !endpoint.names.contains(name) {
                        drift("the required query item '\(name)' (of '\(parameter.name)') is never set")
                    }
                } else {
                    drift("the required query item '\(parameter.name)' is never set")
                }
            }
            let setHeaders = Set(endpoint.headerNames.map { $0.lowercased() })
            for parameter in headers where parameter.required && !setHeaders.contains(parameter.name.lowercased()) {
                drift("the required header '\(parameter.name)' is never set")
            }
            if operation.body?.required == true, !body.isOpen, !endpoint.sendsBody {
                for name in body.required where !endpoint.names.contains(name) {
                    drift("the required body member '\(name)' is never set")
                }
            }
        }
        for (index, operation) in description.operations.enumerated() where !declared.contains(index) {
            findings.append(
                Finding(
                    isError: requireAll, location: nil, operation: operation.label,
                    message: "the book declares no endpoint for this operation"))
        }
        return Report(findings: findings, endpointCount: endpoints.count, operationCount: description.operations.count)
    }

    // MARK: - Helpers

    static func swiftFiles(at path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return [path] }
        guard isFolder.boolValue else { return [path] }
        let files = FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".swift") }.sorted().map { (path as NSString).appendingPathComponent($0) }
    }

    /// The path without a static query, `{name...}` written `{name}`.
    static func template(_ path: String) -> String {
        let withoutQuery = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return String(withoutQuery).replacingOccurrences(of: "...}", with: "}")
    }

    /// The template with every placeholder written `{}`, for matching.
    static func shape(_ path: String) -> String {
        path.replacing(/\{[^}\/]*\}/, with: "{}")
    }

    static func placeholders(_ path: String) -> [String] {
        path.matches(of: /\{([^}\/]*)\}/).map { String($0.output.1) }
    }

    /// The member names (all, and the required ones) of a query parameter sent as an exploded form object.
    private func explodedMembers(_ parameter: Operation.Parameter) -> (names: [String], required: [String])? {
        let schema = description.resolve(parameter.schema)
        guard parameter.style == "form", parameter.explode, let properties = schema["properties"]?.pairs,
            !properties.isEmpty
        else { return nil }
        return (properties.map(\.key), (schema["required"]?.array ?? []).compactMap(\.string))
    }

    /// The names of the operation's body members, the required ones, and whether the body takes names the
    /// description does not list (no object schema, `additionalProperties`, a `oneOf`).
    private func bodyNames(_ operation: Operation) -> (names: Set<String>, required: [String], isOpen: Bool) {
        guard let body = operation.body else { return ([], [], false) }
        var names: [String] = []
        var required: [String] = []
        var isOpen = false
        func collect(_ raw: JSONNode, depth: Int) {
            let schema = description.resolve(raw)
            guard depth < 32 else { return }
            if schema["oneOf"] != nil || schema["anyOf"] != nil { isOpen = true }
            if let additional = schema["additionalProperties"], additional != .bool(false) { isOpen = true }
            for member in schema["allOf"]?.array ?? [] { collect(member, depth: depth + 1) }
            names += schema["properties"]?.pairs.map(\.key) ?? []
            required += (schema["required"]?.array ?? []).compactMap(\.string)
        }
        collect(body.schema, depth: 0)
        if names.isEmpty { isOpen = true }
        return (Set(names), required, isOpen)
    }
}
