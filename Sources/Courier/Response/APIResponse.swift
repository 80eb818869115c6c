import Foundation

/// The body of a response: in memory, in a file (a download), a stream read as it arrives, or an open WebSocket.
///
/// A struct rather than an enum so that new kinds of body can be added without breaking code that reads
/// ``data``.
public struct ResponseBody: Sendable, Hashable {
    enum Storage: Sendable, Hashable {
        case data(Data)
        case file(URL)
        case stream(ResponseStream)
        case webSocket(WebSocketConnection)
    }

    let storage: Storage

    /// A body held in memory.
    public static func data(_ data: Data) -> ResponseBody {
        ResponseBody(storage: .data(data))
    }

    /// A body written to the file at `url`.
    public static func file(_ url: URL) -> ResponseBody {
        ResponseBody(storage: .file(url))
    }

    /// A body handed over as it arrives.
    public static func stream(_ stream: ResponseStream) -> ResponseBody {
        ResponseBody(storage: .stream(stream))
    }

    /// The open socket of a WebSocket handshake's `101` response.
    public static func webSocket(_ connection: WebSocketConnection) -> ResponseBody {
        ResponseBody(storage: .webSocket(connection))
    }

    /// An empty body.
    public static let empty = ResponseBody.data(Data())

    /// The bytes of an in-memory body; `nil` for a file, a stream or a WebSocket.
    public var data: Data? {
        if case .data(let data) = storage { return data }
        return nil
    }

    /// The file of a downloaded body.
    public var fileURL: URL? {
        if case .file(let url) = storage { return url }
        return nil
    }

    /// The stream of a streamed body.
    public var stream: ResponseStream? {
        if case .stream(let stream) = storage { return stream }
        return nil
    }

    /// The open socket of a WebSocket handshake.
    public var webSocket: WebSocketConnection? {
        if case .webSocket(let connection) = storage { return connection }
        return nil
    }

    /// Whether the body is empty in memory (`false` for a file, a stream or a WebSocket).
    public var isEmpty: Bool {
        if case .data(let data) = storage { return data.isEmpty }
        return false
    }
}

/// A response as an executor received it: status, headers, body, and the request that produced it.
public struct APIResponse: Sendable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: ResponseBody
    /// The URL the response came from, after any redirects.
    public var url: URL?
    /// The request that produced this response.
    public var request: APIRequest
    /// Set when the ``ResponseCache`` answered: the entry's age and whether the server revalidated it;
    /// `nil` for a response from the network.
    public var cacheHit: CacheHit? = nil
    /// The version of HTTP the response came over, as OpenTelemetry's `network.protocol.version` writes it: `1.0`,
    /// `1.1`, `2` or `3`; `nil` when the executor does not know (`URLSessionExecutor`: URLSession tells the protocol
    /// only in its task metrics, once the body has arrived). Executors set it; the timeline, `.metrics()` and HAR
    /// files show it.
    public var httpVersion: String? = nil
    /// What the trust of the call's executor warned about on its way (a root or pin past its rotation date), for
    /// the logging plugins.
    var trustWarnings: [String] = []

    /// Creates a response. Executors create these; tests can too.
    public init(
        statusCode: Int,
        headers: HTTPHeaders = [:],
        body: ResponseBody = .empty,
        url: URL? = nil,
        request: APIRequest
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url ?? request.url
        self.request = request
    }

    /// The body's bytes (empty when the body is a file or a stream).
    public var data: Data { body.data ?? Data() }

    /// What happened during the call: its attempts, retries, redirects, cache decisions and phases; `nil` when
    /// no observer of the configuration watches events (see ``CallTimeline``).
    public var timeline: CallTimeline? { request.recorder?.timeline }

    /// The character set named by `Content-Type` (`charset=…`), if any.
    var charset: String? {
        guard let contentType = headers[.contentType] else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else {
                continue
            }
            return pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }
}
