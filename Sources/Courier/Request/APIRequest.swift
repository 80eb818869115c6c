import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request built from an endpoint, a parameter and a configuration, ready to send.
///
/// Build one without any I/O with `$endpoint.makeRequest(with:)`; executors turn it into a response.
/// Every part is inspectable, so tests can assert on it, and ``urlRequest`` converts it for URLSession.
public struct APIRequest: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The full URL, percent-encoded, built once from its parts (the base URL, the path and ``queryItems``).
    ///
    /// Setting it replaces the whole URL, its query included: ``queryItems`` are then the ones of the URL you set
    /// (the next page from a `Link` header, say). To add or change a query item, change ``queryItems``.
    public var url: URL {
        get { target.url }
        set { target = RequestTarget(url: newValue) }
    }
    /// The URL and, when Courier built it, its parts: the query stays items from the encoder to the executor.
    var target: RequestTarget
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: RequestBody
    /// The deadline for the whole call, counted from when the call starts: every attempt (connect, send,
    /// wait, receive), every redirect, every wait before a retry and every auth refresh fall within it. A
    /// call that runs out of it fails with ``APIError/TransportProblem/timedOut``.
    ///
    /// An executor receives in `timeout` what is left of the call's deadline when the attempt it sends
    /// starts, and bounds the attempt by it, counted from when it starts the attempt.
    public var timeout: Duration
    /// What to do when the server redirects.
    public var redirectPolicy: RedirectPolicy
    /// The most bytes of response body (after any content decoding) held in memory, inclusive: a body of exactly
    /// this many bytes is accepted, and a call that receives more fails with
    /// ``APIError/TransportProblem/responseTooLarge`` the moment it crosses the limit. For a WebSocket, the largest
    /// message, inclusive too.
    public var maxResponseBytes: Int
    /// Names whose values are secret in this request, beyond the ones Courier always treats as secret: as a
    /// header, a query item, a form field or a JSON key (names compare case-insensitively). The auth plugins
    /// add the header or query item they set (``APIPlugin/apiKey(_:queryItem:)`` its query item's name), and
    /// ``APIConfiguration/sensitiveNames`` is copied here. Their values are redacted wherever the request is
    /// printed, logged or cached, and such headers are removed before a cross-origin redirect.
    public var sensitiveNames: Set<HTTPHeaderName>
    /// How the executor hands over the response body: in memory (the default), to a file, or as a stream.
    /// The call forms set it; see `ResponseDelivery`.
    public var responseDelivery: ResponseDelivery = .memory
    /// Where the executor reports bytes sent and received while the call runs; `nil` for none.
    public var progress: TransferProgress? {
        get { watchers?.progress }
        set { watchers = CallWatchers.make(progress: newValue, recorder: watchers?.recorder) }
    }
    /// The endpoint this request was built from.
    public let endpoint: APIEndpoint
    /// Records the call's timeline when its configuration has observers; `nil` otherwise (see `CallRecorder`).
    var recorder: CallRecorder? {
        get { watchers?.recorder }
        set { watchers = CallWatchers.make(progress: watchers?.progress, recorder: newValue) }
    }
    /// Whose plugins the request is passing through, for where they may add credentials (``CredentialOrigins``);
    /// `nil` outside the pipeline.
    var credentialContext: CredentialContext? = nil
    /// When the pipeline started the call whose deadline ``timeout`` is; none until then, and for a call
    /// without plugins (its one attempt is the whole call). See `APIRequest+Deadline.swift`.
    /// In `DispatchTime` uptime nanoseconds (the clock of the executors' deadlines), 0 for none: eight bytes, where
    /// an optional instant would grow every copy of the request by 32.
    var callStarted: UInt64 = 0
    /// ``progress`` and ``recorder`` in one reference, `nil` when neither is set (nearly every call): a request is
    /// copied through every plugin and layer, and one optional reference copies as cheaply as none.
    private var watchers: CallWatchers? = nil

    /// Creates a request. Requests are normally built with `$endpoint.makeRequest(with:)`.
    public init(
        method: HTTPMethod,
        url: URL,
        headers: HTTPHeaders = [:],
        body: RequestBody = .empty,
        timeout: Duration = .seconds(60),
        redirectPolicy: RedirectPolicy = .follow,
        maxResponseBytes: Int = APIConfiguration.defaultMaxResponseBytes,
        sensitiveNames: Set<HTTPHeaderName> = [],
        endpoint: APIEndpoint
    ) {
        self.init(
            method: method, target: RequestTarget(url: url), headers: headers, body: body, timeout: timeout,
            redirectPolicy: redirectPolicy, maxResponseBytes: maxResponseBytes, sensitiveNames: sensitiveNames,
            endpoint: endpoint)
    }

    /// A request to `target` (Courier's own requests, whose URL keeps its parts).
    init(
        method: HTTPMethod,
        target: RequestTarget,
        headers: HTTPHeaders,
        body: RequestBody,
        timeout: Duration,
        redirectPolicy: RedirectPolicy,
        maxResponseBytes: Int,
        sensitiveNames: Set<HTTPHeaderName>,
        endpoint: APIEndpoint
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.redirectPolicy = redirectPolicy
        self.maxResponseBytes = maxResponseBytes
        self.sensitiveNames = sensitiveNames
        self.endpoint = endpoint
    }

    /// The query items of ``url``, in order, percent-decoded.
    ///
    /// Settable: a plugin adds, replaces or removes a query item here, and the request rebuilds its URL from the
    /// items. Names and values are percent-encoded with the query rule (every byte outside `A-Z a-z 0-9 - . _ ~`);
    /// an item that stays as it was, at the same position, keeps its encoding.
    ///
    /// ```swift
    /// request.queryItems.append(URLQueryItem(name: "locale", value: "de-CH"))
    /// ```
    public var queryItems: [URLQueryItem] {
        get { target.query.decodedItems }
        set {
            let current = target.query
            encodedQuery = current.replacing(with: newValue)
        }
    }

    /// The query's items, percent-encoded: what the cache key, the redactor and pagination read and change.
    /// Setting it rebuilds ``url`` from its parts.
    var encodedQuery: EncodedQuery {
        get { target.query }
        set {
            if let changed = target.replacingQuery(with: newValue) { target = changed }
        }
    }

    /// The request as a `URLRequest`, with an in-memory body set as `httpBody`; a file, stream or multipart body
    /// is not set (``URLSessionExecutor`` streams it).
    public var urlRequest: URLRequest {
        var request = URLRequest(url: url)
        // Set as a property: FoundationNetworking ignores the initializer's timeoutInterval argument.
        request.timeoutInterval = timeout.timeInterval
        // `GET` is URLRequest's default, and setting the method costs more than the rest of this getter.
        if method != .get { request.httpMethod = method.rawValue }
        for field in headers {
            request.addValue(field.value, forHTTPHeaderField: field.name.rawValue)
        }
        if let data = body.data { request.httpBody = data }
        return request
    }
}

/// What watches one call while it runs: its progress and its timeline recorder (see `APIRequest.watchers`).
/// Immutable: setting either on a request replaces the box, so copies of the request never share a change.
final class CallWatchers: Sendable {
    let progress: TransferProgress?
    let recorder: CallRecorder?

    private init(progress: TransferProgress?, recorder: CallRecorder?) {
        self.progress = progress
        self.recorder = recorder
    }

    /// A box holding both, or `nil` when both are `nil`.
    static func make(progress: TransferProgress?, recorder: CallRecorder?) -> CallWatchers? {
        if progress == nil, recorder == nil { return nil }
        return CallWatchers(progress: progress, recorder: recorder)
    }
}

extension Duration {
    /// The duration in seconds as a `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
