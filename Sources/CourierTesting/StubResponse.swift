import Courier
import Foundation

/// What a ``StubExecutor`` answers: a status, headers and a body, or an error, optionally after a delay.
///
/// ```swift
/// .json(#"{"login":"octocat"}"#)
/// .json(User(login: "octocat"), status: 201)
/// .text("pong", headers: ["Content-Type": "text/plain; charset=utf-8"])
/// .status(204)
/// .error(URLError(.notConnectedToInternet))
/// .json("[]").delayed(by: .milliseconds(300))
/// .chunked(["data: a\n\n", "data: b\n\n"], every: .milliseconds(100))   // a slow stream
/// .file(fixtureURL)                                                     // a body read from a file
/// .webSocket(StubWebSocket([.send(.text("welcome"))]))                  // a WebSocket's server
/// ```
///
/// Whatever the body, it reaches the caller the way the request asks (`APIRequest.responseDelivery`):
/// in memory, written to the download's file, or as a ``/Courier/ResponseStream`` whose chunks arrive one by one.
/// A WebSocket handshake answered with anything but ``webSocket(_:headers:)`` is refused with that response.
public struct StubResponse: Sendable {
    /// The status code.
    public var statusCode: Int
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data
    /// An error to throw instead of answering.
    public var error: (any Error)?
    /// How long to wait before answering (or throwing); the wait ends early when the task is cancelled.
    public var delay: Duration?
    /// The body in chunks, sent one by one with ``chunkInterval`` between two; `nil` to send ``body`` at once.
    public var chunks: [Data]?
    /// The wait between two chunks of ``chunks`` (or of ``bodyFile``): the first one comes at once.
    public var chunkInterval: Duration = .zero
    /// A file whose bytes are the body (read in chunks when it is streamed or downloaded).
    public var bodyFile: URL?
    /// The server of a WebSocket handshake this response accepts.
    var webSocketServer: StubWebSocket?

    /// Creates a response.
    public init(
        statusCode: Int = 200,
        headers: HTTPHeaders = [:],
        body: Data = Data(),
        error: (any Error)? = nil,
        delay: Duration? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.error = error
        self.delay = delay
    }

    /// A JSON body given as text, with `Content-Type: application/json`.
    public static func json(_ json: String, status: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        var all: HTTPHeaders = ["Content-Type": "application/json"]
        all.merge(headers)
        return StubResponse(statusCode: status, headers: all, body: Data(json.utf8))
    }

    /// A JSON body encoded from `value`; if it cannot be encoded, the stub throws the `EncodingError`.
    public static func json(
        _ value: some Encodable,
        status: Int = 200,
        headers: HTTPHeaders = [:],
        encoder: JSONEncoder = APIConfiguration.makeDefaultEncoder()
    ) -> StubResponse {
        do {
            var response = StubResponse.data(try encoder.encode(value), status: status, headers: headers)
            response.headers[.contentType] = response.headers[.contentType] ?? "application/json"
            return response
        } catch {
            return .error(error)
        }
    }

    /// A body of raw bytes.
    public static func data(_ data: Data, status: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        StubResponse(statusCode: status, headers: headers, body: data)
    }

    /// A UTF-8 text body, `Content-Type: text/plain; charset=utf-8` unless `headers` says otherwise.
    public static func text(_ text: String, status: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        var all: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]
        all.merge(headers)
        return StubResponse(statusCode: status, headers: all, body: Data(text.utf8))
    }

    /// An empty body with `status`.
    public static func status(_ status: Int, headers: HTTPHeaders = [:]) -> StubResponse {
        StubResponse(statusCode: status, headers: headers)
    }

    /// Throws `error`, as a transport failure would (a `URLError` is classified like a real one).
    public static func error(_ error: any Error) -> StubResponse {
        StubResponse(error: error)
    }

    /// A body sent as `chunks`, the first at once and each next one after `interval`: a stream's reader sees them
    /// arrive one by one, and an idle timeout shorter than `interval` fires.
    public static func chunked(
        _ chunks: [Data], every interval: Duration = .zero, status: Int = 200, headers: HTTPHeaders = [:]
    ) -> StubResponse {
        var response = StubResponse(statusCode: status, headers: headers)
        response.chunks = chunks
        response.chunkInterval = interval
        return response
    }

    /// A body of UTF-8 text sent as `chunks`, `interval` apart, for example the lines of an event stream.
    public static func chunked(
        _ chunks: [String], every interval: Duration = .zero, status: Int = 200, headers: HTTPHeaders = [:]
    ) -> StubResponse {
        chunked(chunks.map { Data($0.utf8) }, every: interval, status: status, headers: headers)
    }

    /// A body read from the file at `url` when the stub answers.
    public static func file(_ url: URL, status: Int = 200, headers: HTTPHeaders = [:]) -> StubResponse {
        var response = StubResponse(statusCode: status, headers: headers)
        response.bodyFile = url
        return response
    }

    /// Accepts a WebSocket handshake (`101 Switching Protocols` with `headers`) and opens a connection to `server`,
    /// which plays its script and records what the client sends:
    ///
    /// ```swift
    /// let server = StubWebSocket([.send(.text("welcome")), .close(code: 1000)])
    /// let stub = StubExecutor().stub(Chat.$room, with: .webSocket(server, headers: ["Sec-WebSocket-Protocol": "chat.v2"]))
    /// ```
    ///
    /// A `Sec-WebSocket-Protocol` in `headers` is the subprotocol the server chose
    /// (``/Courier/WebSocketConnection/subprotocol``). Each handshake opens one more connection to the same server
    /// (see ``StubWebSocket``); a request that is not a handshake gets `426 Upgrade Required`, as from a real
    /// WebSocket server.
    public static func webSocket(_ server: StubWebSocket, headers: HTTPHeaders = [:]) -> StubResponse {
        var response = StubResponse(statusCode: 101, headers: headers)
        response.webSocketServer = server
        return response
    }

    /// The same response after `delay`.
    public func delayed(by delay: Duration) -> StubResponse {
        var copy = self
        copy.delay = delay
        return copy
    }
}
