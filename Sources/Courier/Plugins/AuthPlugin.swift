import Foundation

/// Adds static or looked-up credentials to every request it sees: a bearer token, HTTP basic
/// credentials, or an API key in a header or a query item.
///
/// ```swift
/// configuration.plugins = [.bearer("s3cr3t")]
/// configuration.plugins = [.bearer { await session.accessToken }]   // read for every request
/// configuration.plugins = [.basicAuth(username: "user", password: "pass")]
/// configuration.plugins = [.apiKey("k", header: "X-API-Key")]
/// configuration.plugins = [.apiKey("k", queryItem: "api_key")]
/// ```
///
/// The header or query item the plugin sets is marked in ``APIRequest/sensitiveNames``, so logs,
/// descriptions and cross-origin redirects never show it, whatever its name (Google's `key` too).
///
/// A configuration's plugin adds the credential only to requests for the origins the configuration names (its
/// base URL and named hosts); ``sent(to:)`` names others (``CredentialOrigins``).
///
/// For credentials that expire and can be refreshed, use ``RefreshingAuthPlugin``.
public struct AuthPlugin: APIPlugin {
    fileprivate enum Placement: Sendable {
        case header(HTTPHeaderName, prefix: String)
        case query(String)
    }

    private let placement: Placement
    private let value: @Sendable () async throws -> String?
    /// Where the credential goes (``sent(to:)``).
    var origins = CredentialOrigins.configuredOrigins

    fileprivate init(_ placement: Placement, value: @escaping @Sendable () async throws -> String?) {
        self.placement = placement
        self.value = value
    }

    /// Adds the credential to `request` when it goes to one of the plugin's origins, then sends it.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        guard origins.allow(request) else { return try await next(request) }
        return try await next(authorized(request))
    }

    /// `request` with the credential added.
    private func authorized(_ request: APIRequest) async throws -> APIRequest {
        guard let credential = try await value() else { return request }
        var request = request
        switch placement {
        case .header(let name, let prefix):
            let header = prefix + credential
            guard !header.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else {
                throw APIError(.invalidRequest(.invalidHeader(name: name.rawValue)), endpoint: request.endpoint)
            }
            request.headers[name] = header
            request.sensitiveNames.insert(name)
        case .query(let name):
            request.encodedQuery.items.append(EncodedQuery.Item(name: name, value: credential))
            // Whatever its name (Google's `key`, say), the item is then redacted wherever the request is printed.
            request.sensitiveNames.insert(HTTPHeaderName(rawValue: name))
        }
        return request
    }
}

extension APIPlugin where Self == AuthPlugin {
    /// `Authorization: Bearer <token>`.
    public static func bearer(_ token: String) -> AuthPlugin {
        AuthPlugin(.header(.authorization, prefix: "Bearer "), value: { token })
    }

    /// `Authorization: Bearer <token>` with the token read for every request; `nil` sends no header.
    public static func bearer(_ token: @escaping @Sendable () async throws -> String?) -> AuthPlugin {
        AuthPlugin(.header(.authorization, prefix: "Bearer "), value: token)
    }

    /// `Authorization: Basic <base64(username:password)>`.
    public static func basicAuth(username: String, password: String) -> AuthPlugin {
        let encoded = Data("\(username):\(password)".utf8).base64EncodedString()
        return AuthPlugin(.header(.authorization, prefix: "Basic "), value: { encoded })
    }

    /// An API key sent as the header `header`.
    public static func apiKey(_ key: String, header: HTTPHeaderName) -> AuthPlugin {
        AuthPlugin(.header(header, prefix: ""), value: { key })
    }

    /// An API key sent as the query item `queryItem`, appended to the request's query.
    public static func apiKey(_ key: String, queryItem: String) -> AuthPlugin {
        AuthPlugin(.query(queryItem), value: { key })
    }
}
