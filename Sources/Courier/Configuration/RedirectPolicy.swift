import Foundation

/// Decides what happens when a server answers with a redirect (`301`, `302`, `303`, `307`, `308`).
///
/// Whatever the policy, Courier removes every credential (the headers `SensitiveData` names, plus
/// those an auth plugin set for the request) before a hop that changes the origin (scheme, host or port),
/// as browsers and curl do.
///
/// ```swift
/// configuration.redirectPolicy = .follow                  // the default
/// @GET("/download", redirectPolicy: .doNotFollow)         // the 3xx is the response
/// configuration.redirectPolicy = .custom { hop in
///     hop.to.host == "cdn.example.com" ? .follow : .refuse
/// }
/// ```
public struct RedirectPolicy: Sendable {
    /// The most hops a call follows before it fails with ``APIError/TransportProblem/redirectRefused(_:)``
    /// (``RedirectRefusal/tooManyRedirects``).
    public var maxRedirects: Int
    /// Whether a redirect from `https` to `http` may be followed; `false` fails such a call with
    /// ``RedirectRefusal/insecureRedirect``.
    public var allowsInsecureRedirects: Bool
    /// Whether any redirect is followed; `false` makes the redirect response the call's response.
    public let followsRedirects: Bool
    private let decide: (@Sendable (RedirectHop) -> RedirectDecision)?

    private init(
        followsRedirects: Bool,
        maxRedirects: Int,
        allowsInsecureRedirects: Bool,
        decide: (@Sendable (RedirectHop) -> RedirectDecision)?
    ) {
        self.followsRedirects = followsRedirects
        self.maxRedirects = maxRedirects
        self.allowsInsecureRedirects = allowsInsecureRedirects
        self.decide = decide
    }

    /// Follows up to 10 redirects, refuses `https` → `http`, strips credentials on every origin change.
    public static let follow = RedirectPolicy(
        followsRedirects: true, maxRedirects: 10, allowsInsecureRedirects: false, decide: nil)

    /// Never follows: the redirect response itself is the call's response (and is validated as any other).
    public static let doNotFollow = RedirectPolicy(
        followsRedirects: false, maxRedirects: 0, allowsInsecureRedirects: false, decide: nil)

    /// Asks `decide` about every hop, after the built-in checks (the hop limit and `https` → `http`) passed.
    public static func custom(
        maxRedirects: Int = 10,
        allowsInsecureRedirects: Bool = false,
        _ decide: @escaping @Sendable (RedirectHop) -> RedirectDecision
    ) -> RedirectPolicy {
        RedirectPolicy(
            followsRedirects: true, maxRedirects: maxRedirects, allowsInsecureRedirects: allowsInsecureRedirects,
            decide: decide)
    }

    /// The decision for `hop`: the policy's own rules first, then its `decide` closure.
    public func decision(for hop: RedirectHop) -> RedirectDecision {
        guard followsRedirects else { return .stop }
        if hop.number > maxRedirects { return .fail(.tooManyRedirects) }
        if hop.isDowngrade, !allowsInsecureRedirects { return .fail(.insecureRedirect) }
        return decide?(hop) ?? .follow
    }
}

/// One redirect a server asked for.
public struct RedirectHop: Sendable {
    /// The redirect's status code.
    public let statusCode: Int
    /// The redirect response's headers.
    public let headers: HTTPHeaders
    /// The URL that answered with the redirect.
    public let from: URL
    /// The URL the redirect points to.
    public let to: URL
    /// 1 for the first redirect of a call, 2 for the next, …
    public let number: Int

    /// Creates a hop; executors create these.
    public init(statusCode: Int, headers: HTTPHeaders, from: URL, to: URL, number: Int) {
        self.statusCode = statusCode
        self.headers = headers
        self.from = from
        self.to = to
        self.number = number
    }

    /// Whether the hop changes the origin (scheme, host or port): credentials are removed before it.
    public var isCrossOrigin: Bool { Origin(from) != Origin(to) }

    /// Whether the hop goes from `https` to `http`.
    public var isDowngrade: Bool {
        from.scheme?.lowercased() == "https" && to.scheme?.lowercased() == "http"
    }
}

/// What to do with one redirect.
public enum RedirectDecision: Sendable, Hashable {
    /// Follow it (credentials are still removed on an origin change).
    case follow
    /// Do not follow it: the redirect response is the call's response.
    case stop
    /// Fail the call with ``APIError/TransportProblem/redirectRefused(_:)``.
    case fail(RedirectRefusal)

    /// Fail the call because the policy refuses this redirect.
    public static let refuse = RedirectDecision.fail(.refusedByPolicy)
}

/// The origin of a URL: scheme, host and port (the scheme's default port when none is written).
struct Origin: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int?

    /// `scheme://host:port`, for the timeline.
    var description: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") }

    init(_ url: URL) {
        let scheme = url.scheme?.lowercased() ?? ""
        self.scheme = scheme
        self.host = url.host?.lowercased() ?? ""
        self.port = url.port ?? Self.defaultPort(scheme)
    }

    private static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }
}
