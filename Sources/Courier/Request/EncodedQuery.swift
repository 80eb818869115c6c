import Foundation

/// A URL's query as items, percent-encoded as written: the one reader and writer of query strings that
/// ``APIRequest/queryItems``, the cache key, the redactor and pagination share, instead of each parsing the URL
/// with its own rules.
///
/// It reads the URL the request holds now, so an item a plugin added or removed by editing ``APIRequest/url`` is
/// seen. Items split on `&`, names from values on the first `=`; an item without `=` has no value; `+` stays `+`
/// (as `URLComponents` reads it).
struct EncodedQuery: Equatable {
    /// One `name=value` item, both percent-encoded as they stand in the URL.
    struct Item: Equatable {
        /// The name, percent-encoded.
        var name: Substring
        /// The value, percent-encoded; `nil` for an item without `=`.
        var value: Substring?

        /// The name without percent-encoding (as written when it does not decode).
        var decodedName: String { EncodedQuery.decoded(name) }
        /// The value without percent-encoding (as written when it does not decode).
        var decodedValue: String? { value.map(EncodedQuery.decoded) }
    }

    /// The items in order.
    var items: [Item]

    /// The items of `url`'s query (before any fragment); none when it has no `?`.
    init(_ url: URL) {
        let text = url.absoluteString
        let end = text.firstIndex(of: "#") ?? text.endIndex
        let question = text[..<end].firstIndex(of: "?")
        self.init(query: question.map { text[text.index(after: $0)..<end] } ?? "")
    }

    /// The items of a query string (without its `?`).
    init(query: Substring) {
        items =
            query.isEmpty
            ? []
            : query.split(separator: "&", omittingEmptySubsequences: false).map { piece in
                if let equals = piece.firstIndex(of: "=") {
                    return Item(name: piece[..<equals], value: piece[piece.index(after: equals)...])
                }
                return Item(name: piece, value: nil)
            }
    }

    /// The query string: the items joined with `&`.
    var text: String {
        items.map { item in item.value.map { item.name + "=" + $0 } ?? String(item.name) }.joined(separator: "&")
    }

    /// `url` with this query in place of its own (no `?` when there are no items); the fragment is kept.
    /// `nil` when the result is not a URL.
    func replacingQuery(of url: URL) -> URL? {
        let text = url.absoluteString
        let fragmentStart = text.firstIndex(of: "#") ?? text.endIndex
        let head = text[..<fragmentStart].firstIndex(of: "?").map { text[..<$0] } ?? text[..<fragmentStart]
        let query = items.isEmpty ? "" : "?" + self.text
        return URL(string: head + query + text[fragmentStart...])
    }

    static func decoded(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }
}
