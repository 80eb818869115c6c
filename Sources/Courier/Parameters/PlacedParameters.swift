import Foundation

/// Parameters split into path values, query names and the rest, which the endpoint's `ParameterEncoder` writes.
struct PlacedParameters {
    /// The text of each path placeholder, first value wins; a list, as templates have few placeholders.
    private var pathValues: [(name: String, text: PathTemplate.Value)] = []
    /// The query items the parameters make (``QueryParameterEncoder/query(of:options:)``, the one writer).
    private(set) var query = EncodedQuery()
    private(set) var body = RequestBody.empty
    private(set) var contentType: String?

    /// Throws ``RequestProblemError`` for shape problems and `EncodingError` (or the encoder's own error) for
    /// unencodable values.
    init(
        _ parameters: Parameters,
        pathNames: [String],
        encoding: ParameterEncoding,
        context: ParameterEncodingContext
    ) throws {
        let options = context.options
        let queryNames = encoding.queryNames
        switch parameters.storage {
        case .mixed:
            throw RequestProblemError(.mixedParameters)
        case .body(let body, let contentType, let named):
            try takePathValues(named, pathNames, options)
            query = try QueryParameterEncoder.query(
                of: EncodableParameters(.named(named), excluding: pathNames), options: options)
            self.body = body
            self.contentType = contentType
        case .named(let named):
            guard try takePathValues(named, pathNames, options) else { return }
            if !queryNames.isEmpty {
                query = try QueryParameterEncoder.query(
                    of: EncodableParameters(.named(named), excluding: pathNames, only: queryNames), options: options)
            }
            try encode(EncodableParameters(.named(named), excluding: pathNames + queryNames), encoding, context)
        case .list(let list):
            guard !list.isEmpty else { return }
            try encode(EncodableParameters(.list(list), excluding: []), encoding, context)
        case .model(let model):
            if !pathNames.isEmpty {
                // The tree encoder checks depth and NaN, so the encoders below meet a safe model.
                guard case .object(let members) = try ParameterValue.make(from: model, depth: 0) else {
                    throw RequestProblemError(.unsupportedParameters)
                }
                for member in members where pathNames.contains(member.key) {
                    guard member.value != .null else { continue }
                    let text = PathTemplate.Value.text(try Self.pathText(member.key, member.value, options))
                    if let index = pathValues.firstIndex(where: { $0.name == member.key }) {
                        pathValues[index].text = text
                    } else {
                        pathValues.append((member.key, text))
                    }
                }
            }
            if !queryNames.isEmpty {
                query = try QueryParameterEncoder.query(
                    of: EncodableParameters(.model(model), excluding: pathNames, only: queryNames), options: options)
            }
            try encode(EncodableParameters(.model(model), excluding: pathNames + queryNames), encoding, context)
        }
    }

    /// Takes the path values from named parameters; returns whether any other name has a value.
    @discardableResult
    private mutating func takePathValues(
        _ named: [(String, Parameters.Value)],
        _ pathNames: [String],
        _ options: ParameterEncodingOptions
    ) throws -> Bool {
        // Without placeholders, any value is the rest; finding the first copies less than a whole pass, which
        // copies every pair (name and existential value) through the runtime's generic tuple witness.
        if pathNames.isEmpty { return named.contains { $0.1 != nil } }
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
        return hasRest
    }

    /// Runs the encoder and places what it wrote.
    private mutating func encode(
        _ parameters: EncodableParameters,
        _ encoding: ParameterEncoding,
        _ context: ParameterEncodingContext
    ) throws {
        let encoded = try encoding.encoder.encode(parameters, context: context)
        if let encodedQuery = encoded.queryItems { query.append(encodedQuery) }
        if encoded.body.storage != .empty || encoded.contentType != nil {
            body = encoded.body
            contentType = encoded.contentType
        }
    }

    /// The text for the path placeholder `name`, if the parameters have one.
    func pathValue(for name: String) -> PathTemplate.Value? {
        for entry in pathValues where entry.name == name { return entry.text }
        return nil
    }

    private static func pathText(
        _ name: String,
        _ value: any Encodable,
        _ options: ParameterEncodingOptions
    ) throws -> PathTemplate.Value {
        if let text = value as? String { return .text(text) }
        if let delimited = value as? DelimitedValue { return .encoded(delimited.encoded()) }
        return .text(try pathText(name, ParameterValue.make(from: value, depth: 0), options))
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
