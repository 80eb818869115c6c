/// Where flattened parameters go: `name=value` pairs, written by ``QueryEncoder`` into a query string or a form
/// body, or kept as text by ``TextFieldCollector`` (multipart fields, `EncodableParameters.textFields(_:)`).
///
/// The flattening — arrays, booleans, dates and `user[name]` nesting, by the options — is written once, in this
/// protocol's extension; a writer only says how one pair is kept.
protocol ParameterPairs {
    /// How arrays, booleans, dates and nested values are written.
    var options: ParameterEncodingOptions { get }
    /// Adds one pair.
    mutating func add(_ name: String, text: String)
    /// Adds one pair whose value is `texts` joined by `,` (``ParameterEncodingOptions/ArrayStyle/commaSeparated``);
    /// `texts` is not empty.
    mutating func add(_ name: String, commaSeparated texts: [String])
    /// Adds one pair whose value is a ``DelimitedValue``: its values encoded, its delimiters kept.
    mutating func add(_ name: String, delimited value: DelimitedValue)
}

extension ParameterPairs {
    /// Adds `value` under `name`, following the array, boolean, date and nesting options; `null` adds nothing.
    /// Recursive, but ``ParameterValue/make(from:depth:)`` bounds the depth of every value. Throws an
    /// `EncodingError` for a date that the date style cannot write.
    mutating func add(_ name: String, _ value: ParameterValue) throws {
        switch value {
        case .null:
            return
        case .array(let elements):
            try addArray(name, elements)
        case .object(let members):
            for member in members {
                try add(nestedName(name, member.key), member.value)
            }
        case .bool, .number, .string, .date:
            if let text = try value.scalarText(options) {
                add(name, text: text)
            }
        }
    }

    private mutating func addArray(_ name: String, _ elements: [ParameterValue]) throws {
        switch options.arrays {
        case .repeatedKeys:
            for element in elements { try add(name, element) }
        case .brackets:
            for element in elements { try add(name + "[]", element) }
        case .indexed:
            for (index, element) in elements.enumerated() { try add("\(name)[\(index)]", element) }
        case .commaSeparated:
            var texts: [String] = []
            texts.reserveCapacity(elements.count)
            for element in elements where element != .null {
                guard let text = try element.scalarText(options) else {
                    // Arrays of arrays or objects have no comma form; fall back to repeated keys.
                    for element in elements { try add(name, element) }
                    return
                }
                texts.append(text)
            }
            guard !texts.isEmpty else { return }
            add(name, commaSeparated: texts)
        }
    }

    private func nestedName(_ name: String, _ key: String) -> String {
        switch options.nesting {
        case .brackets: "\(name)[\(key)]"
        case .dotted: "\(name).\(key)"
        }
    }
}

/// Keeps flattened parameters as text, not percent-encoded: the fields of a multipart form.
struct TextFieldCollector: ParameterPairs {
    let options: ParameterEncodingOptions
    /// The pairs so far.
    private(set) var fields: [(name: String, value: String)] = []

    init(options: ParameterEncodingOptions) {
        self.options = options
    }

    mutating func add(_ name: String, text: String) {
        fields.append((name, text))
    }

    mutating func add(_ name: String, commaSeparated texts: [String]) {
        fields.append((name, texts.joined(separator: ",")))
    }

    mutating func add(_ name: String, delimited value: DelimitedValue) {
        fields.append((name, value.text))
    }
}
