/// The name of an HTTP header field. Names compare case-insensitively.
public struct HTTPHeaderName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The name as written, for example `"Content-Type"`.
    public let rawValue: String
    private let folded: String

    /// Creates a header name.
    public init(rawValue: String) {
        self.rawValue = rawValue
        self.folded = rawValue.lowercased()
    }

    /// Creates a header name from a string literal.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// The name as written.
    public var description: String { rawValue }

    /// Compares names case-insensitively.
    public static func == (lhs: HTTPHeaderName, rhs: HTTPHeaderName) -> Bool {
        lhs.folded == rhs.folded
    }

    /// Hashes the case-folded name.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(folded)
    }

    /// Whether the name is a valid RFC 9110 token (non-empty, no spaces, separators or control characters).
    var isValidToken: Bool {
        var name = rawValue
        return name.withUTF8 { bytes in
            !bytes.isEmpty
                && bytes.allSatisfy { byte in
                    switch byte {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"),
                        UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
                        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
                        UInt8(ascii: "|"), UInt8(ascii: "~"):
                        true
                    default:
                        false
                    }
                }
        }
    }

    /// `Accept`.
    public static let accept: HTTPHeaderName = "Accept"
    /// `Accept-Encoding`.
    static let acceptEncoding: HTTPHeaderName = "Accept-Encoding"
    /// `Accept-Language`.
    static let acceptLanguage: HTTPHeaderName = "Accept-Language"
    /// `Authorization`.
    public static let authorization: HTTPHeaderName = "Authorization"
    /// `Cache-Control`.
    static let cacheControl: HTTPHeaderName = "Cache-Control"
    /// `Content-Length`.
    public static let contentLength: HTTPHeaderName = "Content-Length"
    /// `Content-Type`.
    public static let contentType: HTTPHeaderName = "Content-Type"
    /// `Cookie`.
    public static let cookie: HTTPHeaderName = "Cookie"
    /// `ETag`.
    public static let eTag: HTTPHeaderName = "ETag"
    /// `If-None-Match`.
    public static let ifNoneMatch: HTTPHeaderName = "If-None-Match"
    /// `Location`.
    public static let location: HTTPHeaderName = "Location"
    /// `Proxy-Authorization`.
    static let proxyAuthorization: HTTPHeaderName = "Proxy-Authorization"
    /// `Retry-After`.
    static let retryAfter: HTTPHeaderName = "Retry-After"
    /// `Set-Cookie`.
    public static let setCookie: HTTPHeaderName = "Set-Cookie"
    /// `User-Agent`.
    public static let userAgent: HTTPHeaderName = "User-Agent"
}

/// An ordered list of HTTP header fields. A name may occur more than once; look-ups ignore case.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers.add(.cookie, "a=1")
/// headers[.authorization] = "Bearer token"
/// ```
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The field's name.
        public var name: HTTPHeaderName
        /// The field's value.
        public var value: String

        /// Creates a field.
        public init(name: HTTPHeaderName, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// Creates headers from fields.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Creates headers from a dictionary literal; a repeated name adds another field.
    public init(dictionaryLiteral elements: (HTTPHeaderName, String)...) {
        self.fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value for `name`; setting it replaces every field of that name (`nil` removes them).
    public subscript(name: HTTPHeaderName) -> String? {
        get { fields.first { $0.name == name }?.value }
        set {
            guard let newValue else {
                remove(name)
                return
            }
            if let index = fields.firstIndex(where: { $0.name == name }) {
                fields[index].value = newValue
                // Keep the first field's position; drop the later ones of the same name.
                fields = fields.enumerated().filter { $0.offset <= index || $0.element.name != name }.map(\.element)
            } else {
                fields.append(Field(name: name, value: newValue))
            }
        }
    }

    /// Every value for `name`, in order.
    public func values(for name: HTTPHeaderName) -> [String] {
        fields.compactMap { $0.name == name ? $0.value : nil }
    }

    /// Adds a field, keeping any existing fields of the same name.
    public mutating func add(_ name: HTTPHeaderName, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: HTTPHeaderName) {
        fields.removeAll { $0.name == name }
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: HTTPHeaderName) -> Bool {
        fields.contains { $0.name == name }
    }

    /// Replaces the fields of every name that `other` has with `other`'s fields, and appends the rest.
    public mutating func merge(_ other: HTTPHeaders) {
        guard !other.fields.isEmpty else { return }
        if fields.isEmpty {
            fields = other.fields
            return
        }
        // Header lists are short: a linear scan beats building a Set.
        fields.removeAll { field in other.fields.contains { $0.name == field.name } }
        fields.append(contentsOf: other.fields)
    }

    /// The values of two or more `Cookie` fields joined by `; `, as one field holds them; `nil` for one or none.
    var repeatedCookies: String? {
        var count = 0
        for field in fields where field.name == .cookie { count += 1 }
        return count > 1 ? values(for: .cookie).joined(separator: "; ") : nil
    }

    /// The name of the first field whose name is not a valid token or whose value holds CR, LF or NUL.
    var firstInvalidName: HTTPHeaderName? {
        fields.first { field in
            var value = field.value
            return !field.name.isValidToken
                || value.withUTF8 { bytes in bytes.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 } }
        }?.name
    }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// The header names only; values are never printed because they may hold credentials.
    public var description: String {
        "[" + fields.map(\.name.rawValue).joined(separator: ", ") + "]"
    }
}
