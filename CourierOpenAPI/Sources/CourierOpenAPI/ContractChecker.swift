import Courier
import Foundation

/// The checks of ``ContractPlugin``: which operation a request is, and what in it or its response breaks the
/// description.
struct ContractChecker {
    let description: OpenAPIDescription
    private var validator: SchemaValidator { SchemaValidator(description: description) }

    /// The operation the request matches (by its endpoint's template, else by its URL path) and the violations.
    func check(_ request: APIRequest) -> (Operation?, [ContractViolation]) {
        let method = request.method.rawValue.uppercased()
        let template = DriftChecker.template(request.endpoint.path)
        let urlPath = request.url.path(percentEncoded: true)
        let operation =
            description.operations.first {
                $0.method == method && DriftChecker.shape($0.path) == DriftChecker.shape(template)
            }
            ?? description.operations.first { $0.method == method && Self.values(in: urlPath, for: $0.path) != nil }
        guard let operation else {
            return (
                nil,
                [
                    ContractViolation(
                        operation: "\(method) \(template)", location: "request", rule: "operation",
                        message: "no operation of the description is \(method) \(template)")
                ]
            )
        }
        var violations: [ContractViolation] = []
        func add(_ problems: [SchemaValidator.Problem]) {
            violations += problems.map {
                ContractViolation(operation: operation.label, location: $0.location, rule: $0.rule, message: $0.message)
            }
        }
        let pathValues = Self.values(in: urlPath, for: operation.path) ?? [:]
        var query: [String: [String]] = [:]
        for item in request.queryItems { query[item.name, default: []].append(item.value ?? "") }
        for parameter in operation.parameters {
            let location = "request.\(parameter.location.rawValue).\(parameter.name)"
            let schema = description.resolve(parameter.schema)
            if parameter.location == .query, parameter.style == "form", parameter.explode,
                let members = schema["properties"]?.pairs
            {
                // An exploded form object: its members are query items of their own.
                let found = members.compactMap { member in query[member.key]?.first.map { (member.key, $0) } }
                if found.isEmpty {
                    if parameter.required {
                        add([
                            .init(location: location, rule: "required", message: "the required query value is missing")
                        ])
                    }
                } else {
                    add(validator.validate(validator.object(found, schema: schema), against: schema, at: location))
                }
                continue
            }
            let texts: [String]?
            switch parameter.location {
            case .path: texts = pathValues[parameter.name].map { [$0] }
            case .query: texts = query[parameter.name]
            case .header: texts = request.headers[HTTPHeaderName(rawValue: parameter.name)].map { [$0] }
            case .cookie: texts = nil  // cookies may come from a jar the plugin does not see
            }
            guard let texts else {
                if parameter.required, parameter.location != .cookie {
                    add([
                        .init(
                            location: location, rule: "required",
                            message: "the required \(parameter.location.rawValue) value is missing")
                    ])
                }
                continue
            }
            switch validator.value(of: parameter, texts: texts) {
            case .success(let value): add(validator.validate(value, against: parameter.schema, at: location))
            case .failure(let error): add([.init(location: location, rule: "style", message: error.message)])
            }
        }
        if let body = operation.body {
            let data = request.body.data ?? Data()
            if request.body.isEmpty {
                if body.required {
                    add([.init(location: "request.body", rule: "required", message: "the required body is missing")])
                }
            } else if Operation.isJSON(body.contentType), !data.isEmpty {
                if let value = try? JSONNode.parse(data) {
                    add(validator.validate(value, against: body.schema, at: "request.body"))
                } else {
                    add([.init(location: "request.body", rule: "type", message: "the body is not JSON")])
                }
            }
        }
        return (operation, violations)
    }

    /// The violations of a response to `operation`.
    func check(_ response: APIResponse, of operation: Operation) -> [ContractViolation] {
        let status = String(response.statusCode)
        let range = "\(status.prefix(1))XX"
        guard
            let declared = operation.responses.first(where: { $0.status == status })
                ?? operation.responses.first(where: { $0.status.uppercased() == range })
                ?? operation.responses.first(where: { $0.status == "default" })
        else {
            let statuses = operation.responses.map(\.status).joined(separator: ", ")
            return [
                ContractViolation(
                    operation: operation.label, location: "response.status", rule: "status",
                    message: "\(status) is not among the declared statuses (\(statuses))")
            ]
        }
        guard let schema = declared.schema, let contentType = declared.contentType, Operation.isJSON(contentType),
            let data = response.body.data, !data.isEmpty
        else { return [] }
        guard let value = try? JSONNode.parse(data) else {
            return [
                ContractViolation(
                    operation: operation.label, location: "response.body", rule: "type", message: "the body is not JSON"
                )
            ]
        }
        return validator.validate(value, against: schema, at: "response.body").map {
            ContractViolation(operation: operation.label, location: $0.location, rule: $0.rule, message: $0.message)
        }
    }

    /// The placeholder values of `path` for `template`, matched from the end (a base URL may add leading
    /// segments); `nil` when the path does not fit the template.
    static func values(in path: String, for template: String) -> [String: String]? {
        let segments = path.split(separator: "/").map(String.init)
        let parts = template.split(separator: "/").map(String.init)
        guard segments.count >= parts.count else { return nil }
        var values: [String: String] = [:]
        for (segment, part) in zip(segments.suffix(parts.count), parts) {
            if part.hasPrefix("{"), part.hasSuffix("}") {
                values[String(part.dropFirst().dropLast())] = segment.removingPercentEncoding ?? segment
            } else if part.contains("{") {
                continue  // a placeholder inside a segment: not checked
            } else if part != segment {
                return nil
            }
        }
        return values
    }
}
