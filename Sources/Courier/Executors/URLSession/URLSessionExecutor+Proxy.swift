import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionExecutor {
    /// An executor whose calls go through `proxy`, over two sessions of its own with `configuration` (and `trust`,
    /// as ``init(configuration:trust:)`` takes it): one that reaches the proxies (`connectionProxyDictionary`, with
    /// the proxy for `http` and the one for `https`), and ``session``, which reaches the hosts of the proxy's bypass
    /// list directly (no proxy, not the system's either). Each hop picks its session by its own URL.
    ///
    /// On Apple platforms URLSession forwards `http` and tunnels `https` (`CONNECT`), and the executor answers the
    /// proxy's challenge with the ``HTTPProxy/Server``'s credentials; a proxy that refuses them fails the call with
    /// ``APIError/TransportProblem/proxyAuthenticationRequired``. On Linux, FoundationNetworking ignores a session's
    /// proxy settings: a call whose URL the proxy would carry fails with
    /// ``APIError/TransportProblem/unsupportedByExecutor`` before any I/O, never going directly (use
    /// `AsyncHTTPClientExecutor(proxy:)`). libcurl, underneath, still reads `http_proxy`, `https_proxy` and `no_proxy`
    /// from the environment for every session, as curl does.
    public init(configuration: URLSessionConfiguration, trust: TLSTrust = .system, proxy: HTTPProxy) {
        let direct = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        direct.connectionProxyDictionary = Self.proxyDictionary(nil, nil)
        self.init(configuration: direct, trust: trust)
        let proxied = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        proxied.connectionProxyDictionary = Self.proxyDictionary(proxy.http, proxy.https)
        // The cookies are the executor's, as for the direct session (the jars `taking` makes again are the same).
        proxies = ProxySession(proxy: proxy, session: Self.makeSession(CookieJar.taking(proxied).configuration))
    }

    /// The session a hop to `url` goes through, and the proxy server it reaches; ``session`` and `nil` directly.
    /// On Linux, a hop the proxy would carry fails before any I/O.
    func route(_ hop: APIRequest) throws(APIError) -> (session: URLSession, proxy: HTTPProxy.Server?) {
        guard let proxies, let server = proxies.proxy.server(for: hop.url) else { return (session, nil) }
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            throw APIError(
                .transport(.unsupportedByExecutor), endpoint: hop.endpoint, request: hop,
                underlyingError: ProxyLimitation(
                    executor: "URLSessionExecutor", server: server,
                    reason: "FoundationNetworking ignores a session's proxy settings",
                    advice: "use AsyncHTTPClientExecutor(proxy:) (the CourierAsyncHTTPClient package)"))
        #else
            return (proxies.session, server)
        #endif
    }

    /// A session's `connectionProxyDictionary` for these proxies (CFNetwork's keys); with neither, no proxy at all.
    static func proxyDictionary(_ http: HTTPProxy.Server?, _ https: HTTPProxy.Server?) -> [AnyHashable: Any] {
        var dictionary: [AnyHashable: Any] = ["HTTPEnable": http != nil ? 1 : 0, "HTTPSEnable": https != nil ? 1 : 0]
        if let http {
            dictionary["HTTPProxy"] = http.host
            dictionary["HTTPPort"] = http.port
        }
        if let https {
            dictionary["HTTPSProxy"] = https.host
            dictionary["HTTPSPort"] = https.port
        }
        return dictionary
    }
}

/// An executor's proxies, and its session that reaches them.
struct ProxySession: Sendable {
    let proxy: HTTPProxy
    let session: URLSession
}

/// Why a call was not sent: its URL goes through a proxy the executor cannot use. The
/// ``APIError/underlyingError`` of its ``APIError/TransportProblem/unsupportedByExecutor``.
struct ProxyLimitation: Error, Sendable, CustomStringConvertible {
    let executor: String
    let server: HTTPProxy.Server
    let reason: String
    let advice: String

    var description: String {
        "\(executor) cannot send this call through the proxy \(server): \(reason); \(advice)"
    }
}
