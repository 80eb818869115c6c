import Foundation

extension ResponseStream {
    /// The body parsed as Server-Sent Events, like ``events``, reconnecting after the stream ends or drops as
    /// `reconnect` says, the way a browser's `EventSource` does.
    ///
    /// ```swift
    /// let stream = try await Feeds.$live.stream(with: "news")
    /// for try await event in stream.events(reconnect: .upTo(5)) {
    ///     apply(event)                        // across drops, each event once (when the server resumes)
    /// }
    /// ```
    ///
    /// When the stream ends, or fails with a transient transport error (``APIError/TransportProblem/transient``:
    /// the connection lost, an idle timeout, no connection, the device offline), the request is sent again after a wait, through the same plugins (auth applies again), with
    /// `Last-Event-ID` set to the last event ID seen; a server that honours it resumes after that event. The wait
    /// is the stream's last `retry:` value, else the policy's `delay`, never more than its `maxDelay`.
    ///
    /// The events end (`nil`) when a response is `204 No Content`. They fail with the error when a reconnection's
    /// status is not acceptable (``APIError/Reason/unacceptableStatus(_:)``), when a response is not
    /// `text/event-stream` (``APIError/Reason/decodingFailed``, the first response included), after `attempts`
    /// reconnections in a row that delivered no event (the last connection's error,
    /// ``APIError/TransportProblem/connectionLost`` when it ended cleanly), and with
    /// ``APIError/TransportProblem/cancelled`` at once when the reading task is cancelled, during the wait too.
    /// A request whose body cannot be sent twice (a one-shot stream) is not reconnected. Without
    /// ``API/stream(with:idleTimeout:progress:using:)`` (a stream made from chunks) there is nothing to reconnect
    /// to: the events end with the stream.
    ///
    /// - Parameter reconnect: ``ServerSentEvent/ReconnectPolicy/upTo(_:delay:maxDelay:)``; without
    ///   reconnection, read ``events`` instead.
    public func events(reconnect: ServerSentEvent.ReconnectPolicy) -> APISequence<ServerSentEvent> {
        APISequence { EventReader(stream: self, reconnect: reconnect) }
    }
}

/// Whether a stream that drops opens again, how often and after how long: the policy of both
/// ``ResponseStream/events(reconnect:)`` (server-sent events) and ``API/connect(with:pingInterval:reconnect:using:)``
/// (WebSockets). The same type as ``ServerSentEvent/ReconnectPolicy``.
///
/// ```swift
/// let socket = try await Chat.$room.connect(with: "lobby", reconnect: .upTo(5, delay: .seconds(1)))
/// ```
public typealias ReconnectPolicy = ServerSentEvent.ReconnectPolicy

extension ServerSentEvent {
    /// Whether a stream that drops opens again, how often and after how long: for the events of a stream
    /// (``ResponseStream/events(reconnect:)``) and for a WebSocket (``API/connect(with:pingInterval:reconnect:using:)``);
    /// also spelled ``ReconnectPolicy``. Reconnections in a row are counted from the last event or message: each one
    /// starts the count again. Events wait the stream's `retry:` (else `delay`); a WebSocket waits `delay`, doubled
    /// for each attempt in a row up to `maxDelay`, and a message starts that doubling again too.
    public struct ReconnectPolicy: Sendable {
        /// The most reconnections in a row without an event in between.
        let attempts: Int
        /// The wait before a reconnection while the stream has sent no `retry:`.
        let delay: Duration
        /// The longest wait before a reconnection, whatever `retry:` asks.
        let maxDelay: Duration

        /// No reconnection (what ``ResponseStream/events`` reads with).
        static let never = ReconnectPolicy(attempts: 0, delay: .zero, maxDelay: .zero)

        /// Reconnects up to `attempts` times in a row; the count starts again after each event (a WebSocket's: each
        /// message).
        ///
        /// - Parameters:
        ///   - attempts: The most reconnections without an event (or message) in between; then the stream fails.
        ///   - delay: The wait before a reconnection while the stream has sent no `retry:` field; a WebSocket's first
        ///     wait, doubled for each further attempt in a row.
        ///   - maxDelay: The longest wait, whatever `retry:` asks (a server cannot make the client sleep for days).
        public static func upTo(
            _ attempts: Int, delay: Duration = .seconds(3), maxDelay: Duration = .seconds(60)
        ) -> ReconnectPolicy {
            let maxDelay = Swift.max(.zero, maxDelay)
            return ReconnectPolicy(
                attempts: Swift.max(0, attempts), delay: Swift.min(Swift.max(.zero, delay), maxDelay),
                maxDelay: maxDelay)
        }
    }
}

/// Where a stream from ``API/stream(with:idleTimeout:progress:using:)`` came from: the head of its response, and
/// how to send its request again. ``ResponseStream/events(reconnect:)`` reconnects with it. (A class: a stream holds it, and it holds
/// a response, which may hold a stream.)
final class StreamOrigin: Sendable {
    /// The response that opened the stream, without its body.
    let response: APIResponse
    /// Sends the request again through the plugins, with `Last-Event-ID: lastEventID` (none when it is empty;
    /// the request's own when it is `nil`). `nil` when the request cannot be sent again.
    let reopen: (@Sendable (_ lastEventID: String?) async throws(APIError) -> ResponseStream)?

    init(
        response: APIResponse, reopen: (@Sendable (_ lastEventID: String?) async throws(APIError) -> ResponseStream)?
    ) {
        self.response = response
        self.reopen = reopen
    }
}

/// The reconnection state of one loop over ``ResponseStream/events(reconnect:)``.
struct Reconnection: Sendable {
    let policy: ServerSentEvent.ReconnectPolicy
    /// Where the stream being read came from.
    var origin: StreamOrigin
    /// The reconnections since the last event.
    var attempts = 0

    init?(policy: ServerSentEvent.ReconnectPolicy, origin: StreamOrigin?) {
        guard policy.attempts > 0, let origin else { return nil }
        self.policy = policy
        self.origin = origin
    }

    /// Whether a stream that failed with `error` is worth opening again: a transport failure the next connection
    /// may not have, never a cancellation, a limit of the client, or an answer of the server.
    static func reconnects(after error: APIError) -> Bool {
        error.reason.isTransient
    }

    /// Fails unless `response` is an event stream.
    static func check(_ response: APIResponse) throws(APIError) {
        let type = response.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard type?.lowercased() != "text/event-stream" else { return }
        let context = DecodingError.Context(
            codingPath: [],
            debugDescription: "the Content-Type is \(type.map { "'\($0)'" } ?? "missing"), not text/event-stream")
        throw APIError(
            .decodingFailed, endpoint: response.request.endpoint, request: response.request, response: response,
            underlyingError: DecodingError.dataCorrupted(context))
    }

    /// The stream to read after the current one ended (`error` is `nil`) or failed with `error`; `nil` when the
    /// events end there.
    /// - Throws: `error` when it is not worth reconnecting after it; the last attempt's error after
    ///   `policy.attempts` failed ones; `.cancelled` when the task is cancelled; a reconnection's answer that
    ///   is not an acceptable event stream.
    mutating func reopen(
        after error: APIError?, lastEventID: String?, retry: Duration?, request: APIRequest
    ) async throws(APIError) -> ResponseStream? {
        if let error, !Self.reconnects(after: error) { throw error }
        guard origin.response.statusCode != 204, let reopen = origin.reopen else {
            if let error { throw error }
            return nil
        }
        var failure =
            error
            ?? APIError(
                .transport(.connectionLost), endpoint: request.endpoint, request: request,
                underlyingError: URLError(.networkConnectionLost))
        let delay = Swift.min(retry ?? policy.delay, policy.maxDelay)
        while attempts < policy.attempts {
            attempts += 1
            do {
                try Task.checkCancellation()
                try await Task.sleep(for: delay)
            } catch {
                throw APIError(
                    .transport(.cancelled), endpoint: request.endpoint, request: request, underlyingError: error)
            }
            let stream: ResponseStream
            do throws(APIError) {
                stream = try await reopen(lastEventID)
            } catch  where Self.reconnects(after: error) {
                failure = error
                continue
            }
            guard let origin = stream.origin else { return stream }
            if origin.response.statusCode == 204 { return nil }
            try Self.check(origin.response)
            self.origin = origin
            return stream
        }
        throw failure
    }
}
