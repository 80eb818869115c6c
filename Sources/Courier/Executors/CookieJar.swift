import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Keeps cookies for an executor that handles them itself, in an `HTTPCookieStorage`, with the storage's rules
/// (domain, path, `Secure`, expiry, accept policy): it stores the cookies a response sets and gives the `Cookie`
/// field for each request or redirect hop.
///
/// Both shipped executors send cookies through it, so that they send the same field: the jar's cookies for the
/// hop's URL (by domain and path; a cookie is not bound to a port, RFC 6265 §8.5), merged into the request's own
/// `Cookie` field, whose pairs win on a name clash (``cookieField(for:merging:)``). The request's own field is a
/// credential: it is removed on a hop to another origin, while the jar's cookies follow their own rules on every
/// hop. ``URLSessionExecutor``'s sessions set no cookies themselves (`httpShouldSetCookies == false`: on Linux
/// FoundationNetworking would replace the request's own field with the storage's), and on Linux they store none
/// either (`httpCookieAcceptPolicy == .never`: FoundationNetworking would parse every header line of every
/// response for cookies, tens of thousands of instructions per line); the jar parses each response's
/// `Set-Cookie` fields once. `AsyncHTTPClientExecutor` stores the cookies of every hop's response and sets each
/// hop's `Cookie` field. Cookies are stored as FoundationNetworking stores them
/// (`HTTPCookie.cookies(withResponseHeaderFields:for:)`, then `setCookies(_:for:mainDocumentURL:)`, which applies
/// the storage's accept policy) and sent as it sends them (`cookies(for:)`, then
/// `HTTPCookie.requestHeaderFields(with:)`).
///
/// Plumbing shared by this repository's executors (`@_spi(CourierInternals)`, see `Sources/Courier/SPI.swift`);
/// not part of Courier's public API. An executor of your own keeps cookies its own way and says so through
/// ``CookieSendingExecutor``.
@_spi(CourierInternals)
public final class CookieJar: Sendable {
    /// The storage, behind the project's lock box: not every platform's SDK declares `HTTPCookieStorage`
    /// `Sendable`, and the lock costs nothing beside parsing a `Set-Cookie` field.
    private let storage: LockedBox<HTTPCookieStorage>

    /// A jar over `storage`.
    public init(_ storage: HTTPCookieStorage) {
        self.storage = LockedBox(storage)
    }

    /// The configuration for a new session that sets no cookies itself, with the jar that sends them for it (when
    /// `configuration` sends cookies), and the jar that stores the cookies of its responses (on Linux, when
    /// `configuration` accepts cookies: the session then accepts none itself). `configuration` itself is left as it
    /// was; one that cannot be copied is used as it is, with no jar.
    static func taking(
        _ configuration: URLSessionConfiguration
    ) -> (configuration: URLSessionConfiguration, sending: CookieJar?, storing: CookieJar?) {
        guard let storage = configuration.httpCookieStorage,
            configuration.httpShouldSetCookies || configuration.httpCookieAcceptPolicy != .never,
            let own = configuration.copy() as? URLSessionConfiguration
        else { return (configuration, nil, nil) }
        let jar = CookieJar(storage)
        let sending = configuration.httpShouldSetCookies ? jar : nil
        own.httpShouldSetCookies = false
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            let storing = configuration.httpCookieAcceptPolicy != .never ? jar : nil
            own.httpCookieAcceptPolicy = .never
        #else
            // Apple platforms store the cookies of responses in the session, at no extra cost.
            let storing: CookieJar? = nil
        #endif
        return (own, sending, storing)
    }

    /// Stores the cookies that `response` sets, if any.
    func store(from response: HTTPURLResponse) {
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            let setCookie =
                response.storedHeaderFields.map { $0["Set-Cookie"] } ?? response.value(forHTTPHeaderField: "Set-Cookie")
        #else
            let setCookie = response.value(forHTTPHeaderField: "Set-Cookie")
        #endif
        guard let setCookie, let url = response.url else { return }
        store(HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": setCookie], for: url), for: url)
    }

    /// Stores the cookies that the `Set-Cookie` fields of a response from `url` set (each field parsed on its own).
    public func store(setCookieFields fields: some Sequence<String>, from url: URL) {
        var cookies: [HTTPCookie] = []
        for field in fields {
            cookies += HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": field], for: url)
        }
        store(cookies, for: url)
    }

    /// The `Cookie` field to send with a request to `url`, `nil` when no cookie goes: the cookies the storage gives
    /// for `url` (by domain), of those the ones whose path matches `url`'s path (RFC 6265 §5.1.4), that are not
    /// expired, and, for `Secure` ones, only over `https`. (FoundationNetworking's storage matches the domain only.)
    public func cookieField(for url: URL) -> String? {
        guard let stored = storage.withLock({ $0.cookies(for: url) }), !stored.isEmpty else { return nil }
        let now = Date()
        let path = url.path.isEmpty ? "/" : url.path
        let secure = url.scheme?.lowercased() == "https"
        let cookies = stored.filter { cookie in
            (secure || !cookie.isSecure) && (cookie.expiresDate.map { $0 > now } ?? true)
                && Self.path(path, matches: cookie.path)
        }
        guard !cookies.isEmpty else { return nil }
        return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
    }

    /// The one `Cookie` field to send with a request to `url` whose own `Cookie` fields are `own` (none when it has
    /// none, or when a hop to another origin removed them), `nil` when no cookie goes: the request's own pairs
    /// first, in order, then the jar's (``cookieField(for:)``) whose names the request's own pairs do not have (the
    /// caller's value wins on a name clash).
    public func cookieField(for url: URL, merging own: [String]) -> String? {
        let stored = cookieField(for: url)
        guard !own.isEmpty else { return stored }
        var pairs = own.flatMap { Self.pairs(in: $0) }
        let names = Set(pairs.map(Self.name(of:)))
        pairs += Self.pairs(in: stored ?? "").filter { !names.contains(Self.name(of: $0)) }
        return pairs.isEmpty ? nil : pairs.joined(separator: "; ")
    }

    /// The `name=value` pairs of a `Cookie` field, trimmed, without empty ones.
    static func pairs(in field: String) -> [String] {
        field.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The name of a `name=value` pair (the whole pair when it has no `=`).
    static func name(of pair: String) -> Substring {
        pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(pair)
    }

    /// Whether a request's `path` path-matches a cookie's `cookiePath` (RFC 6265 §5.1.4): the same, or under it.
    static func path(_ path: String, matches cookiePath: String) -> Bool {
        let cookiePath = cookiePath.isEmpty ? "/" : cookiePath
        guard path.hasPrefix(cookiePath) else { return false }
        return path.count == cookiePath.count || cookiePath.hasSuffix("/")
            || path.dropFirst(cookiePath.count).first == "/"
    }

    private func store(_ cookies: [HTTPCookie], for url: URL) {
        guard !cookies.isEmpty else { return }
        storage.withLock { $0.setCookies(cookies, for: url, mainDocumentURL: nil) }
    }
}
