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

    /// The items in order.
    var items: [Item]

    /// A query of `items`.
    init(_ items: [Item] = []) {
        self.items = items
    }

    /// The items of a query string that came from outside Courier (without its `?`).
    init(parsing query: Substring) {
        items =
            query.isEmpty
            ? []
            : query.split(separator: "&", omittingEmptySubsequences: false).map { piece in
                if let equals = piece.firstIndex(of: "=") {
                    return Item(
                        encodedName: String(piece[..<equals]),
                        encodedValue: String(piece[piece.index(after: equals)...]))
                }
                return Item(encodedName: String(piece), encodedValue: nil)
            }
    }

    /// Whether there is no item.
    var isEmpty: Bool { items.isEmpty }

    /// Appends the items of `other`.
    mutating func append(_ other: EncodedQuery) {
        if items.isEmpty { items = other.items } else { items += other.items }
    }

    /// The query string: the items joined with `&`, without a `?`.
    var text: String {
        var text = ""
        text.reserveCapacity(utf8Count)
        for (index, item) in items.enumerated() {
            if index > 0 { text += "&" }
            text += item.name
            if let value = item.value {
                text += "="
                text += value
            }
        }
        return text
    }

    /// Hands ``text`` over piece by piece: the UTF-8 bytes of each name and value, and the `=` and `&` between them.
    func write(_ bytes: (UnsafeBufferPointer<UInt8>) -> Void, separator: (UInt8) -> Void) {
        for (index, item) in items.enumerated() {
            if index > 0 { separator(UInt8(ascii: "&")) }
            var name = item.name
            name.withUTF8(bytes)
            if var value = item.value {
                separator(UInt8(ascii: "="))
                value.withUTF8(bytes)
            }
        }
    }

    /// The length of ``text`` in UTF-8 bytes.
    var utf8Count: Int {
        var count = items.isEmpty ? 0 : items.count - 1
        for item in items { count += item.name.utf8.count + (item.value.map { $0.utf8.count + 1 } ?? 0) }
        return count
    }

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
