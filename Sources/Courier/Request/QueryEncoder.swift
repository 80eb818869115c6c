/// Flattens parameter values into `name=value` pairs and writes them, percent-encoded and joined with `&`,
/// as a query string or an `application/x-www-form-urlencoded` body.
///
/// Every byte outside `A-Z a-z 0-9 - . _ ~` is percent-encoded; in a form body a space is `+`.
struct QueryEncoder {
    let options: ParameterEncodingOptions
    /// Whether a space is written as `+` (form bodies) rather than `%20` (query strings).
    let spaceAsPlus: Bool
    /// The encoded pairs so far.
    private(set) var bytes: [UInt8] = []
    /// Whether no pair was added.
    private(set) var isEmpty = true
    /// Whether pairs are kept as text in ``fields`` instead of being percent-encoded into ``bytes``.
    let collectingFields: Bool
    /// The pairs so far, not encoded, when ``collectingFields``.
    private(set) var fields: [(name: String, value: String)] = []

    init(options: ParameterEncodingOptions, spaceAsPlus: Bool, capacity: Int = 0, collectingFields: Bool = false) {
        self.options = options
        self.spaceAsPlus = spaceAsPlus
        self.collectingFields = collectingFields
        bytes.reserveCapacity(capacity)
    }

    /// The encoded pairs as text.
    var text: String { String(decoding: bytes, as: UTF8.self) }

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

    /// Adds a string without going through ``ParameterValue``.
    mutating func add(_ name: String, text: String) {
        if collectingFields {
            isEmpty = false
            fields.append((name, text))
            return
        }
        startPair(name)
        PercentEncoding.append(text, allowing: .unreserved, spaceAsPlus: spaceAsPlus, to: &bytes)
    }

    /// Writes the separator, the encoded name and `=`.
    private mutating func startPair(_ name: String) {
        if isEmpty {
            isEmpty = false
        } else {
            bytes.append(UInt8(ascii: "&"))
        }
        PercentEncoding.append(name, allowing: .unreserved, spaceAsPlus: spaceAsPlus, to: &bytes)
        bytes.append(UInt8(ascii: "="))
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
            if collectingFields { return add(name, text: texts.joined(separator: ",")) }
            // Each element is encoded on its own, so a `,` inside one is `%2C`; only the separators are `,`.
            startPair(name)
            for (index, text) in texts.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                PercentEncoding.append(text, allowing: .unreserved, spaceAsPlus: spaceAsPlus, to: &bytes)
            }
        }
    }

    private func nestedName(_ name: String, _ key: String) -> String {
        switch options.nesting {
        case .brackets: "\(name)[\(key)]"
        case .dotted: "\(name).\(key)"
        }
    }
}
