import AsyncHTTPClient
@_spi(CourierInternals) import Courier
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One call of ``AsyncHTTPClientExecutor``: sends the request and every redirect hop the policy allows,
/// reads the body within the size limit, and ends at the call's deadline or when the caller is cancelled.
///
/// A body held in memory (the default) takes the path of `AsyncHTTPClientCall+Memory.swift`, in the caller's
/// task. A stream or a download runs in a task of its own, so that the deadline (``DeadlineTimer``, one timer
/// for every call) can cancel it even while it waits for body bytes; cancelling that task cancels the HTTP
/// request. A download with an idle timeout has an ``IdleTimer`` instead: the deadline until the head, then
/// the idle timeout from the last bytes received.
final class AsyncHTTPClientCall: Sendable {
    let request: APIRequest
    let client: HTTPClient
    /// Where the cookies of every hop's response go and each hop's `Cookie` field comes from; `nil` for none.
    let cookies: CookieJar?
    /// The TLS configuration of each hop's host.
    let tls: TrustConfigurations
    /// Why the call stopped, once it did.
    let stopped = NIOLockedValueBox<ExecutorStop?>(nil)

    init(request: APIRequest, client: HTTPClient, cookies: CookieJar? = nil, tls: TrustConfigurations) {
        self.request = request
        self.client = client
        self.cookies = cookies
        self.tls = tls
    }

    /// Runs the call and returns the final response.
    func run() async throws -> APIResponse {
        if Task.isCancelled { throw error(for: .cancelled) }
        let delivery = request.responseDelivery
        if !delivery.isStream, delivery.fileURL == nil, request.body.isInMemory,
            #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
        {
            return try await runInMemory()
        }
        let idle = delivery.fileURL == nil ? nil : delivery.idleTimeout.map { IdleTimer(idle: TimeAmount($0)) }
        let work = Task { try await self.perform(boundingBodyReadsBy: nil, idle: idle) }
        let deadline = NIODeadline.now() + TimeAmount(request.timeout)
        var timer: UInt64?
        if let idle {
            idle.start(deadline: deadline) { self.stop(.timedOut, work) }
        } else {
            timer = DeadlineTimer.shared.add(deadline) { self.stop(.timedOut, work) }
        }
        defer {
            if let timer { DeadlineTimer.shared.remove(timer) }
            idle?.end()
        }
        do {
            let response = try await withTaskCancellationHandler {
                try await work.value
            } onCancel: {
                self.stop(.cancelled, work)
            }
            // A stream's progress ends with the stream.
            if response.body.stream == nil { request.progress?.finish() }
            return response
        } catch {
            request.progress?.finish()
            throw error
        }
    }

    /// Records why the call stopped (the first reason wins) and cancels its work.
    func stop<Result>(_ reason: ExecutorStop, _ work: Task<Result, any Error>) {
        stopped.withLockedValue { stopped in
            if stopped == nil { stopped = reason }
        }
        work.cancel()
    }

    // MARK: - Hops

    /// Sends the request, then each redirect hop the policy follows; returns the final response with its body.
    ///
    /// With a `bodyDeadline`, each read of a body is bounded by it (``bounded(by:_:)``); without, the caller
    /// bounds the whole call, or `idle` does (a download with an idle timeout, told when the head and each chunk
    /// of the body arrive).
    func perform(boundingBodyReadsBy bodyDeadline: NIODeadline?, idle: IdleTimer? = nil) async throws -> APIResponse {
        let deadline = bodyDeadline ?? NIODeadline.now() + TimeAmount(request.timeout)
        var hop = Hop(url: request.url, method: request.method, headers: request.headers, body: request.body)
        var redirects = 0
        while true {
            let http: HTTPClientRequest
            do {
                http = try makeRequest(hop)
            } catch {
                throw failure(error)
            }
            let response: HTTPClientResponse
            do {
                response = try await client.execute(http, deadline: deadline)
            } catch {
                // A TLS refusal says where and why (the hop's host), diagnosed within what is left of the call.
                throw await failure(error).diagnosed(
                    url: hop.url, tls: tls, group: client.eventLoopGroup, within: deadline - .now())
            }
            if request.recordsTimeline {
                // What AsyncHTTPClient tells of the connection: the protocol version (not whether it was reused).
                request.record(.connection, detail: "HTTP/\(response.version.major).\(response.version.minor)")
            }
            // Before the hop is followed, so that the next one sends what this one set.
            if let cookies {
                let fields = response.headers["Set-Cookie"]
                if !fields.isEmpty { cookies.store(setCookieFields: fields, from: hop.url) }
            }
            let statusCode = Int(response.status.code)
            guard Self.redirectCodes.contains(statusCode), request.redirectPolicy.followsRedirects,
                let location = response.headers.first(name: "Location"),
                let target = URL(string: location, relativeTo: hop.url)?.absoluteURL
            else {
                request.record(.responseHeadReceived, statusCode: statusCode)
                return try await finish(response, hop: hop, bodyDeadline: bodyDeadline, idle: idle)
            }
            redirects += 1
            let headers = Courier.HTTPHeaders(response.headers)
            let redirect = RedirectHop(
                statusCode: statusCode, headers: headers, from: hop.url, to: target, number: redirects)
            switch request.redirectPolicy.decision(for: redirect) {
            case .follow:
                request.recordRedirect(redirect)
                let next = hop.following(redirect, removingCredentialsOf: request)
                // A one-shot body already sent cannot be sent again: the redirect is the response.
                if !next.body.isEmpty, !next.body.isReplayable {
                    return try await finish(response, hop: hop, bodyDeadline: bodyDeadline, idle: idle)
                }
                await discard(response.body, bodyDeadline: bodyDeadline)
                hop = next
            case .stop:
                return try await finish(response, hop: hop, bodyDeadline: bodyDeadline, idle: idle)
            case .fail(let refusal):
                await discard(response.body, bodyDeadline: bodyDeadline)
                let redirectResponse = APIResponse(
                    statusCode: statusCode, headers: headers, url: hop.url, request: request)
                throw error(for: .redirectRefused(refusal, response: redirectResponse))
            }
        }
    }

    /// The status codes that redirect (with a `Location`).
    static let redirectCodes: Set<Int> = [301, 302, 303, 307, 308]

    /// The request of one hop as an `HTTPClientRequest`, with the jar's cookies for its URL merged into the
    /// request's own `Cookie` field, when it has one that this hop kept (see `CookieJar`).
    private func makeRequest(_ hop: Hop) throws -> HTTPClientRequest {
        var http = HTTPClientRequest(url: hop.url.absoluteString)
        http.tlsConfiguration = try tls.configuration(for: hop.url, of: request)
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
        http.body = try makeBody(hop.body)
        return http
    }

    /// The body to send: in-memory bytes as they are, any other kind (a file, a stream, a multipart form)
    /// streamed chunk by chunk, with its length when it is known.
    private func makeBody(_ body: RequestBody) throws -> HTTPClientRequest.Body? {
        if body.isInMemory {
            guard let data = body.data, !data.isEmpty else { return nil }
            return .bytes(data)
        }
        return .stream(
            StreamedBody(body: body, progress: request.progress),
            length: body.count.map { .known(Int64($0)) } ?? .unknown)
    }

    // MARK: - The body

    /// Hands the body of the final response over as the request's delivery asks (a `2xx` to a stream or a
    /// file; anything else in memory, within the size limit) and makes the call's response.
    private func finish(
        _ response: HTTPClientResponse, hop: Hop, bodyDeadline: NIODeadline?, idle: IdleTimer?
    ) async throws -> APIResponse {
        let url = hop.url
        // A streamed body reported its bytes as the client took them; one in memory has been sent, all of it, once
        // the head arrives (AsyncHTTPClient reports no progress of its own).
        if request.body.isInMemory {
            let sent = Int64(hop.body.count ?? 0)
            request.progress?.reportSent(sent, expected: sent)
        }
        let statusCode = Int(response.status.code)
        let headers = Courier.HTTPHeaders(response.headers)
        let encoding = response.headers.first(name: "Content-Encoding")?.lowercased()
        // The declared length is that of the decoded body only without a content encoding.
        let declared =
            encoding == nil || encoding == "identity"
            ? response.headers.first(name: "Content-Length").flatMap { Int64($0) } : nil
        if (200..<300).contains(statusCode) {
            let delivery = request.responseDelivery
            if delivery.isStream { return stream(response, headers: headers, url: url, expected: declared) }
            if let file = delivery.fileURL {
                return try await download(
                    response, headers: headers, url: url, to: file, resumingAt: delivery.resumeOffset,
                    expected: declared, idle: idle)
            }
        }
        // A `HEAD`'s `Content-Length` is that of the `GET`: its body is empty whatever it says.
        if hop.method != .head, let declared, declared > request.maxResponseBytes { throw tooLarge() }
        let body = response.body
        let data = try await read(bodyDeadline) { try await self.collect(body, declared: declared) }
        // A cancelled body sequence may end early instead of throwing.
        if let stop = stopped.withLockedValue({ $0 }) { throw self.error(for: stop) }
        return APIResponse(statusCode: statusCode, headers: headers, body: .data(data), url: url, request: request)
    }

    /// Reads `body` in memory within the size limit, reporting progress.
    private func collect(_ body: HTTPClientResponse.Body, declared: Int64?) async throws -> Data {
        let limit = request.maxResponseBytes
        var collected: ByteBuffer?
        var received = 0
        do {
            for try await chunk in body {
                received += chunk.readableBytes
                if received > limit { throw tooLarge() }
                request.progress?.reportReceived(Int64(received), expected: declared)
                if collected == nil {
                    collected = chunk
                } else {
                    collected?.writeImmutableBuffer(chunk)
                }
            }
        } catch {
            throw failure(error)
        }
        return collected.map { buffer in buffer.withUnsafeReadableBytes { Data($0) } } ?? Data()
    }

    /// Reads and drops a redirect's body, so that its connection can serve the next request; a long one is
    /// abandoned (the connection is closed instead).
    private func discard(_ body: HTTPClientResponse.Body, bodyDeadline: NIODeadline?) async {
        _ = try? await read(bodyDeadline) {
            var dropped = 0
            do {
                for try await chunk in body {
                    dropped += chunk.readableBytes
                    if dropped > 64 * 1024 { return }
                }
            } catch {
                // The hop's response is complete as far as the call is concerned.
            }
        }
    }

    /// Runs `read`, a read of a body: bounded by `deadline` when there is one (``bounded(by:_:)``), else as
    /// it is (the caller bounds it).
    private func read<Result: Sendable>(
        _ deadline: NIODeadline?, _ read: sending @escaping @isolated(any) () async throws -> Result
    ) async throws -> Result {
        if let deadline, #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return try await bounded(by: deadline, read)
        }
        return try await read()
    }

    // MARK: - Errors

    @Sendable func tooLarge() -> APIError {
        error(for: .responseTooLarge)
    }

    /// The error to throw for `error`: the stop's reason when the call was stopped, else `error` classified.
    func failure(_ error: any Error) -> APIError {
        if let stop = stopped.withLockedValue({ $0 }) { return self.error(for: stop) }
        if let error = error as? APIError { return error }
        if let error = error as? BodyReadFailure {
            return APIError(
                .invalidRequest(.unreadableBody), endpoint: request.endpoint, request: request,
                underlyingError: error.underlying)
        }
        return APIError(
            TransportClassifier.reason(for: error), endpoint: request.endpoint, request: request,
            underlyingError: ConnectionFailure.describable(error))
    }

    /// The error of a call stopped for `stop` (the mapping every executor of this repository shares); a passed
    /// deadline keeps AsyncHTTPClient's own word for it.
    func error(for stop: ExecutorStop) -> APIError {
        stop.error(for: request, timeoutError: HTTPClientError.deadlineExceeded)
    }
}

/// The parts of a request that change from one redirect hop to the next.
struct Hop {
    var url: URL
    var method: Courier.HTTPMethod
    var headers: Courier.HTTPHeaders
    var body: RequestBody

    /// The next hop after `redirect`: `303` (and `301`/`302` after a `POST`) continue as a body-less `GET`
    /// (a `HEAD` stays a `HEAD`), `307`/`308` resend the method and the body; a hop to another origin leaves
    /// every credential of `request` behind.
    func following(_ redirect: RedirectHop, removingCredentialsOf request: APIRequest) -> Hop {
        var next = self
        next.url = redirect.to
        let becomesGET =
            (redirect.statusCode == 303 && method != .head)
            || ((redirect.statusCode == 301 || redirect.statusCode == 302) && method == .post)
        if becomesGET {
            next.method = .get
            next.body = .empty
            for name: Courier.HTTPHeaderName in [.contentType, .contentLength, "Content-Encoding", "Transfer-Encoding"]
            {
                next.headers.remove(name)
            }
        }
        if redirect.isCrossOrigin {
            for field in headers where SensitiveData.isSensitive(field.name, in: request) {
                next.headers.remove(field.name)
            }
        }
        return next
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
