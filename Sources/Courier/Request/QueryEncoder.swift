/// Flattens parameter values into `name=value` pairs for a query string or a form body.
struct QueryEncoder {
    let options: ParameterEncodingOptions
    private(set) var pairs: [(name: String, value: String)] = []

    init(options: ParameterEncodingOptions) {
        self.options = options
    }

    /// Adds `value` under `name`, following the array, boolean, date and nesting options; `null` adds nothing.
    mutating func add(_ name: String, _ value: ParameterValue) {
        switch value {
        case .null:
            return
        case .array(let elements):
            addArray(name, elements)
        case .object(let members):
            for member in members {
                add(nestedName(name, member.key), member.value)
            }
        case .bool, .number, .string, .date:
            if let text = value.scalarText(options) {
                pairs.append((name, text))
            }
        }
    }

    /// Adds a string without going through ``ParameterValue``.
    mutating func add(_ name: String, text: String) {
        pairs.append((name, text))
    }

    private mutating func addArray(_ name: String, _ elements: [ParameterValue]) {
        switch options.arrays {
        case .repeatedKeys:
            for element in elements { add(name, element) }
        case .brackets:
            for element in elements { add(name + "[]", element) }
        case .indexed:
            for (index, element) in elements.enumerated() { add("\(name)[\(index)]", element) }
        case .commaSeparated:
            let texts = elements.compactMap { $0.scalarText(options) }
            if texts.count == elements.count(where: { $0 != .null }) {
                if !texts.isEmpty { pairs.append((name, texts.joined(separator: ","))) }
            } else {
                // Arrays of arrays or objects have no comma form; fall back to repeated keys.
                for element in elements { add(name, element) }
            }
        }
    }

    private func nestedName(_ name: String, _ key: String) -> String {
        switch options.nesting {
        case .brackets: "\(name)[\(key)]"
        case .dotted: "\(name).\(key)"
        }
    }

    /// The pairs as an RFC 3986 query string: every byte outside `A-Z a-z 0-9 - . _ ~` is percent-encoded.
    var queryString: String {
        pairs.map {
            PercentEncoding.encode($0.name, allowing: .unreserved) + "="
                + PercentEncoding.encode($0.value, allowing: .unreserved)
        }.joined(separator: "&")
    }

    /// The pairs as an `application/x-www-form-urlencoded` body: like the query string, but a space is `+`.
    var formBody: String {
        pairs.map {
            PercentEncoding.encode($0.name, allowing: .unreserved, spaceAsPlus: true) + "="
                + PercentEncoding.encode($0.value, allowing: .unreserved, spaceAsPlus: true)
        }.joined(separator: "&")
    }
}
