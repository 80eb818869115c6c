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
        query.items.reserveCapacity(capacity)
    }

    /// Whether no pair was added.
    var isEmpty: Bool { query.isEmpty }

    /// Adds a string without going through ``ParameterValue``.
    mutating func add(_ name: String, text: String) {
        append(name, PercentEncoding.encode(text, allowing: .unreserved, spaceAsPlus: spaceAsPlus))
    }

    /// Each element is encoded on its own, so a `,` inside one is `%2C`; only the separators are `,`.
    mutating func add(_ name: String, commaSeparated texts: [String]) {
        var value = ""
        for (index, text) in texts.enumerated() {
            if index > 0 { value += "," }
            PercentEncoding.append(text, allowing: .unreserved, spaceAsPlus: spaceAsPlus, to: &value)
        }
        append(name, value)
    }

    /// The values are encoded (a space as `+` in a form body), the delimiters kept.
    mutating func add(_ name: String, delimited value: DelimitedValue) {
        append(name, value.encoded(spaceAsPlus: spaceAsPlus))
    }

    /// Appends the item of `name`, encoded here, and `value`, already encoded.
    private mutating func append(_ name: String, _ value: String) {
        query.items.append(
            EncodedQuery.Item(
                encodedName: PercentEncoding.encode(name, allowing: .unreserved, spaceAsPlus: spaceAsPlus),
                encodedValue: value))
    }
}
