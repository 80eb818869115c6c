import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Keeps cookies for an executor that handles them itself, in an `HTTPCookieStorage`, with the storage's rules
/// (domain, path, `Secure`, expiry, accept policy): it stores the cookies a response sets and gives the `Cookie`
/// field for each request or redirect hop.
///
/// ``URLSessionExecutor`` uses it on Linux, where FoundationNetworking would parse every header line of every
/// response for cookies (tens of thousands of instructions per line): its sessions accept none
/// (`httpCookieAcceptPolicy = .never`; URLSession still sends them) and each response is handed to the jar, which
/// parses its `Set-Cookie` fields once. `AsyncHTTPClientExecutor` uses it for both: it stores the cookies of every
/// hop's response and sets each hop's `Cookie` field, so that a redirect to another origin carries only the
/// cookies whose domain matches it. Cookies are stored as FoundationNetworking stores them
/// (`HTTPCookie.cookies(withResponseHeaderFields:for:)`, then `setCookies(_:for:mainDocumentURL:)`, which applies
/// the storage's accept policy) and sent as it sends them (`cookies(for:)`, then
/// `HTTPCookie.requestHeaderFields(with:)`).
///
/// For executor implementations (`@_spi(ExecutorSupport) import Courier`); not part of Courier's public API.
@_spi(ExecutorSupport)
public final class CookieJar: Sendable {
    /// The storage, behind the project's lock box: not every platform's SDK declares `HTTPCookieStorage`
    /// `Sendable`, and the lock costs nothing beside parsing a `Set-Cookie` field.
    private let storage: LockedBox<HTTPCookieStorage>

    /// A jar over `storage`.
    public init(_ storage: HTTPCookieStorage) {
        self.storage = LockedBox(storage)
    }

    /// The configuration for a new session, and the jar that stores its cookies: a copy of `configuration` that
    /// accepts no cookies itself, unless `configuration` accepts none already (or cannot be copied).
    static func taking(_ configuration: URLSessionConfiguration) -> (URLSessionConfiguration, CookieJar?) {
        guard configuration.httpCookieAcceptPolicy != .never,
            let own = configuration.copy() as? URLSessionConfiguration
        else { return (configuration, nil) }
        own.httpCookieAcceptPolicy = .never
        return (own, own.httpCookieStorage.map(CookieJar.init))
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

/// An executor that adds cookies from a storage of its own. The response cache sits before the executor and would
/// not see that `Cookie` field: it asks for it, so that a response to a request with a session cookie is keyed on
/// the cookie and kept off the disk like any other credentialed response.
///
/// For executor implementations (`@_spi(ExecutorSupport) import Courier`); not part of Courier's public API.
@_spi(ExecutorSupport)
public protocol CookieSendingExecutor: APIExecutor {
    /// The `Cookie` field the executor adds to a request for `url` from its storage, if any.
    func cookieField(for url: URL) -> String?
}
