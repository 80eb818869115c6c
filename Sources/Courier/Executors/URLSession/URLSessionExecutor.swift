import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
    @_spi(Reflection) import Swift
#endif

/// The default executor: sends requests with a `URLSession`, on Apple platforms and on Linux
/// (`FoundationNetworking`).
///
/// It is an ``HTTPTransport``: each hop is one `URLSessionTask` that follows no redirect, and Courier's policy keeps
/// the contracts above it, whatever `URLSession` does on its own:
/// - **A timeout is a deadline.** A request's ``APIRequest/timeout`` bounds the whole call (connect,
///   send, wait, receive); a call that runs out of it fails with ``APIError/TransportProblem/timedOut``,
///   even when the server keeps sending a byte a second (URLSession's own timeout only measures idle time).
/// - **Redirects follow the request's ``APIRequest/redirectPolicy``.** Before a hop that changes the
///   origin (scheme, host or port), every credential is removed: the headers `SensitiveData` names and
///   the request's ``APIRequest/sensitiveNames`` (those an auth plugin set). `https` → `http` is refused
///   unless the policy allows it. A `307`/`308` sends the body again (read again from its start; a one-shot stream
///   is never sent twice: the redirect is then the response), on Linux too.
/// - **Memory is bounded.** The body is counted as it arrives (after content decoding, so a gzip bomb is
///   stopped as it inflates); the call fails with ``APIError/TransportProblem/responseTooLarge`` the moment it
///   crosses ``APIRequest/maxResponseBytes``, or at once when `Content-Length` already says so. A streamed body
///   holds about `ResponseStream.windowBytes` of unread bytes on Apple platforms (the task is suspended); on
///   Linux, where a task cannot be paused, a `GET` whose response can be resumed (a length, `Accept-Ranges: bytes`,
///   an `ETag` or `Last-Modified`) holds about 4 MiB (Courier cancels it and asks for the rest from the reader's
///   position), any other up to ``APIRequest/maxResponseBytes`` (past 2 MiB in a temporary file): read large bodies
///   that may be consumed slowly with `download(to:)`, or lower the limit.
/// - **Cancellation is prompt.** Cancelling the calling Swift task cancels the `URLSessionTask` at once, and
///   the call fails with ``APIError/TransportProblem/cancelled``.
///
/// On Apple platforms it opens WebSockets (``API/connect(with:pingInterval:reconnect:using:)``) with a
/// `URLSessionWebSocketTask`: the handshake carries the request's headers (a `Sec-WebSocket-Protocol` among them)
/// and is bounded by its timeout; a handshake is never redirected (the redirect is its response); the task refuses
/// a message over ``APIRequest/maxResponseBytes`` (its `maximumMessageSize`). A refused handshake reports the
/// response's status and headers, without its body, which `URLSession` does not keep. On Linux it does not
/// declare ``TransferFeatures/webSockets``: such a call fails with ``APIError/TransportProblem/unsupportedByExecutor``
/// before any I/O.
///
/// On Linux, `FoundationNetworking` (swift-corelibs-foundation over libcurl) needs help in one more place, which the
/// executor gives it: it never completes a `401` whose `WWW-Authenticate` challenge it cannot answer
/// (swift-corelibs-foundation#5456), so the executor declines such challenges and returns the `401`. It cannot help
/// with one thing: a server that sends a bare status line and closes the connection makes FoundationNetworking trap
/// (swift-corelibs-foundation#5285), which no executor over `URLSession` can catch.
///
/// Sessions this executor creates (``init()``, ``init(configuration:)`` and ``shared``) report
/// the body as it arrives; on Linux they run delegate callbacks on URLSession's own queue, so do not add
/// tasks of your own with completion handlers that block to ``session``. On Linux the executor also stores the
/// cookies of responses in the configuration's `httpCookieStorage` itself, once per response (FoundationNetworking
/// parses every header line for cookies, which costs more than the rest of a call), so its session's
/// configuration says `httpCookieAcceptPolicy == .never`. Sessions this executor creates send cookies as
/// `AsyncHTTPClientExecutor` does, from the configuration's `httpCookieStorage` (their configuration says
/// `httpShouldSetCookies == false`): one `Cookie` field per request and redirect hop, the request's own pairs
/// (which win on a name clash) and the storage's cookies whose domain and path match the hop's URL; a hop to
/// another origin loses the request's own pairs, not the storage's. A session passed to ``init(session:)`` sets
/// cookies as URLSession does.
///
/// The sessions of ``shared`` and ``init()`` have no `URLCache` (`urlCache = nil`,
/// `requestCachePolicy = .reloadIgnoringLocalCacheData`): Courier caches with ``ResponseCache`` (see
/// <doc:Caching>), and on Linux FoundationNetworking would otherwise look every task up in `URLCache.shared`, a
/// directory scan, without ever storing into it. A configuration passed to ``init(configuration:)`` keeps its own.
///
/// A session passed to ``init(session:)`` keeps its own delegate; on Linux such a
/// session hands over the body only when it is complete, so the size limit is checked then (memory is
/// bounded only by the server), while redirects, 401 challenges, deadlines and cancellation work as above.
public struct URLSessionExecutor: HTTPTransport {
    /// The session that sends requests.
    public let session: URLSession

    /// Whether the session's delegate is this executor's own, which reports every task event to the task's
    /// call; `false` for a session passed to ``init(session:)``.
    private let reportsEvents: Bool
    /// Where the executor takes the `Cookie` field of each request and hop from, instead of the session; `nil` for
    /// a session passed to ``init(session:)`` (see ``CookieJar``).
    let sentCookies: CookieJar?
    /// Where the executor stores the cookies of responses itself, instead of the session (Linux; see ``CookieJar``).
    private let cookies: CookieJar?
    /// How servers are verified and which client certificate is presented (see ``init(configuration:trust:)``).
    var trust = TLSTrust.system
    /// The proxies, and the session that reaches them (see ``init(configuration:trust:proxy:)``); `nil` for none.
    var proxies: ProxySession?

    /// An executor over `session`, which keeps its own delegate.
    public init(session: URLSession) {
        self.session = session
        self.reportsEvents = false
        self.sentCookies = nil
        self.cookies = nil
    }

    /// An executor over a new session with `configuration`.
    public init(configuration: URLSessionConfiguration) {
        let (own, sending, storing) = CookieJar.taking(configuration)
        self.session = Self.makeSession(own)
        self.sentCookies = sending
        self.cookies = storing
        self.reportsEvents = true
    }

    /// A session of the executor's own with `configuration`, as `CookieJar.taking(_:)` left it.
    static func makeSession(_ configuration: URLSessionConfiguration) -> URLSession {
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            URLSession(configuration: configuration, delegate: TaskEvents(), delegateQueue: InlineOperationQueue())
        #else
            // Apple platforms deliver every event to the task's own delegate; the session needs none.
            URLSession(configuration: configuration)
        #endif
    }

    /// An executor over a new session of its own with the default configuration. A call's deadline is the
    /// configuration's or the endpoint's `timeout`, whatever the session.
    public init() {
        let configuration = URLSessionConfiguration.default
        // Courier caches with ResponseCache; FoundationNetworking would look every task up in URLCache.shared (a
        // directory scan) and never store into it, and Apple's URLSession would serve what Courier's rules refuse.
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.init(configuration: configuration)
    }

    /// Request bodies from files, streams and multipart forms (sent with bounded memory) on every session;
    /// downloads to files, streamed responses and progress on a session this executor created, none on a
    /// session passed to ``init(session:)`` (it keeps its own delegate, which hides the events they need);
    /// WebSockets (over `URLSessionWebSocketTask`) on Apple platforms, on every session, and not on Linux, where
    /// FoundationNetworking has no WebSocket support (use `AsyncHTTPClientExecutor` there).
    public var supportedTransfers: TransferFeatures {
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            // FoundationNetworking's libcurl is built without WebSocket support.
            reportsEvents ? .all : [.fileBodies, .streamedBodies]
        #else
            reportsEvents ? [.all, .webSockets] : [.fileBodies, .streamedBodies, .webSockets]
        #endif
    }

    /// The executor that ``APIConfiguration`` uses unless told otherwise; its session is created once.
    public static let shared = URLSessionExecutor()

    /// Sends `request` and returns the response, whatever its status code: Courier's HTTP policy (the deadline,
    /// redirects, the size limit, the delivery of the body) over ``send(_:)``.
    public func execute(_ request: APIRequest) async throws -> APIResponse {
        // A session with its own delegate reports no events: only in-memory transfers (checked here too for
        // callers that skip the call forms).
        try checkSupport(for: request)
        try checkTrust(for: request)
        return try await TransportCall(request: request, transport: self).run()
    }

    /// Sends `hop` as one task, which follows no redirect, and returns the response head with the body as it
    /// arrives; a WebSocket handshake (Apple platforms) returns the open socket.
    public func send(_ hop: APIRequest) async throws -> APIResponse {
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            let holdsStream = hop.body.holdsStream
            if holdsStream { StreamUploads.begin() }
            defer { if holdsStream { StreamUploads.end() } }
        #endif
        let (session, proxy) = try route(hop)
        #if !canImport(FoundationNetworking) || COURIER_APPLE_PATHS
            if hop.responseDelivery.isWebSocket {
                return try await WebSocketTaskTransport.open(hop, on: session, cookies: sentCookies, trust: trust)
            }
        #endif
        var urlRequest = hop.urlRequest
        // URLSession's own timeout is an idle timeout; Courier keeps the call's deadline and idle timeouts.
        urlRequest.timeoutInterval = Self.idleTimeout(hop.timeout)
        if let sentCookies, let url = urlRequest.url {
            // One `Cookie` field: the hop's own pairs (Courier removed them from a hop to another origin on), which
            // win on a name clash, then the jar's for the hop's URL.
            urlRequest.httpShouldHandleCookies = false
            let field = sentCookies.cookieField(for: url, merging: hop.headers.values(for: .cookie))
            urlRequest.setValue(field, forHTTPHeaderField: "Cookie")
        }
        let call = URLSessionHop(hop: hop, reportsEvents: reportsEvents, cookies: cookies, trust: trust, proxy: proxy)
        let response = try await call.run(urlRequest, on: session)
        if proxy != nil, response.statusCode == 407 {
            // The proxy refused the credentials the hop answered its challenge with, or asked for some (dropping
            // the body's stream ends its transfer).
            throw APIError(.transport(.proxyAuthenticationRequired), endpoint: hop.endpoint, request: hop)
        }
        return response
    }

    /// The idle timeout handed to URLSession. FoundationNetworking counts whole seconds only, rounding down
    /// (0.5 s would fire at once), so it gets the next whole second; the deadline is exact.
    private static func idleTimeout(_ timeout: Duration) -> TimeInterval {
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            return max(1, timeout.timeInterval.rounded(.up))
        #else
            return timeout.timeInterval
        #endif
    }
}

extension HTTPHeaders {
    /// The header fields of `response`.
    init(_ response: HTTPURLResponse) {
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            if let stored = response.storedHeaderFields {
                self.init(stored.map { Field(name: HTTPHeaderName(rawValue: $0.key), value: $0.value) })
                return
            }
        #endif
        var fields: [Field] = []
        let all = response.allHeaderFields
        fields.reserveCapacity(all.count)
        // Casting the key's base is cheaper than casting the AnyHashable itself.
        for (name, value) in all {
            if let name = name.base as? String, let value = value as? String {
                fields.append(Field(name: HTTPHeaderName(rawValue: name), value: value))
            }
        }
        self.init(fields)
    }
}

#if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
    extension HTTPURLResponse {
        /// The header fields as FoundationNetworking stores them (`_allHeaderFields: [String: String]`), read
        /// without `allHeaderFields`, which copies them into a new `[AnyHashable: Any]` on every read; `nil` if this
        /// FoundationNetworking stores them otherwise, and the caller reads `allHeaderFields`.
        ///
        /// It earns its place by measure (Swift 6.3.1): `scripts/bench callgrind` counted 922.5 k
        /// instructions per Courier call of the e2e benchmark with this read and 951.5 k with `allHeaderFields`,
        /// 3.1% of a whole call (the bar is 2%). `URLSessionExecutorTests` fails if a toolchain moves the field.
        var storedHeaderFields: [String: String]? {
            guard let offset = Self.storedHeaderFieldsOffset else { return nil }
            return withExtendedLifetime(self) {
                UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
                    .load(fromByteOffset: offset, as: [String: String].self)
            }
        }

        /// Where in an `HTTPURLResponse` its stored header fields are: found once, by the field's name and type in
        /// the class's reflection metadata.
        private static let storedHeaderFieldsOffset: Int? = {
            var found: Int?
            // `_EachFieldOptions.classType` (a `static var`, which Swift 6 does not let this code read).
            let classType = _EachFieldOptions(rawValue: 1 << 0)
            _forEachField(of: HTTPURLResponse.self, options: classType) { name, offset, type, _ in
                guard String(cString: name) == "_allHeaderFields", type == [String: String].self else { return true }
                found = offset
                return false
            }
            return found
        }()
    }

    /// The delegate queue of a session that ``URLSessionExecutor`` creates on Linux: it runs each delegate
    /// callback at once, on the session's own queue, instead of handing it to another thread (three hops per
    /// call, which cost more than the rest of Courier's work). ``URLSessionHop`` keeps its callbacks short
    /// and never calls back into the task (`cancel()`, a challenge's completion handler) from inside one:
    /// FoundationNetworking runs those synchronously on the same queue.
    // @unchecked: restated from OperationQueue (required for a subclass); it adds no state of its own.
    private final class InlineOperationQueue: OperationQueue, @unchecked Sendable {
        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            block()
        }
    }
#endif

extension URLSessionExecutor: CookieSendingExecutor {
    /// The `Cookie` field the executor adds to a request for `url` from its cookie storage, if any: a credential
    /// the cache keys on (the cache sits before the executor and does not see the field otherwise).
    public func cookieField(for url: URL) -> String? {
        if let sentCookies { return sentCookies.cookieField(for: url) }
        // A session passed to init(session:) sets its cookies itself.
        let configuration = session.configuration
        guard configuration.httpShouldSetCookies,
            let storage = configuration.httpCookieStorage, let cookies = storage.cookies(for: url), !cookies.isEmpty
        else { return nil }
        return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
    }
}
