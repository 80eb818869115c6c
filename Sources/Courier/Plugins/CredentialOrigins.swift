import Foundation

/// The origins an auth plugin sends its credential to: by default those the configuration names (its
/// ``APIConfiguration/baseURL`` and ``APIConfiguration/hosts``), so that an endpoint with an absolute URL of another
/// origin (a CDN, a webhook, a partner's API) never receives the configuration's token.
///
/// ```swift
/// configuration.plugins = [.bearer(token)]   // to the base URL's origin and the named hosts' only
/// configuration.plugins = [.bearer(token).sent(to: .configuredOrigins(and: [eventsURL]))]
/// ```
///
/// An origin is a scheme, a host and a port (the scheme's default port when none is written); `ws` counts as
/// `http` and `wss` as `https`, so a WebSocket on the base URL's host gets the credential too. A plugin declared
/// on an endpoint (`@GET("https://…", plugins: [.bearer(token)])`) sends its credential to that endpoint whatever its
/// origin: whoever declared it chose where it goes. A request outside the origins goes on without the credential
/// (and a ``RefreshingAuthPlugin`` never refreshes for it).
public struct CredentialOrigins: Sendable, Hashable {
    /// The origins named beyond the configuration's, `nil` for every origin.
    let extra: Set<CredentialOrigin>?

    /// The origins of the configuration's ``APIConfiguration/baseURL`` and ``APIConfiguration/hosts`` (the default).
    public static let configuredOrigins = CredentialOrigins(extra: [])

    /// The configuration's origins and the origins of `urls` (only their scheme, host and port count).
    public static func configuredOrigins(and urls: [URL]) -> CredentialOrigins {
        CredentialOrigins(extra: Set(urls.map(CredentialOrigin.init)))
    }

    /// Every origin a call goes to. Only for a configuration whose every endpoint is meant to receive the
    /// credential: one endpoint with an absolute URL of another origin then receives it too.
    public static let everyOrigin = CredentialOrigins(extra: nil)

    /// Whether a credential may be added to `request`.
    func allow(_ request: APIRequest) -> Bool {
        guard let extra else { return true }
        switch request.credentialContext {
        // Outside the pipeline (a plugin called by hand) or declared on the endpoint: where the request goes.
        case nil, .endpoint: return true
        case .configuration(let configured):
            let origin = CredentialOrigin(request.url)
            return configured.origins.contains(origin) || extra.contains(origin)
        }
    }
}

/// A request's origin as credentials see it: `Origin` with `ws` as `http` and `wss` as `https`.
struct CredentialOrigin: Hashable, Sendable {
    let scheme: String
    let host: String
    let port: Int?

    init(_ url: URL) {
        let origin = Origin(url)
        switch origin.scheme {
        case "ws": scheme = "http"
        case "wss": scheme = "https"
        default: scheme = origin.scheme
        }
        host = origin.host
        port = origin.port
    }
}

/// The origins a configuration names, made when its base URL or hosts change (a call only reads them).
final class ConfiguredOrigins: Sendable {
    let origins: Set<CredentialOrigin>

    init(baseURL: URL?, hosts: [APIHost: URL]) {
        var origins = Set(hosts.values.map(CredentialOrigin.init))
        if let baseURL { origins.insert(CredentialOrigin(baseURL)) }
        self.origins = origins
    }
}

/// Whose plugins a request is passing through: the configuration's, which add credentials only for the origins it
/// names, or the endpoint's, which add them wherever the endpoint goes.
enum CredentialContext: Sendable {
    case configuration(ConfiguredOrigins)
    case endpoint
}

/// A plugin declared on an endpoint: it runs with the request marked as the endpoint's, so that its credential
/// goes wherever the endpoint does.
struct EndpointPlugin: APIPlugin {
    let base: any APIPlugin

    func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        var request = request
        request.credentialContext = .endpoint
        return try await base.intercept(request, next: next)
    }
}

extension AuthPlugin {
    /// This plugin, sending its credential to `origins` instead of the configuration's origins only.
    public func sent(to origins: CredentialOrigins) -> AuthPlugin {
        var plugin = self
        plugin.origins = origins
        return plugin
    }
}

extension RefreshingAuthPlugin {
    /// This plugin, sending its credential to `origins` instead of the configuration's origins only.
    public func sent(to origins: CredentialOrigins) -> RefreshingAuthPlugin {
        var plugin = self
        plugin.origins = origins
        return plugin
    }
}
