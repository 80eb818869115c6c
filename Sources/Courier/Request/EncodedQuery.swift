import Foundation

/// A request's query as items, each percent-encoded as it goes on the wire: what the parameters, the endpoint's
/// static query and the base URL's own query make, kept as items from the encoder to the executor. The request
/// builds its URL from them once (``RequestTarget``); ``APIRequest/queryItems``, plugins, the cache key, the
/// redactor and pagination read and change the items, never the URL's text.
///
/// Text is read into items only where it comes from outside Courier: a static query the endpoint's author wrote, a
/// base URL's query, a URL the user assigns to ``APIRequest/url``, the `query` a ``ParameterEncoder`` of the user's
/// returns. There, items split on `&`, names from values on the first `=`; an item without `=` has no value; `+`
/// stays `+` (as `URLComponents` reads it).
struct EncodedQuery: Sendable, Equatable {
    /// One `name=value` item, both percent-encoded as they stand in the URL.
    struct Item: Sendable, Equatable {
        /// The name, percent-encoded.
        var name: String
        /// The value, percent-encoded; `nil` for an item without `=`.
        var value: String?

        /// An item already percent-encoded.
        init(encodedName: String, encodedValue: String?) {
            self.name = encodedName
            self.value = encodedValue
        }

        /// An item from text, percent-encoded with the query rule (every byte outside `A-Z a-z 0-9 - . _ ~`).
        init(name: String, value: String?) {
            self.name = PercentEncoding.encode(name, allowing: .unreserved)
            self.value = value.map { PercentEncoding.encode($0, allowing: .unreserved) }
        }

        /// The name without percent-encoding (as written when it does not decode).
        var decodedName: String { EncodedQuery.decoded(name) }
        /// The value without percent-encoding (as written when it does not decode).
        var decodedValue: String? { value.map(EncodedQuery.decoded) }
    }

    /// Where each item lies in ``bytes``, recorded as it is written (never found by splitting the text).
    struct Mark: Equatable {
        /// The end of the name.
        var nameEnd: Int
        /// The end of the item; a value lies between `nameEnd + 1` and here when `hasValue`.
        var end: Int
        /// Whether the item has a value (`name=value`, `name=`), not only a name.
        var hasValue: Bool
    }

    /// The items as they go on the wire, joined with `&`: one buffer, as cheap to keep and copy as the text.
    private(set) var bytes: [UInt8] = []
    /// Each item's place in ``bytes``, in order.
    private(set) var marks: [Mark] = []

    /// An empty query.
    init() {}

    /// A query of `items`.
    init(_ items: [Item]) {
        self.items = items
    }

    /// The items of a query string that came from outside Courier (without its `?`).
    init(parsing query: Substring) {
        guard !query.isEmpty else { return }
        for piece in query.split(separator: "&", omittingEmptySubsequences: false) {
            if let equals = piece.firstIndex(of: "=") {
                append(encodedName: piece[..<equals].utf8, encodedValue: piece[piece.index(after: equals)...].utf8)
            } else {
                append(encodedName: piece.utf8, encodedValue: nil as Substring.UTF8View?)
            }
        }
    }

    /// The items in order; setting them rewrites the query.
    var items: [Item] {
        get {
            marks.indices.map { index in
                let mark = marks[index]
                let start = index == 0 ? 0 : marks[index - 1].end + 1
                return Item(
                    encodedName: String(decoding: bytes[start..<mark.nameEnd], as: UTF8.self),
                    encodedValue: mark.hasValue
                        ? String(decoding: bytes[(mark.nameEnd + 1)..<mark.end], as: UTF8.self) : nil)
            }
        }
        set {
            bytes = []
            marks = []
            for item in newValue { append(encodedName: item.name.utf8, encodedValue: item.value?.utf8) }
        }
    }

    /// Whether there is no item.
    var isEmpty: Bool { marks.isEmpty }

    /// Reserves room for `count` items.
    mutating func reserveCapacity(items count: Int, bytes byteCount: Int) {
        marks.reserveCapacity(count)
        bytes.reserveCapacity(byteCount)
    }

    /// Appends one item, its name and value already percent-encoded.
    mutating func append(encodedName name: some Collection<UInt8>, encodedValue value: (some Collection<UInt8>)?) {
        appendItem { bytes in
            bytes.append(contentsOf: name)
            return bytes.count
        } value: { bytes in
            guard let value else { return false }
            bytes.append(contentsOf: value)
            return true
        }
    }

    /// Appends one item written in place: `name` writes the encoded name to the buffer and returns where it ends;
    /// `value` writes the encoded value (after the `=` written here) and returns whether there is one.
    mutating func appendItem(
        name: (inout [UInt8]) -> Int, value: (inout [UInt8]) -> Bool
    ) {
        if !marks.isEmpty { bytes.append(UInt8(ascii: "&")) }
        let nameEnd = name(&bytes)
        bytes.append(UInt8(ascii: "="))
        let hasValue = value(&bytes)
        if !hasValue { bytes.removeLast() }
        marks.append(Mark(nameEnd: nameEnd, end: bytes.count, hasValue: hasValue))
    }

    /// Appends the items of `other`.
    mutating func append(_ other: EncodedQuery) {
        guard !other.isEmpty else { return }
        guard !isEmpty else {
            self = other
            return
        }
        bytes.append(UInt8(ascii: "&"))
        let offset = bytes.count
        bytes += other.bytes
        marks += other.marks.map { Mark(nameEnd: $0.nameEnd + offset, end: $0.end + offset, hasValue: $0.hasValue) }
    }

    /// The query string: the items joined with `&`, without a `?`.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The length of ``text`` in UTF-8 bytes.
    var utf8Count: Int { bytes.count }

    /// The items with `URLQueryItem`'s names and values: percent-decoded.
    var decodedItems: [URLQueryItem] {
        items.map { URLQueryItem(name: $0.decodedName, value: $0.decodedValue) }
    }

    /// `decoded` as items: an item that decodes to the same name and value as the one at its position here keeps its
    /// encoding (a static query's `,` stays `,`); the others are encoded with the query rule.
    func replacing(with decoded: [URLQueryItem]) -> EncodedQuery {
        EncodedQuery(
            decoded.enumerated().map { index, item in
                if index < items.count, items[index].decodedName == item.name, items[index].decodedValue == item.value {
                    return items[index]
                }
                return Item(name: item.name, value: item.value)
            })
    }

    static func decoded(_ text: String) -> String {
        text.removingPercentEncoding ?? text
    }
}
