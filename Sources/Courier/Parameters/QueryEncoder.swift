/// Writes flattened parameters (see ``ParameterPairs``) as `name=value` pairs, percent-encoded and joined with `&`:
/// a query string or an `application/x-www-form-urlencoded` body.
///
/// Every byte outside `A-Z a-z 0-9 - . _ ~` is percent-encoded; in a form body a space is `+`.
struct QueryEncoder: ParameterPairs {
    let options: ParameterEncodingOptions
    /// Whether a space is written as `+` (form bodies) rather than `%20` (query strings).
    let spaceAsPlus: Bool
    /// The encoded pairs so far.
    private(set) var bytes: [UInt8] = []
    /// Whether no pair was added.
    private(set) var isEmpty = true

    init(options: ParameterEncodingOptions, spaceAsPlus: Bool, capacity: Int = 0) {
        self.options = options
        self.spaceAsPlus = spaceAsPlus
        bytes.reserveCapacity(capacity)
    }

    /// The encoded pairs as text.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Adds a string without going through ``ParameterValue``.
    mutating func add(_ name: String, text: String) {
        startPair(name)
        PercentEncoding.append(text, allowing: .unreserved, spaceAsPlus: spaceAsPlus, to: &bytes)
    }

    /// Each element is encoded on its own, so a `,` inside one is `%2C`; only the separators are `,`.
    mutating func add(_ name: String, commaSeparated texts: [String]) {
        startPair(name)
        for (index, text) in texts.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            PercentEncoding.append(text, allowing: .unreserved, spaceAsPlus: spaceAsPlus, to: &bytes)
        }
    }

    /// The values are encoded (a space as `+` in a form body), the delimiters kept.
    mutating func add(_ name: String, delimited value: DelimitedValue) {
        startPair(name)
        bytes.append(contentsOf: value.encoded(spaceAsPlus: spaceAsPlus).utf8)
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
}
