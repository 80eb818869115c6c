import AsyncHTTPClient
@_spi(CourierInternals) import Courier
import Foundation
import NIOCore
import NIOHTTP1
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An executor that sends requests with swift-server's `HTTPClient` (AsyncHTTPClient, on SwiftNIO): the
/// executor for Linux servers (Vapor, Hummingbird, workers), and for any platform where you already run an
/// `HTTPClient`.
///
/// ```swift
/// import CourierAsyncHTTPClient
///
/// APIConfiguration.default = APIConfiguration(baseURL: apiURL, executor: AsyncHTTPClientExecutor())
/// ```
///
/// It is a `Courier/HTTPTransport`: each hop is one request of the client, which follows no redirect, and Courier's
/// policy keeps the contracts above it, as for ``Courier/URLSessionExecutor``; it passes the same
/// `ExecutorConformance` suite (in `CourierTesting`):
/// - **A timeout is a deadline.** A request's `timeout` bounds the whole call: connect, send, wait for the
///   head, and receive the whole body (for a download with an idle timeout: the wait for the head, and then
///   the idle timeout each wait for bytes). A call that runs out of it fails with `.transport(.timedOut)`.
/// - **Redirects follow the request's `redirectPolicy`,** hop by hop, in Courier and not in the client: before
///   a hop that changes the origin (scheme, host or port) every credential is removed (the headers
///   `SensitiveData` names and the request's `sensitiveNames`); `https` → `http` is refused unless the
///   policy allows it; `303` (and `301`/`302` after a `POST`) continue as a `GET` without the body.
/// - **Memory is bounded.** The body is counted as it arrives, after content decoding (the client decodes
///   `gzip` and `deflate` as `URLSession` does); the call fails with `.transport(.responseTooLarge)` the moment it
///   crosses `maxResponseBytes`, or at once when `Content-Length` already says so. That limit, not a compression
///   ratio, bounds a compressed body: JSON that compresses 30:1 decodes, a gzip bomb stops at the limit.
/// - **Cancellation is prompt.** Cancelling the calling task cancels the HTTP request at once, and the call
///   fails with `.transport(.cancelled)`.
/// - **Every transport failure has a typed reason**: a refused connection is `.cannotConnect`, a connection
///   that breaks (a truncated body, a server that sends a bare status line and closes) is
///   `.connectionLost`, a malformed response is `.other` with the parser's error, TLS failures are
///   `.secureConnectionFailed`. The underlying SwiftNIO or AsyncHTTPClient error is the
///   `APIError.underlyingError`; a failed system call of the connection (SwiftNIO's `IOError`, and its
///   `NIOConnectionError`) is wrapped in an error that describes it as `connection refused, errno 111`.
///
/// Repeated header fields keep their order and stay separate, in requests and in responses.
///
/// **Cookies** are kept as `URLSessionExecutor` keeps them: by default in `HTTPCookieStorage.shared`, the storage of
/// `URLSessionExecutor.shared`. The cookies each response sets (a redirect hop's too) are stored, and each request
/// and hop carries the stored cookies whose domain and path match its URL, so a hop to another origin carries only
/// the cookies set for that origin. Pass a storage of your own, or `nil` for no cookies at all (a server calling a
/// service for many users should not share one jar between them).
///
/// **What the module brings.** `import CourierAsyncHTTPClient` also imports CourierObservability (`.metrics()`,
/// `.tracing()`, `.swiftLog(_:)`, `HARRecorder`), a package without SwiftNIO; the re-export is part of the 1.x API
/// (VERSIONING.md says why it stays). Courier itself is imported on its own.
///
/// Transfers (``supportedTransfers``): `$endpoint.stream(with:)` hands the body over as it arrives, paced by
/// the reader (AsyncHTTPClient stops reading from the socket while the stream's window is full), with the
/// timeout bounding the wait for the head and the idle timeout after it; `$endpoint.download(with:to:)`
/// writes the body to a file, one chunk in memory at a time, and continues a partial file on a matching `206`;
/// progress reports bytes received as they arrive, and bytes sent as the client takes each chunk of a file, stream
/// or form body (a body held in memory counts as sent, in one step, when the response's head arrives).
/// File, stream and multipart request bodies are sent chunk by chunk (with `Content-Length` when their size is
/// known, chunked otherwise); a one-shot body is not sent twice: a `307`/`308` after it is the response.
///
/// **WebSockets** (`$endpoint.connect(with:)` on a `@WebSocket` endpoint) open over SwiftNIO on the client's event
/// loops (`NIOWebSocket`), `wss` with the executor's TLS configuration and trust: the request's timeout bounds the
/// handshake, a handshake answered with another status than `101` is that response with its body (a `401` goes back
/// through the plugins, so a refreshing auth plugin refreshes and tries again), and cookies go and come as on any
/// request. The socket reads from the network only as its messages are read (two messages wait at most), refuses a
/// message longer than `maxResponseBytes` while it arrives (close `1009`), answers pings, and sees pongs while the app
/// reads nothing.
///
/// ## The client
///
/// ``init(cookies:)`` uses ``sharedClient``: one process-wide client on `HTTPClient.shared`'s event loops, with
/// `HTTPClient.shared`'s settings but redirects off, because Courier follows them itself, no limit on the
/// decompression ratio, because `maxResponseBytes` bounds the decoded body, and up to 32 connections per host kept
/// alive instead of 8. For a proxy, use ``init(configuration:eventLoopGroup:trust:cookies:proxy:)`` (a proxy in the
/// `HTTPClient.Configuration` carries HTTP calls only: a WebSocket handshake then fails before any I/O). For settings
/// of your own (timeouts, a TLS configuration), use
/// ``init(configuration:eventLoopGroup:trust:cookies:)``: the executor makes its client from your configuration with
/// ``clientConfiguration(_:)`` (so it never follows redirects) and keeps the configuration it was made with; shut
/// its ``client`` down when you no longer need it (``sharedClient`` never is).
///
/// ## Trust
///
/// A ``Courier/TLSTrust`` (``init(trust:cookies:)``, ``init(configuration:eventLoopGroup:trust:cookies:)``) becomes
/// AsyncHTTPClient's per-request `TLSConfiguration` for the hosts it names, on every redirect hop and WebSocket
/// handshake: roots of your own, certificate pins as the only trust roots (pin a self-signed root certificate
/// authority; any other pinned certificate fails with `.unsupportedByExecutor` before any I/O), and a client
/// certificate (PEM or PKCS#12). AsyncHTTPClient shows no one the chain it verified, so a public-key pin fails
/// an HTTP request with `.unsupportedByExecutor` before any I/O; WebSocket handshakes check it against the server's
/// certificate before the upgrade request is sent.
public struct AsyncHTTPClientExecutor: HTTPTransport {
    /// The client that sends requests.
    public let client: HTTPClient
    /// Where cookies are kept, `nil` for none.
    let cookies: CookieJar?
    /// The TLS configuration of each host: the client's own, with the executor's trust laid over it.
    let tls: TrustConfigurations
    /// The proxies, and a client of the executor's own for each; `nil` for none (every call over ``client``).
    let proxies: ProxyClients?
    /// Whether ``client``'s own configuration names a proxy (`HTTPClient.Configuration.proxy`), which the executor's
    /// WebSockets, opened by the executor itself, cannot use.
    let clientHasProxy: Bool

    /// An executor over ``sharedClient`` that keeps cookies in `cookies` (by default `HTTPCookieStorage.shared`, as
    /// `URLSessionExecutor.shared` does), or keeps none when it is `nil`.
    public init(cookies: HTTPCookieStorage? = .shared) {
        self.init(trust: .system, cookies: cookies)
    }

    /// An executor over ``sharedClient`` that verifies servers and presents client certificates as `trust` says,
    /// keeping cookies in `cookies` as ``init(cookies:)`` does.
    public init(trust: TLSTrust, cookies: HTTPCookieStorage? = .shared) {
        self.client = Self.sharedClient
        self.cookies = cookies.map(CookieJar.init)
        self.tls = TrustConfigurations(base: Self.sharedSettings.tlsConfiguration, trust: trust)
        self.proxies = nil
        self.clientHasProxy = false
    }

    /// An executor over a client of its own, made from `configuration` with ``clientConfiguration(_:)`` (redirects
    /// off: Courier follows them) on `eventLoopGroup`, that verifies servers as `configuration`'s TLS configuration
    /// and `trust` say, and keeps cookies in `cookies` as ``init(cookies:)`` does. Shut its ``client`` down when you
    /// no longer need it.
    public init(
        configuration: HTTPClient.Configuration, eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup,
        trust: TLSTrust = .system, cookies: HTTPCookieStorage? = .shared
    ) {
        let settings = Self.clientConfiguration(configuration)
        self.client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: settings)
        self.cookies = cookies.map(CookieJar.init)
        self.tls = TrustConfigurations(base: settings.tlsConfiguration, trust: trust)
        self.proxies = nil
        self.clientHasProxy = settings.proxy != nil
    }

    /// An executor whose calls go through `proxy`, over clients of its own made from `configuration` as
    /// ``init(configuration:eventLoopGroup:trust:cookies:)`` makes its client: one for each proxy server, which
    /// AsyncHTTPClient reaches with a `CONNECT` tunnel for `http` and `https` alike (with the server's Basic
    /// credentials), and ``client`` for the hosts of the proxy's bypass list, which it reaches directly. Shut them
    /// down with ``shutdown()`` when you no longer need them.
    ///
    /// WebSockets go through the same tunnel (`ws` through the `http` proxy, `wss` through the `https` one), the
    /// executor's own `CONNECT` before TLS and the upgrade request. A proxy that refuses the credentials fails the
    /// call with `.transport(.proxyAuthenticationRequired)`; one that refuses the tunnel (a `403`) or cannot be
    /// reached, with `.transport(.cannotConnect)`; nothing of the request reached the server. The proxy's password
    /// never appears in a description, log line, timeline or recording: it goes to the proxy only.
    public init(
        configuration: HTTPClient.Configuration = .singletonConfiguration,
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup,
        trust: TLSTrust = .system, cookies: HTTPCookieStorage? = .shared, proxy: HTTPProxy
    ) {
        var direct = configuration
        direct.proxy = nil
        let settings = Self.clientConfiguration(direct)
        let servers = Set([proxy.http, proxy.https].compactMap { $0 })
        let clients = Dictionary(
            uniqueKeysWithValues: servers.map { server in
                var proxied = settings
                proxied.proxy = .server(
                    host: server.host, port: server.port,
                    authorization: server.username.map { .basic(username: $0, password: server.password ?? "") })
                return (server, HTTPClient(eventLoopGroup: eventLoopGroup, configuration: proxied))
            })
        self.init(
            client: HTTPClient(eventLoopGroup: eventLoopGroup, configuration: settings),
            cookies: cookies.map(CookieJar.init),
            tls: TrustConfigurations(base: settings.tlsConfiguration, trust: trust),
            proxies: ProxyClients(proxy: proxy, clients: clients))
    }

    private init(client: HTTPClient, cookies: CookieJar?, tls: TrustConfigurations, proxies: ProxyClients?) {
        self.client = client
        self.cookies = cookies
        self.tls = tls
        self.proxies = proxies
        self.clientHasProxy = false
    }

    /// Shuts down the clients this executor made (``client`` and one per proxy server); not ``sharedClient``,
    /// which lives as long as the process. Calls after it fail.
    public func shutdown() async throws {
        if client !== Self.sharedClient { try await client.shutdown() }
        for proxied in proxies?.clients.values ?? [:].values { try await proxied.shutdown() }
    }

    /// An executor over `client`, keeping cookies in `cookies` as ``init(cookies:)`` does, when `client` is
    /// ``sharedClient``.
    ///
    /// AsyncHTTPClient keeps a client's configuration to itself, so nothing shows whether a client made elsewhere
    /// follows redirects. One that does would take every request's credentials (its `Authorization`, an API key, a
    /// header an auth plugin marked) to whatever origin a server redirects to, before Courier could strip them. So
    /// the executor takes only the client whose configuration it knows: ``sharedClient``. For a client of your own
    /// settings, use ``init(configuration:eventLoopGroup:trust:cookies:)``, which makes the client from your
    /// configuration with redirects off (pass `eventLoopGroup: client.eventLoopGroup` to keep your event loops).
    ///
    /// - Throws: ``ClientFollowsRedirects`` for any other client, `HTTPClient.shared` among them, before any request.
    @available(*, deprecated, message: "use init(configuration:eventLoopGroup:trust:cookies:), which makes the client")
    public init(client: HTTPClient, cookies: HTTPCookieStorage? = .shared) throws {
        guard client === Self.sharedClient else { throw ClientFollowsRedirects() }
        self.init(cookies: cookies)
    }

    /// The client ``init(cookies:)`` uses: created on first use, on `HTTPClient.defaultEventLoopGroup` (the event
    /// loops of `HTTPClient.shared`), with ``clientConfiguration(_:)`` of
    /// `HTTPClient.Configuration.singletonConfiguration`, keeping up to 32 connections per host alive instead of
    /// AsyncHTTPClient's 8, so that up to 32 calls in flight to one host each have a connection instead of queueing
    /// for one. It lives as long as the process and is never shut down.
    public static let sharedClient = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: sharedSettings
    )

    /// The configuration ``sharedClient`` is made with.
    static let sharedSettings = sharedConfiguration()

    /// The connections per host ``sharedClient`` keeps alive (AsyncHTTPClient's default is 8). With 32 calls in
    /// flight to one host over loopback, 32 connections cost about 9% less CPU per call than 8 (Benchmarks/README.md).
    static let sharedConnectionsPerHost = 32

    /// The configuration of ``sharedClient``: ``clientConfiguration(_:)`` of the singleton configuration with at
    /// least ``sharedConnectionsPerHost`` connections per host.
    static func sharedConfiguration() -> HTTPClient.Configuration {
        var configuration = clientConfiguration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit, sharedConnectionsPerHost)
        return configuration
    }

    /// `configuration` with what this executor needs: redirects off (Courier follows them); `gzip` and `deflate`
    /// bodies decoded without a ratio limit (`maxResponseBytes` bounds the decoded bytes, as with `URLSession`);
    /// and a refused connection fails the call at once (`.cannotConnect`) instead of being retried until the
    /// deadline, as with `URLSession`. A no-op tracer (what `InstrumentationSystem.tracer` is until a tracer is
    /// bootstrapped) becomes no tracer: the spans would record nothing, and the client skips their per-request
    /// work; a real tracer stays, and AsyncHTTPClient's spans are then children of ``TracingPlugin``'s. Use it when
    /// you create a client for this executor.
    public static func clientConfiguration(
        _ configuration: HTTPClient.Configuration = .singletonConfiguration
    ) -> HTTPClient.Configuration {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .enabled(limit: .none)
        configuration.connectionPool.retryConnectionEstablishment = false
        // A no-op tracer records nothing, but AsyncHTTPClient would still start (and cast, and fill) a span for
        // every request: without one it skips that work. A real tracer stays.
        if configuration.tracing.tracer is NoOpTracer { configuration.tracing.tracer = nil }
        return configuration
    }

    /// Every transfer: streamed responses, downloads to files, file and streamed request bodies, progress (for a body
    /// held in memory, upload progress in one step, once it is sent), and WebSockets.
    public var supportedTransfers: TransferFeatures { [.all, .webSockets] }

    /// Sends `request` with Courier's HTTP policy over ``send(_:)`` (the deadline, redirects as its policy says, the
    /// size limit, the delivery of the body) and returns the final response, whatever its status code; for a
    /// WebSocket request, performs the handshake (no redirect is followed) and returns the open socket (`101`) or the
    /// response that refused it.
    public func execute(_ request: APIRequest) async throws -> APIResponse {
        try await executeByPolicy(request)
    }

    /// Sends `hop` with the client, which follows no redirect, and returns the response head with the body as it
    /// arrives, paced by its reader; a WebSocket handshake returns the open socket.
    public func send(_ hop: APIRequest) async throws -> APIResponse {
        if hop.responseDelivery.isWebSocket {
            if clientHasProxy {
                // The client would send HTTP calls through its proxy; a WebSocket must not go around it directly.
                throw APIError(
                    .transport(.unsupportedByExecutor), endpoint: hop.endpoint, request: hop,
                    underlyingError: WebSocketBesideClientProxy())
            }
            return try await WebSocketHandshake(request: hop, executor: self).run()
        }
        let client = proxies?.client(for: hop.url) ?? client
        return try await AsyncHTTPClientHop(hop: hop, client: client, cookies: cookies, tls: tls).run()
    }
}

/// Why ``AsyncHTTPClientExecutor/init(client:cookies:)`` refused a client: it may follow redirects itself, which
/// would bypass Courier's redirect policy and take credentials to another origin, and AsyncHTTPClient shows no one a
/// client's configuration. Use ``AsyncHTTPClientExecutor/init(configuration:eventLoopGroup:trust:cookies:)``, which
/// makes the client with redirects off.
public struct ClientFollowsRedirects: Error, Sendable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// A short English description with the fix.
    public var description: String {
        "Courier cannot see whether an HTTPClient it did not make follows redirects (which would take credentials to "
            + "another origin); let AsyncHTTPClientExecutor(configuration:eventLoopGroup:trust:cookies:) make the client"
    }
}

/// Why a WebSocket handshake was not sent: the executor's `HTTPClient.Configuration` names a proxy, which only the
/// client's own requests use.
struct WebSocketBesideClientProxy: Error, Sendable, CustomStringConvertible {
    var description: String {
        "the HTTPClient.Configuration of this AsyncHTTPClientExecutor names a proxy, which its WebSockets cannot use; "
            + "give the proxy as an HTTPProxy (AsyncHTTPClientExecutor(configuration:proxy:)), which they go through"
    }
}

/// An executor's proxies and the client of each proxy server. Its mirror shows the proxies only: a proxied client's
/// configuration holds the proxy's credentials.
struct ProxyClients: Sendable, CustomReflectable {
    let proxy: HTTPProxy
    let clients: [HTTPProxy.Server: HTTPClient]

    /// The client of the proxy `url` goes through; `nil` when it goes directly.
    func client(for url: URL) -> HTTPClient? {
        proxy.server(for: url).flatMap { clients[$0] }
    }

    var customMirror: Mirror {
        Mirror(self, children: ["proxy": proxy.description], displayStyle: .struct)
    }
}

@_spi(CourierInternals)
extension AsyncHTTPClientExecutor: TLSTrustHolding {
    /// The trust whose roots and pins past their rotation date Courier's policy warns about.
    public var heldTrust: TLSTrust { tls.trust }
}

extension AsyncHTTPClientExecutor: CookieSendingExecutor {
    /// The `Cookie` field the executor adds to a request for `url` from its cookie storage, if any: the response
    /// cache keys on it.
    public func cookieField(for url: URL) -> String? {
        cookies?.cookieField(for: url)
    }
}
