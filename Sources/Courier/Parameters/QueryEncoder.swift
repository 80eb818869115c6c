/// Writes flattened parameters (see ``ParameterPairs``) as `name=value` items, percent-encoded: a query's
/// ``EncodedQuery`` or, joined with `&`, an `application/x-www-form-urlencoded` body.
///
/// Every byte outside `A-Z a-z 0-9 - . _ ~` is percent-encoded; in a form body a space is `+`.
struct QueryEncoder: ParameterPairs {
    let options: ParameterEncodingOptions
    /// Whether a space is written as `+` (form bodies) rather than `%20` (query strings).
    let spaceAsPlus: Bool
    /// The encoded items so far.
    private(set) var query = EncodedQuery()

    init(options: ParameterEncodingOptions, spaceAsPlus: Bool, capacity: Int = 0) {
        self.options = options
        self.spaceAsPlus = spaceAsPlus
        query.reserveCapacity(items: capacity, bytes: capacity * 16)
    }

    /// Whether no pair was added.
    var isEmpty: Bool { query.isEmpty }

    /// Adds a string without going through ``ParameterValue``.
    mutating func add(_ name: String, text: String) {
        let spaceAsPlus = spaceAsPlus
        append(name) { bytes in
            PercentEncoding.append(text, allowing: .unreserved, spaceAsPlus: spaceAsPlus, to: &bytes)
        }
    }

    /// Each element is encoded on its own, so a `,` inside one is `%2C`; only the separators are `,`.
    mutating func add(_ name: String, commaSeparated texts: [String]) {
        let spaceAsPlus = spaceAsPlus
        append(name) { bytes in
            for (index, text) in texts.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                PercentEncoding.append(text, allowing: .unreserved, spaceAsPlus: spaceAsPlus, to: &bytes)
            }
        }
    }

    /// The values are encoded (a space as `+` in a form body), the delimiters kept.
    mutating func add(_ name: String, delimited value: DelimitedValue) {
        let encoded = value.encoded(spaceAsPlus: spaceAsPlus)
        append(name) { bytes in bytes.append(contentsOf: encoded.utf8) }
    }

    /// Appends the item of `name`, encoded here, with the value `value` writes, straight into the query's buffer.
    private mutating func append(_ name: String, value: (inout [UInt8]) -> Void) {
        let spaceAsPlus = spaceAsPlus
        query.appendItem { bytes in
            PercentEncoding.append(name, allowing: .unreserved, spaceAsPlus: spaceAsPlus, to: &bytes)
            return bytes.count
        } value: { bytes in
            value(&bytes)
            return true
        }
    }
}
