import Foundation

/// Parameters split into path values and a query string or body, following the endpoint's placement.
struct PlacedParameters {
    /// The text of each path placeholder, first value wins; a list, as templates have few placeholders.
    private var pathValues: [(name: String, text: String)] = []
    private(set) var query: String?
    private(set) var body = RequestBody.empty
    private(set) var contentType: String?

    static let jsonContentType = "application/json"
    static let formContentType = "application/x-www-form-urlencoded; charset=utf-8"

    /// Throws ``RequestProblemError`` for shape problems and `EncodingError` for unencodable values.
    init(
        _ parameters: Parameters,
        pathNames: [String],
        placement: ParameterEncoding.Placement,
        options: ParameterEncodingOptions,
        encoder: JSONEncoder
    ) throws {
        switch parameters.storage {
        case .mixed:
            throw RequestProblemError(.mixedParameters)
        case .named(let named):
            var hasRest = false
            for case (let name, let value?) in named {
                if pathNames.contains(name) {
                    if pathValue(for: name) == nil {
                        pathValues.append((name, try Self.pathText(name, value, options)))
                    }
                } else {
                    hasRest = true
                }
            }
            guard hasRest else { return }
            if placement == .json {
                var writer = JSONWriter(dateStyle: options.dates)
                try writer.writeObject(
                    try named.compactMap { name, value in
                        guard let value, !pathNames.contains(name) else { return nil }
                        return (name, try ParameterValue.make(from: value, depth: 1))
                    }
                )
                setBody(Data(writer.bytes), contentType: Self.jsonContentType)
            } else {
                var pairs = QueryEncoder(options: options, spaceAsPlus: placement == .form, capacity: 16 * named.count)
                for case (let name, let value?) in named where !pathNames.contains(name) {
                    // The common scalar types skip ParameterValue; the text is the same.
                    if let text = value as? String {
                        pairs.add(name, text: text)
                    } else if let int = value as? Int {
                        pairs.add(name, text: String(int))
                    } else {
                        try pairs.add(name, try ParameterValue.make(from: value, depth: 1))
                    }
                }
                place(pairs, placement)
            }
        case .list(let list):
            guard !list.isEmpty else { return }
            guard placement == .json else { throw RequestProblemError(.unsupportedParameters) }
            var writer = JSONWriter(dateStyle: options.dates)
            try writer.write(.array(try list.map { try ParameterValue.make(from: $0, depth: 1) }))
            setBody(Data(writer.bytes), contentType: Self.jsonContentType)
        case .model(let model):
            if placement == .json, pathNames.isEmpty {
                // The configured encoder recurses without a limit and writes a NaN Decimal as `NaN`.
                try DepthProbe.check(model, for: encoder)
                setBody(try encoder.encode(model), contentType: Self.jsonContentType)
                return
            }
            // The tree encoder checks depth and NaN, so the configured encoder below meets a safe model.
            guard case .object(let members) = try ParameterValue.make(from: model, depth: 0) else {
                throw RequestProblemError(.unsupportedParameters)
            }
            var pairs = QueryEncoder(options: options, spaceAsPlus: placement == .form)
            for member in members {
                if pathNames.contains(member.key) {
                    if member.value != .null {
                        let text = try Self.pathText(member.key, member.value, options)
                        if let index = pathValues.firstIndex(where: { $0.name == member.key }) {
                            pathValues[index].text = text
                        } else {
                            pathValues.append((member.key, text))
                        }
                    }
                } else if placement != .json {
                    try pairs.add(member.key, member.value)
                }
            }
            if placement == .json {
                let body = try encoder.encode(KeyFilteringEncodable(model, excluding: Set(pathNames)))
                setBody(body, contentType: Self.jsonContentType)
            } else {
                place(pairs, placement)
            }
        }
    }

    /// The text for the path placeholder `name`, if the parameters have one.
    func pathValue(for name: String) -> String? {
        for entry in pathValues where entry.name == name { return entry.text }
        return nil
    }

    private mutating func setBody(_ data: Data, contentType: String) {
        body = .data(data)
        self.contentType = contentType
    }

    private mutating func place(_ pairs: QueryEncoder, _ placement: ParameterEncoding.Placement) {
        guard !pairs.isEmpty else { return }
        if placement == .form {
            setBody(Data(pairs.bytes), contentType: Self.formContentType)
        } else {
            query = pairs.text
        }
    }

    private static func pathText(
        _ name: String,
        _ value: any Encodable,
        _ options: ParameterEncodingOptions
    ) throws -> String {
        if let text = value as? String { return text }
        return try pathText(name, ParameterValue.make(from: value, depth: 0), options)
    }

    private static func pathText(
        _ name: String,
        _ value: ParameterValue,
        _ options: ParameterEncodingOptions
    ) throws -> String {
        if value == .null { throw RequestProblemError(.missingPathValue(name: name)) }
        guard let text = try value.scalarText(options) else {
            throw RequestProblemError(.unsupportedPathValue(name: name))
        }
        return text
    }
}
