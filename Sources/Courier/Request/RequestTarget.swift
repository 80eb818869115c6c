import Foundation

/// Where a request goes: its URL, built once, and — for a URL Courier built — the parts it was built from: the text
/// before the query (scheme, authority, path) and the query's items (``EncodedQuery``). A change of the query makes
/// a new target from the parts, so nothing reads a query back out of a URL Courier wrote.
///
/// A URL the user assigns to ``APIRequest/url`` (the next page from a `Link` header, a redirect's `Location`) did not
/// come from Courier: its parts are read from its text when they are needed.
///
/// Immutable and shared: a request is copied through every plugin and layer, and one reference copies as cheaply as
/// the `URL` it replaces.
final class RequestTarget: Sendable {
    /// The URL.
    let url: URL
    /// The parts of a URL Courier built: its text, the length in UTF-8 bytes of the part before the query, and the
    /// query. `nil` for a URL the user assigned.
    private let built: (text: String, headCount: Int, query: EncodedQuery)?

    /// A target for a URL from outside Courier.
    init(url: URL) {
        self.url = url
        self.built = nil
    }

    private init(url: URL, text: String, headCount: Int, query: EncodedQuery) {
        self.url = url
        self.built = (text, headCount, query)
    }

    /// The target of `head` (scheme, authority and path, percent-encoded, without `?` or `#`) with `query`, then
    /// `tail` (a fragment with its `#`, or nothing); `nil` when the text is not a URL.
    static func make(head: Substring, query: EncodedQuery, tail: Substring = "") -> RequestTarget? {
        var text = String(head)
        if !query.isEmpty {
            text.reserveCapacity(head.utf8.count + 1 + query.utf8Count + tail.utf8.count)
            text += "?"
            text += query.text
        }
        text += tail
        return make(text: text, headCount: head.utf8.count, query: query)
    }

    /// The target of `text`, a URL whose first `headCount` UTF-8 bytes come before its query `query` (written after
    /// them as ``EncodedQuery/text``); `nil` when the text is not a URL.
    static func make(text: String, headCount: Int, query: EncodedQuery) -> RequestTarget? {
        guard let url = URL(string: text) else { return nil }
        return RequestTarget(url: url, text: text, headCount: headCount, query: query)
    }

    /// The query's items.
    var query: EncodedQuery {
        built?.query ?? parts.query
    }

    /// The text before the query (scheme, authority and path) of a URL Courier built; `nil` for a URL the user
    /// assigned.
    var head: Substring? {
        built.map { Substring($0.text.utf8.prefix($0.headCount)) }
    }

    /// The percent-encoded path of a URL Courier built (what follows the authority in ``head``); `nil` for a URL the
    /// user assigned.
    var path: String? {
        guard let head else { return nil }
        guard let scheme = head.range(of: "://") else { return String(head) }
        return String(head[scheme.upperBound...].drop { $0 != "/" })
    }

    /// This target with `query` in place of its own; the fragment of a URL the user assigned is kept. `nil` when the
    /// result is not a URL.
    func replacingQuery(with query: EncodedQuery) -> RequestTarget? {
        if let head { return Self.make(head: head, query: query) }
        let parts = parts
        return Self.make(head: parts.head, query: query, tail: parts.tail)
    }

    /// The parts of a URL from outside Courier, read from its text: before the query, the query, and the fragment
    /// with its `#`.
    private var parts: (head: Substring, query: EncodedQuery, tail: Substring) {
        let text = url.absoluteString
        let fragmentStart = text.firstIndex(of: "#") ?? text.endIndex
        guard let question = text[..<fragmentStart].firstIndex(of: "?") else {
            return (text[..<fragmentStart], EncodedQuery(), text[fragmentStart...])
        }
        return (
            text[..<question], EncodedQuery(parsing: text[text.index(after: question)..<fragmentStart]),
            text[fragmentStart...]
        )
    }
}
