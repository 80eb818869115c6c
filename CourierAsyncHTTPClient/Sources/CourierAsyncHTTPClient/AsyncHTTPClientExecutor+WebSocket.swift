import AsyncHTTPClient
@_spi(CourierInternals) import Courier
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import NIOWebSocket

/// The handshake of a WebSocket request (``Courier/ResponseDelivery/webSocket``) of ``AsyncHTTPClientExecutor``,
/// over SwiftNIO on the client's event loops: a connection (TLS for `https`/`wss`), the upgrade request with the
/// request's headers and the jar's cookies, then either the open socket (`101`, a ``Courier/WebSocketConnection``
/// over ``NIOWebSocketTransport``) or the response with its body in memory (any other status, so that a `401` goes
/// back through the plugins).
///
/// TLS follows the executor's trust for the host (``TrustConfigurations``); a public-key pin is checked against the
/// server's certificate once the TLS handshake completes, before the upgrade request leaves (``PublicKeyPinGate``).
/// A refused handshake fails with the TLS library's error (``TLSErrorRecorder``: the upgrade itself fails with a
/// channel error once the connection closes) and where and why (``TLSDiagnosis``).
/// Courier's deadline bounds the handshake (it cancels the calling task); cancelling that task stops it at once.
final class WebSocketHandshake: Sendable {
    let request: APIRequest
    let group: any EventLoopGroup
    let tls: TrustConfigurations
    let cookies: CookieJar?
    private let state = NIOLockedValueBox(State())

    private struct State {
        var stop: ExecutorStop?
        var channel: (any Channel)?
        var finished = false
        /// Holds the connection's end back until the upgrade is decided.
        var hold: NIOLoopBound<UpgradeEndHold>?
        /// The server's certificate had none of the pinned public keys (the connection then closes, and the
        /// upgrade fails with whatever error closing gives it): its key's hash, `nil` when the pins matched.
        var pinnedKeyMissing: PinnedKeyMissing?
        /// The TLS library's first error, when the handshake failed.
        var tlsError: (any Error & Sendable)?
    }

    /// What the upgrade came to: the open socket, or the refusal's head and body (read until its end).
    enum Outcome: Sendable {
        case upgraded(any Channel, WebSocketEvents, NIOLoopBound<WebSocketFrameHandler>, HTTPResponseHead)
        case refused(EventLoopFuture<RefusedHandshake>)
    }

    /// A handshake answered with another status than `101`.
    struct RefusedHandshake: Sendable {
        let head: HTTPResponseHead
        let body: ByteBuffer
    }

    /// The proxy the handshake goes through (a `CONNECT` tunnel, ``ProxyTunnel``); `nil` for none.
    let proxy: HTTPProxy.Server?

    init(request: APIRequest, executor: AsyncHTTPClientExecutor) {
        self.request = request
        self.group = executor.client.eventLoopGroup
        self.tls = executor.tls
        self.cookies = executor.cookies
        self.proxy = executor.proxies?.proxy.server(for: request.url)
    }

    /// Performs the handshake, until the calling task is cancelled (Courier cancels it at the call's deadline).
    func run() async throws -> APIResponse {
        if Task.isCancelled { throw ExecutorStop.cancelled.error(for: request) }
        let loop = group.next()
        let result = loop.makePromise(of: APIResponse.self)
        let deadline = NIODeadline.now() + TimeAmount(request.timeout)
        let work = Task {
            do {
                let response = try await self.handshake()
                if !self.complete(result, .success(response)) { await Self.discard(response) }
            } catch {
                let failure = await self.failure(error).diagnosed(
                    url: self.request.url, tls: self.tls, group: self.group, within: deadline - .now())
                _ = self.complete(result, .failure(failure))
            }
        }
        return try await withTaskCancellationHandler {
            try await result.futureResult.get()
        } onCancel: {
            self.stop(.cancelled, result, work)
        }
    }

    /// Completes `result` unless it was completed (by a stop); whether it was this call that completed it.
    private func complete(_ result: EventLoopPromise<APIResponse>, _ value: Result<APIResponse, any Error>) -> Bool {
        let first = state.withLockedValue { state in
            defer { state.finished = true }
            return !state.finished
        }
        if first { result.completeWith(value) }
        return first
    }

    /// Stops the handshake for `reason`: fails the call at once and closes the connection, if there is one.
    private func stop(_ reason: ExecutorStop, _ result: EventLoopPromise<APIResponse>, _ work: Task<Void, Never>) {
        let channel = state.withLockedValue { state -> (any Channel)? in
            if state.stop == nil { state.stop = reason }
            return state.channel
        }
        _ = complete(result, .failure(error(for: reason)))
        work.cancel()
        channel?.close(promise: nil)
    }

    /// Closes the socket of a handshake that finished after the call stopped.
    private static func discard(_ response: APIResponse) async {
        await response.body.webSocket?.close(code: 1001)
    }

    private func error(for stop: ExecutorStop) -> APIError {
        stop.error(for: request, timeoutError: HTTPClientError.deadlineExceeded)
    }

    /// The error to throw for `error`: the stop's reason when the handshake was stopped, else `error` classified.
    private func failure(_ error: any Error) -> APIError {
        let (stop, pinnedKeyMissing, tlsError) = state.withLockedValue { ($0.stop, $0.pinnedKeyMissing, $0.tlsError) }
        if let stop { return self.error(for: stop) }
        if pinnedKeyMissing != nil || tlsError != nil {
            return APIError(
                .transport(.secureConnectionFailed), endpoint: request.endpoint, request: request,
                underlyingError: pinnedKeyMissing ?? tlsError)
        }
        if let error = error as? APIError { return error }
        return APIError(
            TransportClassifier.reason(for: error), endpoint: request.endpoint, request: request,
            underlyingError: ConnectionFailure.describable(error))
    }

    // MARK: - The handshake

    private func handshake() async throws -> APIResponse {
        let url = request.url
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else {
            throw APIError(.invalidRequest(.invalidURL), endpoint: request.endpoint, request: request)
        }
        let secure = scheme == "https" || scheme == "wss"
        let port = components.port ?? (secure ? 443 : 80)
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: requestHeaders(host, port))
        let tls =
            secure
            ? (try self.tls.configuration(for: url, of: request, webSocket: true) ?? self.tls.base
                ?? TLSConfiguration.makeClientConfiguration()) : nil
        let pins = secure ? self.tls.publicKeyPins(for: host) : []
        let bootstrap =
            (ClientBootstrap(validatingGroup: group) ?? ClientBootstrap(group: .singletonMultiThreadedEventLoopGroup))
            .connectTimeout(TimeAmount(request.timeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
        let proxy = self.proxy
        let upgrade = try await bootstrap.connect(host: proxy?.host ?? host, port: proxy?.port ?? port) { channel in
            guard let proxy else {
                return channel.eventLoop.makeCompletedFuture {
                    try self.configure(channel, head: head, tls: tls, pins: pins, host: host)
                }
            }
            // Through the proxy: the tunnel first, then the server's pipeline on the open tunnel.
            let name = host.contains(":") ? "[\(host)]" : host
            let tunnel = ProxyTunnel(target: "\(name):\(port)", server: proxy, on: channel.eventLoop)
            do {
                try channel.pipeline.syncOperations.addHandler(tunnel)
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
            // The bootstrap connects once the initializer's future completes: the outcome is a future of its own.
            let outcome = tunnel.established.futureResult
                .flatMapThrowing { try self.configure(channel, head: head, tls: tls, pins: pins, host: host) }
                .flatMap { $0 }
            return channel.eventLoop.makeSucceededFuture(outcome)
        }
        let outcome: Outcome
        do {
            outcome = try await upgrade.get()
            await releaseHold()
        } catch {
            await releaseHold()
            throw error
        }
        switch outcome {
        case .upgraded(let channel, let events, let handler, let head):
            let transport = NIOWebSocketTransport(request: request, channel: channel, handler: handler, events: events)
            received(head)
            let connection = WebSocketConnection(
                request: request, transport: transport, subprotocol: head.headers.first(name: "Sec-WebSocket-Protocol"))
            return APIResponse(
                statusCode: Int(head.status.code), headers: Courier.HTTPHeaders(head.headers),
                body: .webSocket(connection), request: request)
        case .refused(let refusal):
            let refused = try await refusal.get()
            received(refused.head)
            return APIResponse(
                statusCode: Int(refused.head.status.code), headers: Courier.HTTPHeaders(refused.head.headers),
                body: .data(Data(refused.body.readableBytesView)), request: request)
        }
    }

    /// Lets the connection's end (held while the upgrade ran) follow the frames that came with the `101`.
    private func releaseHold() async {
        guard let hold = state.withLockedValue({ $0.hold }) else { return }
        try? await hold.eventLoop.submit { hold.value.release() }.get()
    }

    /// The request's headers, with `Host` (unless it has one) and the jar's cookies merged into its `Cookie` field.
    private func requestHeaders(_ host: String, _ port: Int) -> NIOHTTP1.HTTPHeaders {
        var headers = NIOHTTP1.HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 2)
        for field in request.headers {
            headers.add(name: field.name.rawValue, value: field.value)
        }
        if !headers.contains(name: "Host") {
            let name = host.contains(":") ? "[\(host)]" : host
            headers.add(name: "Host", value: port == 80 || port == 443 ? name : "\(name):\(port)")
        }
        if let cookies, let field = cookies.cookieField(for: request.url, merging: headers["Cookie"]) {
            headers.replaceOrAdd(name: "Cookie", value: field)
        }
        return headers
    }

    /// Records the handshake response in the timeline and stores its cookies.
    private func received(_ head: HTTPResponseHead) {
        if request.recordsTimeline {
            request.record(.connection, detail: "HTTP/\(head.version.major).\(head.version.minor)")
        }
        request.record(.responseHeadReceived, statusCode: Int(head.status.code))
        if let cookies {
            let fields = head.headers["Set-Cookie"]
            if !fields.isEmpty { cookies.store(setCookieFields: fields, from: request.url) }
        }
    }

    /// Sets up the connection's pipeline (on its event loop): TLS, the HTTP client with the WebSocket upgrader.
    private func configure(
        _ channel: any Channel, head: HTTPRequestHead, tls: TLSConfiguration?, pins: [[UInt8]], host: String
    ) throws -> EventLoopFuture<Outcome> {
        let stop = state.withLockedValue { state -> ExecutorStop? in
            state.channel = channel
            return state.stop
        }
        if let stop { throw error(for: stop) }
        let pipeline = channel.pipeline.syncOperations
        if let tls {
            let context = try NIOSSLContext(configuration: tls)
            // SNI names a host, never an address.
            let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
            try pipeline.addHandler(NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host))
            try pipeline.addHandler(
                TLSErrorRecorder { error in
                    self.state.withLockedValue { state in
                        if state.tlsError == nil { state.tlsError = error }
                    }
                })
            if !pins.isEmpty {
                try pipeline.addHandler(
                    PublicKeyPinGate(pins: pins) { missing in
                        self.state.withLockedValue { $0.pinnedKeyMissing = missing }
                    })
            }
        }
        let hold = UpgradeEndHold()
        try pipeline.addHandler(hold)
        state.withLockedValue { $0.hold = NIOLoopBound(hold, eventLoop: channel.eventLoop) }
        try pipeline.addHandler(RequestSentObserver(request: request))
        let limit = request.maxResponseBytes
        let upgrader = NIOTypedWebSocketClientUpgrader<Outcome>(
            maxFrameSize: min(max(limit, 125), Int(UInt32.max)), enableAutomaticErrorHandling: false
        ) { channel, head in
            channel.eventLoop.makeCompletedFuture {
                let handler = WebSocketFrameHandler(maxMessageBytes: limit)
                let events = handler.makeEvents(on: channel.eventLoop)
                try channel.pipeline.syncOperations.addHandler(handler)
                return .upgraded(channel, events, NIOLoopBound(handler, eventLoop: channel.eventLoop), head)
            }
        }
        let upgrade = NIOTypedHTTPClientUpgradeConfiguration<Outcome>(upgradeRequestHead: head, upgraders: [upgrader]) {
            channel in
            channel.eventLoop.makeCompletedFuture {
                let collector = RefusalCollector(limit: limit, promise: channel.eventLoop.makePromise())
                try channel.pipeline.syncOperations.addHandler(collector)
                return .refused(collector.promise.futureResult)
            }
        }
        var configuration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgrade)
        // Frames the server sends right after its `101`, in the same read, are the socket's first.
        configuration.leftOverBytesStrategy = .forwardBytes
        return try pipeline.configureUpgradableHTTPClientPipeline(configuration: configuration)
    }
}

/// Holds every write back until the TLS handshake completes, then lets them go only when the server's certificate
/// has one of the pinned public keys (the SHA-256 of its SubjectPublicKeyInfo); otherwise the connection closes with
/// ``PinnedKeyMissing`` and the upgrade request was never sent. SwiftNIO SSL has verified the chain and the host
/// name by then.
private final class PublicKeyPinGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    /// The SHA-256 of each pinned SubjectPublicKeyInfo.
    let pins: [[UInt8]]
    /// Told when the certificate has none of the pins, before the connection closes.
    let mismatch: @Sendable (PinnedKeyMissing) -> Void
    private var held: [(NIOAny, EventLoopPromise<Void>?)] = []
    private var flushed = false
    private var open = false

    init(pins: [[UInt8]], mismatch: @escaping @Sendable (PinnedKeyMissing) -> Void) {
        self.pins = pins
        self.mismatch = mismatch
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard open else { return held.append((data, promise)) }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        guard open else {
            flushed = true
            return
        }
        context.flush()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event, !open {
            let key =
                (try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self))?.peerCertificate
                .flatMap { try? TLSPin.publicKey(of: TLSCertificate(der: Data($0.toDERBytes()))).publicKeyHash }
            let writes = held
            held.removeAll()
            guard let key, pins.contains(key) else {
                let missing = PinnedKeyMissing(presentedKeyHashes: key.map { [$0] } ?? [])
                mismatch(missing)
                for (_, promise) in writes { promise?.fail(missing) }
                context.fireErrorCaught(missing)
                context.close(promise: nil)
                return
            }
            open = true
            for (data, promise) in writes { context.write(data, promise: promise) }
            if flushed { context.flush() }
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Tells the TLS library's error of a failed handshake, as it passes towards the upgrade (which holds it back, then
/// fails with a channel error of its own: the TLS error would be lost). Errors after the handshake are not its.
private final class TLSErrorRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    let record: @Sendable (any Error & Sendable) -> Void
    private var handshakeCompleted = false

    init(record: @escaping @Sendable (any Error & Sendable) -> Void) {
        self.record = record
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event { handshakeCompleted = true }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !handshakeCompleted else { return context.fireErrorCaught(error) }
        switch error {
        case let error as NIOSSLError: record(error)
        case let error as NIOSSLExtraError: record(error)
        case let error as BoringSSLError: record(error)
        default: break
        }
        context.fireErrorCaught(error)
    }
}

/// The server's certificate has none of the public keys pinned for its host.
struct PinnedKeyMissing: Error, CustomStringConvertible {
    /// The SHA-256 of the SubjectPublicKeyInfo the server's certificate holds (empty when it could not be read).
    let presentedKeyHashes: [[UInt8]]

    var description: String { "the server's certificate has none of the public keys pinned for its host" }
}

/// Holds a connection's end (its errors and `channelInactive`) back while the WebSocket upgrade runs, then lets it
/// follow in order. SwiftNIO's upgrade handler buffers the bytes that arrive with the `101` (a server's first message)
/// until the upgrade completes, but lets the end pass at once: a message sent right before a drop would reach the
/// socket's handlers after the drop, and be lost. Released (and removed) once the upgrade is decided.
private final class UpgradeEndHold: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private enum End {
        case error(any Error)
        case inactive
    }

    private var held: [End] = []
    private var released = false
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard released else { return held.append(.error(error)) }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        guard released else { return held.append(.inactive) }
        context.fireChannelInactive()
    }

    /// Passes on what was held, in order, and leaves the pipeline.
    func release() {
        guard !released, let context else { return }
        released = true
        let ends = held
        held.removeAll()
        for end in ends {
            switch end {
            case .error(let error): context.fireErrorCaught(error)
            case .inactive: context.fireChannelInactive()
            }
        }
        if context.channel.isActive {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}

/// Records ``Courier/CallTimeline/Event/Kind/requestSent`` when the upgrade request is flushed, then leaves the
/// pipeline.
private final class RequestSentObserver: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = Any
    let request: APIRequest

    init(request: APIRequest) {
        self.request = request
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        request.record(.requestSent)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// Reads the response to a refused upgrade (its head and its body, within the size limit), then closes the
/// connection.
private final class RefusalCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    let limit: Int
    let promise: EventLoopPromise<WebSocketHandshake.RefusedHandshake>
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    init(limit: Int, promise: EventLoopPromise<WebSocketHandshake.RefusedHandshake>) {
        self.limit = limit
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(var chunk):
            guard body.readableBytes + chunk.readableBytes <= limit else {
                promise.fail(WebSocketMessageTooLarge(limit: limit))
                context.close(promise: nil)
                return
            }
            body.writeBuffer(&chunk)
        case .end:
            if let head { promise.succeed(.init(head: head, body: body)) }
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(HTTPClientError.remoteConnectionClosed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }
}
