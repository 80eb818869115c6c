import AsyncHTTPClient
@_spi(CourierInternals) import Courier
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One hop of ``AsyncHTTPClientExecutor``: sends the request with the client (which follows no redirect) and hands
/// the response head over with its body as a ``Courier/ResponseStream``, read from the client as its reader asks:
/// AsyncHTTPClient stops reading from the socket while the stream's window is full. A reader that stops early
/// cancels the request. Courier's policy does the rest (deadline, redirects, size limit, delivery).
struct AsyncHTTPClientHop {
    let hop: APIRequest
    let client: HTTPClient
    /// Where the cookies of the hop's response go and its `Cookie` field comes from; `nil` for none.
    let cookies: CookieJar?
    /// The TLS configuration of each host.
    let tls: TrustConfigurations

    /// Sends the hop and returns the response head with its body as it arrives.
    func run() async throws -> APIResponse {
        let http: HTTPClientRequest
        do {
            http = try makeRequest()
        } catch {
            throw failure(error)
        }
        let deadline = NIODeadline.now() + TimeAmount(hop.timeout)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(http, deadline: deadline)
        } catch {
            // A TLS refusal says where and why (the hop's host), diagnosed within what is left of the call.
            throw await failure(error).diagnosed(
                url: hop.url, tls: tls, group: client.eventLoopGroup, within: deadline - .now())
        }
        let version = Self.version(response.version)
        if hop.recordsTimeline {
            // What AsyncHTTPClient tells of the connection: the protocol version (not whether it was reused).
            hop.record(.connection, detail: "HTTP/" + version)
        }
        if let cookies {
            let fields = response.headers["Set-Cookie"]
            if !fields.isEmpty { cookies.store(setCookieFields: fields, from: hop.url) }
        }
        var received = APIResponse(
            statusCode: Int(response.status.code), headers: Courier.HTTPHeaders(response.headers),
            body: .stream(stream(of: response.body)), url: hop.url, request: hop)
        received.httpVersion = version
        return received
    }

    /// `version` as OpenTelemetry's `network.protocol.version` writes it: `1.1`, `2` (not `2.0`).
    static func version(_ version: NIOHTTP1.HTTPVersion) -> String {
        switch (version.major, version.minor) {
        case (1, 1): "1.1"  // literals: nothing formatted for the usual versions
        case (2, 0): "2"
        case (1, 0): "1.0"
        case (let major, 0) where major > 2: "\(major)"
        case (let major, let minor): "\(major).\(minor)"
        }
    }

    /// The request as an `HTTPClientRequest`, with the jar's cookies for its URL merged into the hop's own `Cookie`
    /// field (see `CookieJar`).
    private func makeRequest() throws -> HTTPClientRequest {
        var http = HTTPClientRequest(url: hop.url.absoluteString)
        http.tlsConfiguration = try tls.configuration(for: hop.url, of: hop)
        http.method = NIOHTTP1.HTTPMethod(rawValue: hop.method.rawValue)
        http.headers.reserveCapacity(hop.headers.count + 1)
        for field in hop.headers {
            http.headers.add(name: field.name.rawValue, value: field.value)
        }
        if let cookies {
            // One `Cookie` field (RFC 6265 §5.4): the hop's own pairs, which win on a name clash, then the jar's.
            let own = http.headers["Cookie"]
            if let field = cookies.cookieField(for: hop.url, merging: own) {
                http.headers.replaceOrAdd(name: "Cookie", value: field)
            }
        }
        if hop.body.isInMemory {
            if let data = hop.body.data, !data.isEmpty { http.body = .bytes(data) }
        } else {
            http.body = .stream(
                StreamedBody(body: hop.body, progress: hop.progress),
                length: hop.body.count.map { .known(Int64($0)) } ?? .unknown)
        }
        return http
    }

    /// The body as a stream its reader paces: a task of its own reads the client's body, waiting while the
    /// reader's window is full; a reader that stops cancels that task, and with it the request.
    private func stream(of body: HTTPClientResponse.Body) -> ResponseStream {
        let pump = NIOLockedValueBox<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))
        let (stream, continuation) = ResponseStream.makeStream(for: hop) {
            let task = pump.withLockedValue { state -> Task<Void, Never>? in
                state.cancelled = true
                return state.task
            }
            task?.cancel()
        }
        let task = Task {
            do {
                for try await chunk in body {
                    try Task.checkCancellation()
                    await continuation.send(chunk.withUnsafeReadableBytes { Data($0) })
                }
                // A cancelled body sequence may end early instead of throwing.
                try Task.checkCancellation()
                continuation.finish()
            } catch {
                continuation.finish(throwing: self.failure(error))
            }
        }
        let cancelled = pump.withLockedValue { state -> Bool in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
        return stream
    }

    /// `error` classified as Courier's ``Courier/APIError``.
    func failure(_ error: any Error) -> APIError {
        if let error = error as? APIError { return error }
        if let error = error as? BodyReadFailure {
            return APIError(
                .invalidRequest(.unreadableBody), endpoint: hop.endpoint, request: hop,
                underlyingError: error.underlying)
        }
        return APIError(
            TransportClassifier.reason(for: error), endpoint: hop.endpoint, request: hop,
            underlyingError: ConnectionFailure.describable(error))
    }
}

extension Courier.HTTPHeaders {
    /// The fields of a SwiftNIO header block, in order, repeated names kept apart.
    init(_ headers: NIOHTTP1.HTTPHeaders) {
        var fields: [Field] = []
        fields.reserveCapacity(headers.count)
        for (name, value) in headers {
            fields.append(Field(name: HTTPHeaderName(rawValue: name), value: value))
        }
        self.init(fields)
    }
}

extension TimeAmount {
    /// The longest timeout honoured: about three years (a deadline this far away never passes, and adding
    /// it to the clock cannot overflow).
    static let longestTimeout: Int64 = 100_000_000_000_000_000

    /// `duration` in nanoseconds, between zero and ``longestTimeout``.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else {
            self = .zero
            return
        }
        guard seconds < Self.longestTimeout / 1_000_000_000 else {
            self = .nanoseconds(Self.longestTimeout)
            return
        }
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
