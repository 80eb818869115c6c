import Foundation

/// How a paginated list names its next page: a `Link` header, a header holding a URL, a cursor in the body,
/// or a rule of your own. ``API/pages(with:as:next:using:decoder:)`` follows it until it names none.
public struct NextPage<Page>: Sendable {
    /// Returns the next page's request from the current page and the request that fetched it; `nil` ends.
    let request: @Sendable (DecodedResponse<Page>, APIRequest) -> APIRequest?

    /// A rule of your own: the URL of the next page (resolved against the current page's URL when relative),
    /// or `nil` when there is none. The request keeps everything else (headers, endpoint) of the first one.
    public init(_ nextURL: @escaping @Sendable (DecodedResponse<Page>) -> URL?) {
        self.request = { page, sent in
            guard let url = nextURL(page) else { return nil }
            var next = sent
            next.url = URL(string: url.absoluteString, relativeTo: page.url ?? sent.url)?.absoluteURL ?? url
            return next
        }
    }

    init(request: @escaping @Sendable (DecodedResponse<Page>, APIRequest) -> APIRequest?) {
        self.request = request
    }

    /// The RFC 8288 `Link` header's target with `rel="next"` (GitHub, GitLab and most REST APIs):
    /// `Link: <https://api.example.com/items?page=2>; rel="next", <…>; rel="last"`.
    public static var link: NextPage {
        NextPage { page in LinkHeader.target(of: "next", in: page.headers.values(for: "Link")) }
    }

    /// A header whose value is the next page's URL, absolute or relative: `.header("Next-Page")`.
    public static func header(_ name: HTTPHeaderName) -> NextPage {
        NextPage { page in
            guard let value = page.headers[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
                return nil
            }
            return URL(string: value)
        }
    }

    /// A cursor read from the decoded page, sent as the query item `name` of the first page's URL (replacing
    /// it when present); `nil` or an empty cursor ends the list:
    /// `.cursor(as: "cursor") { $0.nextCursor }`.
    public static func cursor(as name: String, _ cursor: @escaping @Sendable (Page) -> String?) -> NextPage {
        NextPage { page, sent in
            guard let value = cursor(page.value), !value.isEmpty else { return nil }
            var next = sent
            next.encodedQuery.items.removeAll { $0.decodedName == name }
            next.encodedQuery.items.append(EncodedQuery.Item(name: name, value: value))
            return next
        }
    }
}

/// Fetches the pages of a paginated list one at a time, as the loop asks for them (the source of the sequence
/// ``API/pages(with:as:next:using:decoder:)`` returns).
struct PageReader<Page: Decodable>: APISequenceSource {
    struct Start: Sendable {
        let first: Result<APIRequest, APIError>
        let next: NextPage<Page>
        let configuration: APIConfiguration
        let decoder: (any ResponseDecoder)?
    }

    let start: Start
    var pending: APIRequest?
    var started = false

    /// The next page, `nil` after the last.
    mutating func next() async throws(APIError) -> Page? {
        if !started {
            started = true
            pending = try start.first.get()
        }
        guard let request = pending else { return nil }
        pending = nil
        let page: DecodedResponse<Page> = try await request.send(
            using: start.configuration, decoder: start.decoder)
        if let following = start.next.request(page, request), following.url != request.url {
            pending = following
        }
        return page.value
    }
}

extension API {
    /// The pages of a paginated list, starting with the call with `parameter` and following `next` until it
    /// names no next page:
    ///
    /// ```swift
    /// for try await repos in GitHub.$repos.pages(with: "apple", as: [Repo].self) {   // Link: rel="next"
    ///     all += repos
    /// }
    /// let feed = Feed.$items.pages(as: ItemPage.self, next: .cursor(as: "cursor") { $0.nextCursor })
    /// let list = Store.$list.pages(as: [Item].self, next: .header("Next-Page"))
    /// ```
    ///
    /// Every page goes through the pipeline of any call (plugins, status validation, decoding) and fails with
    /// an ``APIError``. The work runs in the task that iterates: cancelling it, or leaving the loop, stops the
    /// list; no page is fetched before it is asked for. A next page whose URL is the current one ends the list.
    ///
    /// - Parameters:
    ///   - parameter: The first call's parameter.
    ///   - type: The type of one page.
    ///   - next: How a page names the next one; RFC 8288 `Link` `rel="next"` by default.
    ///   - configuration: The configuration for every page; `nil` for ``APIConfiguration/current``.
    ///   - decoder: Decodes each page; `nil` for the endpoint's decoder, else the configuration's.
    public func pages<Page: Decodable & SendableMetatype>(
        with parameter: Parameter,
        as type: Page.Type = Page.self,
        next: NextPage<Page> = .link,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) -> APISequence<Page> {
        let configuration = configuration ?? .current
        // Built now (no I/O); a definition error is thrown by the first `next()`.
        let first = Result { () throws(APIError) in try makeRequest(with: parameter, using: configuration) }
        let start = PageReader.Start(first: first, next: next, configuration: configuration, decoder: decoder)
        return APISequence { PageReader(start: start) }
    }
}

extension API where Parameter == Void {
    /// The pages of a paginated list without parameters; see ``pages(with:as:next:using:decoder:)``.
    public func pages<Page: Decodable & SendableMetatype>(
        as type: Page.Type = Page.self,
        next: NextPage<Page> = .link,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) -> APISequence<Page> {
        pages(with: (), as: type, next: next, using: configuration, decoder: decoder)
    }
}

/// RFC 8288 `Link` header values.
enum LinkHeader {
    /// The target of the first link whose `rel` lists `relation` (case-insensitive), across every field.
    static func target(of relation: String, in fields: [String]) -> URL? {
        for field in fields {
            for link in links(in: field) where link.relations.contains(relation.lowercased()) {
                return URL(string: link.target)
            }
        }
        return nil
    }

    /// The links of one field value: `<target>; param=value; param="quoted, value", <target2>; …`.
    static func links(in field: String) -> [(target: String, relations: [String])] {
        var links: [(target: String, relations: [String])] = []
        var rest = Substring(field)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let target = String(rest[rest.index(after: open)..<close])
            rest = rest[rest.index(after: close)...]
            // The parameters run to the next `,` outside quotes.
            var relations: [String] = []
            var parameters = ""
            var inQuotes = false
            var end = rest.endIndex
            for index in rest.indices {
                let character = rest[index]
                if character == "\"" { inQuotes.toggle() }
                if character == ",", !inQuotes {
                    end = index
                    break
                }
                parameters.append(character)
            }
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : ""
            for parameter in parameters.split(separator: ";") {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else {
                    continue
                }
                let value = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\""))
                relations = value.lowercased().split(separator: " ").map(String.init)
                break
            }
            links.append((target, relations))
        }
        return links
    }
}
