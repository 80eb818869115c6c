import Foundation

/// Parameters split into path values and a query string or body, following the endpoint's placement.
struct PlacedParameters {
    private(set) var pathValues: [String: String] = [:]
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
            var rest = named
            if !pathNames.isEmpty {
                rest = []
                for entry in named {
                    if pathNames.contains(entry.name) {
                        if pathValues[entry.name] == nil {
                            pathValues[entry.name] = try Self.pathText(entry.name, entry.value, options)
                        }
                    } else {
                        rest.append(entry)
                    }
                }
            }
            guard !rest.isEmpty else { return }
            if placement == .json {
                var writer = JSONWriter(dateStyle: options.dates)
                writer.writeObject(try rest.map { ($0.name, try ParameterValue.make(from: $0.value)) })
                setBody(Data(writer.bytes), contentType: Self.jsonContentType)
            } else {
                var pairs = QueryEncoder(options: options)
                for entry in rest {
                    if let text = entry.value as? String {
                        pairs.add(entry.name, text: text)
                    } else {
                        pairs.add(entry.name, try ParameterValue.make(from: entry.value))
                    }
                }
                place(pairs, placement)
            }
        case .list(let list):
            guard !list.isEmpty else { return }
            guard placement == .json else { throw RequestProblemError(.unsupportedParameters) }
            var writer = JSONWriter(dateStyle: options.dates)
            writer.write(.array(try list.map { try ParameterValue.make(from: $0) }))
            setBody(Data(writer.bytes), contentType: Self.jsonContentType)
        case .model(let model):
            if placement == .json, pathNames.isEmpty {
                setBody(try encoder.encode(model), contentType: Self.jsonContentType)
                return
            }
            guard case .object(let members) = try ParameterValue.make(from: model) else {
                throw RequestProblemError(.unsupportedParameters)
            }
            var pairs = QueryEncoder(options: options)
            for member in members {
                if pathNames.contains(member.key) {
                    if member.value != .null {
                        pathValues[member.key] = try Self.pathText(member.key, member.value, options)
                    }
                } else if placement != .json {
                    pairs.add(member.key, member.value)
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

    private mutating func setBody(_ data: Data, contentType: String) {
        body = .data(data)
        self.contentType = contentType
    }

    private mutating func place(_ pairs: QueryEncoder, _ placement: ParameterEncoding.Placement) {
        guard !pairs.pairs.isEmpty else { return }
        if placement == .form {
            setBody(Data(pairs.formBody.utf8), contentType: Self.formContentType)
        } else {
            query = pairs.queryString
        }
    }

    private static func pathText(
        _ name: String,
        _ value: any Encodable,
        _ options: ParameterEncodingOptions
    ) throws -> String {
        if let text = value as? String { return text }
        return try pathText(name, ParameterValue.make(from: value), options)
    }

    private static func pathText(
        _ name: String,
        _ value: ParameterValue,
        _ options: ParameterEncodingOptions
    ) throws -> String {
        if value == .null { throw RequestProblemError(.missingPathValue(name: name)) }
        guard let text = value.scalarText(options) else {
            throw RequestProblemError(.unsupportedPathValue(name: name))
        }
        return text
    }
}
