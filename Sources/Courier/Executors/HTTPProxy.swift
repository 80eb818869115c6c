import Foundation

/// The HTTP proxies an executor's connections go through: one for `http` (and `ws`) URLs, which the proxy forwards,
/// one for `https` (and `wss`) URLs, which it tunnels (`CONNECT`), each with optional Basic credentials, and the hosts
/// that bypass them.
///
/// Hand it to the executor that opens the connections (`AsyncHTTPClientExecutor(configuration:eventLoopGroup:trust:
/// cookies:proxy:)` of the CourierAsyncHTTPClient package): like trust, a proxy belongs to the connections, not to a
/// call. Or read it from the environment the way curl does (``environment(_:)``: `https_proxy`, `http_proxy`,
/// `no_proxy`, in either case).
///
/// ```swift
/// let proxy = HTTPProxy(
///     HTTPProxy.Server(host: "proxy.corp.example", port: 3128, username: "svc-api", password: secret),
///     bypass: [".corp.example", "10.0.0.0/8"])
/// let fromEnvironment = try HTTPProxy.environment()
/// ```
///
/// What each executor honours is in the "Choosing an executor" article; an executor that cannot honour a proxy a
/// call's URL would use fails the call with ``APIError/TransportProblem/unsupportedByExecutor`` before any I/O,
/// never sending it directly. The password is a secret: printing a proxy shows `***` in its place.
public struct HTTPProxy: Sendable, Hashable, CustomStringConvertible {
    /// The proxy for `http` and `ws` URLs; `nil` for none.
    public var http: Server?
    /// The proxy for `https` and `wss` URLs (a `CONNECT` tunnel); `nil` for none.
    public var https: Server?
    /// The hosts that bypass the proxies, as `NO_PROXY` lists them: a host name, which covers its subdomains too
    /// (`example.com`, `.example.com` and `*.example.com` alike), an IP address, a range of them (`10.0.0.0/8`,
    /// `fd00::/8`), any of these with `:port` for that port only, or `*` for every host. Case does not matter.
    public var bypass: [String]

    /// Proxies by scheme, and the hosts that bypass them.
    public init(http: Server? = nil, https: Server? = nil, bypass: [String] = []) {
        self.http = http
        self.https = https
        self.bypass = bypass
    }

    /// `server` for every URL, but the hosts of `bypass`.
    public init(_ server: Server, bypass: [String] = []) {
        self.init(http: server, https: server, bypass: bypass)
    }

    /// The proxy a request to `url` goes through: ``https`` for `https` and `wss`, ``http`` for `http` and `ws`;
    /// `nil` when it goes directly (no proxy for its scheme, or its host is in ``bypass``).
    public func server(for url: URL) -> Server? {
        let server: Server?
        switch url.scheme?.lowercased() {
        case "https", "wss": server = https
        case "http", "ws": server = http
        default: server = nil
        }
        guard let server, !bypasses(url) else { return nil }
        return server
    }

    /// Whether `url`'s host is in ``bypass``.
    func bypasses(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased(), !bypass.isEmpty else { return false }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let port = url.port ?? (["https", "wss"].contains(url.scheme?.lowercased()) ? 443 : 80)
        return bypass.contains { Self.entry($0, matchesHost: bare, port: port) }
    }

    /// Whether one `NO_PROXY` entry covers `host` (lowercased, without brackets) on `port`.
    static func entry(_ entry: String, matchesHost host: String, port: Int?) -> Bool {
        var pattern = entry.trimmingCharacters(in: .whitespaces).lowercased()
        if pattern == "*" { return true }
        if pattern.isEmpty { return false }
        // `host:port`, `[v6]:port`: the port must match too (an IPv6 address alone has colons of its own).
        if let colon = pattern.lastIndex(of: ":"), let wanted = Int(pattern[pattern.index(after: colon)...]),
            pattern.hasPrefix("[") || pattern.firstIndex(of: ":") == colon
        {
            guard wanted == port else { return false }
            pattern = String(pattern[..<colon])
        }
        if pattern.hasPrefix("[") && pattern.hasSuffix("]") { pattern = String(pattern.dropFirst().dropLast()) }
        if let range = IPRange(pattern) { return IPRange.address(host).map(range.contains) ?? false }
        while pattern.hasPrefix("*") || pattern.hasPrefix(".") { pattern.removeFirst() }
        if pattern.hasSuffix(".") { pattern.removeLast() }
        guard !pattern.isEmpty else { return false }
        return host == pattern || host.hasSuffix("." + pattern)
    }

    /// The proxies in ``http`` and ``https`` (the password masked) and the bypass list.
    public var description: String {
        var parts: [String] = []
        if let http { parts.append("http: \(http)") }
        if let https { parts.append("https: \(https)") }
        if !bypass.isEmpty { parts.append("bypass: \(bypass.joined(separator: ","))") }
        return "HTTPProxy(" + (parts.isEmpty ? "none" : parts.joined(separator: "; ")) + ")"
    }
}

extension HTTPProxy {
    /// One proxy server: where it listens, and the Basic credentials it asks for.
    public struct Server: Sendable, Hashable, CustomStringConvertible {
        /// Its host name or IP address.
        public var host: String
        /// Its port.
        public var port: Int
        /// The user name of its Basic credentials; `nil` for none.
        public var username: String?
        /// The password of its Basic credentials (a secret: never printed).
        public var password: String?

        /// A proxy at `host` and `port`, with Basic credentials when `username` is set.
        public init(host: String, port: Int, username: String? = nil, password: String? = nil) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
        }

        /// A proxy written as a URL, as `HTTPS_PROXY` holds it: `http://user:password@host:port`; without a scheme,
        /// `http`; without a port, 80. The user and password are percent-decoded. `nil` for another scheme (Courier's
        /// proxies are HTTP proxies: no `https://` or `socks5://` proxy), a URL with a path, or none with a host.
        public init?(url text: String) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let written = trimmed.contains("://") ? trimmed : "http://" + trimmed
            guard let components = URLComponents(string: written), components.scheme?.lowercased() == "http",
                let host = components.host, !host.isEmpty, components.path.isEmpty || components.path == "/",
                components.query == nil
            else { return nil }
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            self.init(
                host: bare, port: components.port ?? 80,
                username: components.percentEncodedUser.flatMap { $0.removingPercentEncoding },
                password: components.percentEncodedPassword.flatMap { $0.removingPercentEncoding })
        }

        /// `http://user:***@host:port`: the password never shows.
        public var description: String {
            let host = self.host.contains(":") ? "[\(self.host)]" : self.host
            guard let username else { return "http://\(host):\(port)" }
            return "http://\(username)\(password == nil ? "" : ":" + SensitiveData.mask)@\(host):\(port)"
        }
    }
}

extension HTTPProxy {
    /// The proxies the environment names, read as curl reads them: `https_proxy` (or `HTTPS_PROXY`) for `https` and
    /// `wss`, `http_proxy` (or `HTTP_PROXY`) for `http` and `ws`, `all_proxy` (or `ALL_PROXY`) for either when its
    /// own is not set, and `no_proxy` (or `NO_PROXY`) as ``bypass``, comma-separated. The lowercase name wins; an
    /// empty value counts as unset; `HTTP_PROXY` is ignored when `REQUEST_METHOD` is set (a CGI program, whose
    /// request's `Proxy` header would arrive as `HTTP_PROXY`). No variable set: no proxy.
    ///
    /// - Throws: ``EnvironmentProblem`` for a value that is not an HTTP proxy's URL (`socks5://…`, `https://…`, a
    ///   path), naming the variable: a proxy the program was told to use is never ignored.
    public static func environment(
        _ variables: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> HTTPProxy {
        func value(_ name: String) -> (name: String, value: String)? {
            for spelling in [name.lowercased(), name.uppercased()] {
                if spelling == "HTTP_PROXY", variables["REQUEST_METHOD"] != nil { continue }
                if let value = variables[spelling], !value.isEmpty { return (spelling, value) }
            }
            return nil
        }
        func server(_ name: String) throws -> Server? {
            guard let (variable, text) = value(name) ?? value("all_proxy") else { return nil }
            guard let server = Server(url: text) else { throw EnvironmentProblem(variable: variable, value: text) }
            return server
        }
        let bypass = value("no_proxy")?.value.split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        return HTTPProxy(
            http: try server("http_proxy"), https: try server("https_proxy"),
            bypass: bypass?.filter { !$0.isEmpty } ?? [])
    }

    /// A proxy variable of the environment that names no HTTP proxy.
    public struct EnvironmentProblem: Error, Sendable, CustomStringConvertible {
        /// The variable, as spelled (`HTTPS_PROXY`).
        public let variable: String
        /// Its value, with any password masked.
        public let value: String

        init(variable: String, value: String) {
            self.variable = variable
            // The user information, up to the last `@` of the authority, is masked.
            let start = value.range(of: "://")?.upperBound ?? value.startIndex
            let end = value[start...].firstIndex(of: "/") ?? value.endIndex
            if let at = value[start..<end].lastIndex(of: "@") {
                self.value = value.replacingCharacters(in: start..<at, with: SensitiveData.mask)
            } else {
                self.value = value
            }
        }

        /// What is wrong, naming the variable.
        public var description: String {
            "\(variable)=\(value) names no HTTP proxy: Courier's proxies are HTTP proxies, written "
                + "http://[user:password@]host[:port]"
        }
    }
}

/// An IP address range of a `NO_PROXY` entry: an address, or an address and a prefix length (`10.0.0.0/8`).
struct IPRange {
    let bytes: [UInt8]
    let bits: Int

    /// The range `text` writes; `nil` when it is not an IP address (with or without `/bits`).
    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let bytes = Self.address(String(first)) else { return nil }
        let bits = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
        guard let bits, bits >= 0, bits <= bytes.count * 8 else { return nil }
        self.bytes = bytes
        self.bits = bits
    }

    /// Whether `address` (of the same family) is in the range.
    func contains(_ address: [UInt8]) -> Bool {
        guard address.count == bytes.count else { return false }
        var left = bits
        for (one, other) in zip(address, bytes) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            if one & mask != other & mask { return false }
            left -= 8
        }
        return true
    }

    /// The bytes of an IPv4 or IPv6 address written as text; `nil` for anything else (a host name).
    static func address(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}

// The password is a secret in every printed form: `dump` and a `Mirror` show the descriptions, never the field.

extension HTTPProxy: CustomDebugStringConvertible, CustomReflectable {
    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror of the proxies' descriptions (passwords masked) and the bypass list.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["http": http?.description ?? "none", "https": https?.description ?? "none", "bypass": bypass],
            displayStyle: .struct)
    }
}

extension HTTPProxy.Server: CustomDebugStringConvertible, CustomReflectable {
    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror of the host, port and user name; not the password.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "username": username ?? "none",
                "password": password == nil ? "none" : SensitiveData.mask,
            ],
            displayStyle: .struct)
    }
}
