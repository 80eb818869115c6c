import Foundation

/// The HTTP rules the cache follows (RFC 9111, as far as a private client cache needs them): what may be
/// stored, for how long it is fresh, how a stale entry is revalidated and what the key is made of.
enum HTTPCaching {
    // MARK: Cache-Control

    /// The directives of every `Cache-Control` field, names lowercased; a value without quotes.
    static func directives(_ headers: HTTPHeaders) -> [String: String] {
        var result: [String: String] = [:]
        for value in headers.values(for: .cacheControl) {
            for part in value.split(separator: ",") {
                let pair = part.split(separator: "=", maxSplits: 1)
                guard let first = pair.first else { continue }
                let name = first.trimmingCharacters(in: .whitespaces).lowercased()
                guard !name.isEmpty else { continue }
                let argument =
                    pair.count > 1
                    ? pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                        in: CharacterSet(charactersIn: "\"")) : ""
                if result[name] == nil { result[name] = argument }
            }
        }
        return result
    }

    /// A delta-seconds value (`max-age=60`); `nil` when it is not a non-negative integer.
    static func seconds(_ text: String?) -> TimeInterval? {
        guard let text, !text.isEmpty, text.allSatisfy(\.isASCII), let value = Int(text), value >= 0 else {
            return nil
        }
        return TimeInterval(value)
    }

    // MARK: Storing

    /// Whether `response` may be stored under `policy`: an in-memory body, a storable status, neither the
    /// request nor the response says `no-store`, it does not vary on everything, and the policy's predicate
    /// agrees.
    static func isStorable(_ response: APIResponse, request: APIRequest, policy: CachePolicy) -> Bool {
        guard response.body.data != nil, policy.storableStatusCodes.contains(response.statusCode) else {
            return false
        }
        if directives(response.headers)["no-store"] != nil || directives(request.headers)["no-store"] != nil {
            return false
        }
        if varyNames(response.headers) == nil { return false }
        return policy.shouldWrite?(response) ?? true
    }

    /// The headers kept with a stored response: all but `Set-Cookie`, which must never be replayed to
    /// another call.
    static func storedHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
        guard headers.contains(.setCookie) else { return headers }
        var kept = headers
        kept.remove(.setCookie)
        return kept
    }

    /// The request header names a response varies on; `nil` for `Vary: *` (it matches no later request).
    static func varyNames(_ headers: HTTPHeaders) -> [HTTPHeaderName]? {
        var names: [HTTPHeaderName] = []
        for value in headers.values(for: "Vary") {
            for part in value.split(separator: ",") {
                let name = part.trimmingCharacters(in: .whitespaces)
                if name == "*" { return nil }
                if !name.isEmpty, !names.contains(HTTPHeaderName(rawValue: name)) {
                    names.append(HTTPHeaderName(rawValue: name))
                }
            }
        }
        return names.sorted { $0.rawValue.lowercased() < $1.rawValue.lowercased() }
    }

    /// A digest of `request`'s values for `names`; empty when there are no names.
    static func varyDigest(_ names: [HTTPHeaderName], request: APIRequest) -> String {
        guard !names.isEmpty else { return "" }
        var hasher = SHA256()
        for name in names {
            hasher.update(field: name.rawValue.lowercased())
            let values = request.headers.values(for: name)
            hasher.update(field: values.isEmpty ? "\u{0}absent" : values.joined(separator: ","))
        }
        return hasher.finalizeHex()
    }

    // MARK: Freshness

    /// When a response received at `now` stops being fresh under `expiry`; `nil` for never.
    static func expiry(_ expiry: CachePolicy.Expiry, headers: HTTPHeaders, now: Date) -> Date? {
        switch expiry {
        case .seconds(let seconds): return now.addingTimeInterval(seconds.isFinite ? max(0, seconds) : 0)
        case .date(let date): return date
        case .never: return nil
        case .server(let otherwise):
            let cacheControl = directives(headers)
            if cacheControl["no-cache"] != nil { return now }
            if let maxAge = seconds(cacheControl["max-age"]) {
                let age = seconds(headers["Age"]) ?? 0
                return now.addingTimeInterval(max(0, maxAge - age))
            }
            if let expires = headers["Expires"] {
                guard let expiresDate = httpDate(expires) else { return now }  // an invalid Expires is the past
                let served = headers["Date"].flatMap(httpDate) ?? now
                return now.addingTimeInterval(max(0, expiresDate.timeIntervalSince(served)))
            }
            return self.expiry(otherwise, headers: headers, now: now)
        }
    }

    /// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form servers send.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }

    // MARK: Revalidation

    /// `request` with `If-None-Match` / `If-Modified-Since` from `entry`'s validators; `nil` when the entry
    /// has none or the request already carries conditional headers of its own.
    static func conditionalRequest(_ request: APIRequest, for entry: CacheEntry) -> APIRequest? {
        let conditionals: [HTTPHeaderName] = [.ifNoneMatch, "If-Modified-Since", "If-Match", "If-Unmodified-Since"]
        guard !conditionals.contains(where: request.headers.contains) else { return nil }
        let eTag = entry.headers[.eTag]
        let lastModified = entry.headers["Last-Modified"]
        guard eTag != nil || lastModified != nil else { return nil }
        var conditional = request
        if let eTag { conditional.headers[.ifNoneMatch] = eTag }
        if let lastModified { conditional.headers["If-Modified-Since"] = lastModified }
        return conditional
    }

    /// `entry` refreshed by a `304 Not Modified`: its headers updated with the 304's (RFC 9111 §4.3.4,
    /// except framing headers), its freshness restarted at `now`.
    static func refreshed(
        _ entry: CacheEntry, with notModified: APIResponse, expiry: CachePolicy.Expiry, now: Date
    )
        -> CacheEntry
    {
        var updated = entry
        var fresh = HTTPHeaders()
        let kept: Set<HTTPHeaderName> = [.contentLength, "Content-Encoding", "Transfer-Encoding", "Content-Range"]
        for field in storedHeaders(notModified.headers) where !kept.contains(field.name) {
            fresh.add(field.name, field.value)
        }
        updated.headers.merge(fresh)
        updated.storedAt = now
        updated.expiresAt = self.expiry(expiry, headers: updated.headers, now: now)
        return updated
    }

    // MARK: Keys

    /// The key of `request` under `policy`, and whether the request carries credentials; `nil` when the
    /// request cannot be cached (a body that is not in memory). `cookies` is the `Cookie` field the executor
    /// will add from its own cookie storage, if any: a credential like any other.
    static func key(
        for request: APIRequest, policy: CachePolicy, cookies: String? = nil
    ) -> (key: CacheKey, hasCredentials: Bool)? {
        var hasher = SHA256()
        hasher.update(field: "courier-cache-v1")
        let urlText = request.url.absoluteString
        if let custom = policy.customKey {
            hasher.update(field: custom(request))
        } else {
            hasher.update(field: request.method.rawValue)
            hasher.update(
                field: policy.ignoredQueryItems.isEmpty
                    ? urlText : url(of: request, ignoring: policy.ignoredQueryItems))
        }
        switch request.body.count {
        case 0?: hasher.update(field: "")
        case .some:
            guard let data = request.body.data else { return nil }
            var body = SHA256()
            body.update(data)
            hasher.update(field: body.finalizeHex())
        case nil: return nil
        }
        for part in policy.keyParts { hasher.update(field: part) }
        // Credentials: every sensitive header, query item, session cookie and URL user info, by name and value.
        // Two requests with other credentials never share a key (whatever the policy leaves out of the URL part);
        // the values never appear in clear.
        hasher.update(field: "credentials")
        var credentials: [(String, String)] = []
        for field in request.headers where SensitiveData.isSensitive(field.name, in: request) {
            credentials.append((field.name.rawValue.lowercased(), field.value))
        }
        if let cookies, !cookies.isEmpty { credentials.append(("cookie (session)", cookies)) }
        // A credential in the query: a secret name, or a name the request marks (an API key an auth plugin
        // appended as `key`, a name in the configuration's `sensitiveNames`).
        let query = request.encodedQuery
        if !query.isEmpty {
            for item in query.items {
                let name = item.decodedName
                guard
                    SensitiveData.isSensitiveKey(name)
                        || request.sensitiveNames.contains(HTTPHeaderName(rawValue: name))
                else { continue }
                credentials.append(("query " + name, item.decodedValue ?? ""))
            }
        }
        var hasCredentials = false
        for (name, value) in credentials.sorted(by: { $0 < $1 }) {
            hasCredentials = true
            hasher.update(field: name)
            hasher.update(field: value)
        }
        if urlText.utf8.contains(UInt8(ascii: "@")),
            let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false),
            components.user != nil || components.password != nil
        {
            hasCredentials = true
            hasher.update(field: components.user ?? "")
            hasher.update(field: components.password ?? "")
        }
        return (CacheKey(prefix: policy.keyPrefix, digest: hasher.finalizeHex()), hasCredentials)
    }

    /// The URL as text, without the ignored query items.
    private static func url(of request: APIRequest, ignoring ignored: Set<String>) -> String {
        var query = request.encodedQuery
        let count = query.items.count
        query.items.removeAll { ignored.contains($0.decodedName) }
        guard query.items.count != count else { return request.url.absoluteString }
        return request.target.replacingQuery(with: query)?.url.absoluteString ?? request.url.absoluteString
    }
}
