@_spi(CourierInternals) import Courier
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

// An open WebSocket of `AsyncHTTPClientExecutor`, after its handshake (`AsyncHTTPClientExecutor+WebSocket.swift`):
//
//     socket ─ [TLS] ─ frame encoder ─ frame decoder ─ WebSocketFrameHandler ─ NIOAsyncChannel
//                                     (maxFrameSize)   control frames, errors   (data messages,
//                                                      fragments joined         backpressure)
//
// Control frames stay in the pipeline: a ping is answered there, a pong completes the pings waiting for it, so a
// pong is seen while the app reads no data messages. Data messages go to the `NIOAsyncChannel`'s inbound stream,
// which stops reading from the socket when two messages wait unread (the reader paces the peer). While a ping waits
// for its pong and the stream holds the reads back, the handler reads on (up to `pongReadAllowance` bytes of data
// messages) so that a pong behind unread messages still arrives.

/// The handler of an open WebSocket: answers pings, completes pings with their pongs, joins fragments into messages
/// within the size limit, and turns frames into ``Courier/WebSocketEvent``s.
final class WebSocketFrameHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketEvent
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// The bytes of data messages read past the inbound stream's backpressure while a pong is awaited.
    static let pongReadAllowance = 1 << 20

    /// The largest message, in bytes.
    let maxMessageBytes: Int
    /// The message being joined from its fragments: its opcode and its bytes so far.
    private var partial: (opcode: WebSocketOpcode, buffer: ByteBuffer)?
    /// The pings waiting for a pong.
    private var pongWaiters: [EventLoopPromise<Void>] = []
    /// Completed when the peer's close frame arrives or the connection ends.
    private var peerClosed: EventLoopPromise<Void>?
    /// Whether our close frame was sent: data messages after it are dropped.
    private var closing = false
    /// Whether a `read()` from the inbound stream passed since the last read completed (else the stream holds reads
    /// back).
    private var streamWantsReads = true
    /// Whether the read being served is one of ours, past the stream's backpressure.
    private var readingPastBackpressure = false
    /// The bytes of data messages read past the backpressure since the stream last asked for a read.
    private var bytesPastBackpressure = 0
    private var context: ChannelHandlerContext?

    init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        peerClosed = context.eventLoop.makePromise()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        endWaiters(error: ChannelError.ioOnClosedChannel)
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            guard !closing else { return }
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .pong:
            let waiters = pongWaiters
            pongWaiters.removeAll()
            for waiter in waiters { waiter.succeed() }
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readInteger(as: UInt16.self).map(Int.init) ?? 1005
            let reason = data.readString(length: data.readableBytes) ?? ""
            let wasClosing = closing
            closing = true
            peerClosed?.succeed()
            if !wasClosing {
                context.fireChannelRead(wrapInboundOut(.close(WebSocketClose(code: code, reason: reason))))
            }
        case .text, .binary:
            guard !closing else { return }
            guard partial == nil else {
                return fail(context, WebSocketProtocolViolation("a new message began inside a fragmented one"))
            }
            count(frame)
            guard frame.length <= maxMessageBytes else { return refuseTooLarge(context) }
            if frame.fin {
                deliver(context, opcode: frame.opcode, frame.unmaskedData)
            } else {
                partial = (frame.opcode, frame.unmaskedData)
            }
        case .continuation:
            guard !closing else { return }
            guard var message = partial else {
                return fail(context, WebSocketProtocolViolation("a continuation frame outside a fragmented message"))
            }
            count(frame)
            guard message.buffer.readableBytes + frame.length <= maxMessageBytes else {
                return refuseTooLarge(context)
            }
            partial = nil
            var data = frame.unmaskedData
            message.buffer.writeBuffer(&data)
            if frame.fin {
                deliver(context, opcode: message.opcode, message.buffer)
            } else {
                partial = message
            }
        default:
            fail(context, WebSocketProtocolViolation("an unknown opcode \(frame.opcode)"))
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        streamWantsReads = false
        readingPastBackpressure = false
        context.fireChannelReadComplete()
        // With auto-read, the stream's next `read()` follows this event at once, unless its backpressure holds it.
        if !pongWaiters.isEmpty || closing {
            context.eventLoop.assumeIsolated().execute { self.readPastBackpressure() }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        endWaiters(error: ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        endWaiters(error: error)
        // The frame decoder's errors: a frame over the size limit (1009) or a broken frame (1002). Handled here, not
        // by NIO's `WebSocketProtocolErrorHandler`, which may close the channel before it passes the error on: the
        // inbound stream would then end as if the connection had dropped.
        if let error = error as? NIOWebSocketError {
            return fail(context, error, code: error == .invalidFrameLength ? 1009 : 1002)
        }
        context.fireErrorCaught(error)
    }

    /// Hands a whole message on to the inbound stream.
    private func deliver(_ context: ChannelHandlerContext, opcode: WebSocketOpcode, _ buffer: ByteBuffer) {
        let message: WebSocketMessage
        if opcode == .text {
            guard let text = Self.text(of: buffer) else {
                return fail(context, WebSocketProtocolViolation("a text message that is not UTF-8"), code: 1007)
            }
            message = .text(text)
        } else {
            message = .binary(Data(buffer.readableBytesView))
        }
        context.fireChannelRead(wrapInboundOut(.message(message)))
    }

    /// The UTF-8 text of `buffer`, `nil` when it is not UTF-8: the standard library's validation where the platform
    /// has it (Foundation's `String(bytes:encoding:)` costs a few percent of an echo round trip on Linux).
    private static func text(of buffer: ByteBuffer) -> String? {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            return String(validating: buffer.readableBytesView, as: UTF8.self)
        }
        return String(bytes: buffer.readableBytesView, encoding: .utf8)
    }

    /// Counts the bytes of a data frame read past the backpressure.
    private func count(_ frame: WebSocketFrame) {
        if readingPastBackpressure { bytesPastBackpressure += frame.length }
    }

    // MARK: Outbound

    func read(context: ChannelHandlerContext) {
        streamWantsReads = true
        readingPastBackpressure = false
        bytesPastBackpressure = 0
        context.read()
    }

    /// Sends a ping; the future completes when a pong arrives.
    func ping() -> EventLoopFuture<Void>? {
        guard let context, context.channel.isActive, !closing else { return nil }
        let pong = context.eventLoop.makePromise(of: Void.self)
        pongWaiters.append(pong)
        let frame = WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: ByteBuffer())
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        readPastBackpressure()
        return pong.futureResult
    }

    /// Sends the close frame (once) and reads on, dropping data messages, until the peer's close; the future
    /// completes when it arrives or the connection ends.
    func close(code: Int, reason: String) -> EventLoopFuture<Void>? {
        guard let context, let peerClosed else { return nil }
        if !closing, context.channel.isActive {
            closing = true
            var data = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
            data.writeInteger(UInt16(clamping: code))
            data.writeString(reason)
            let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
            context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
            readPastBackpressure()
        }
        return peerClosed.futureResult
    }

    /// Reads from the socket when the inbound stream holds reads back and a pong (or the peer's close) is awaited,
    /// within ``pongReadAllowance``.
    private func readPastBackpressure() {
        guard let context, context.channel.isActive, !streamWantsReads, !readingPastBackpressure else { return }
        guard closing || (!pongWaiters.isEmpty && bytesPastBackpressure < Self.pongReadAllowance) else { return }
        readingPastBackpressure = true
        context.read()
    }

    // MARK: Failures

    /// Refuses a message over the size limit while it arrives: closes with `1009` and fails the stream.
    private func refuseTooLarge(_ context: ChannelHandlerContext) {
        partial = nil
        fail(context, WebSocketMessageTooLarge(limit: maxMessageBytes), code: 1009)
    }

    /// Sends a close frame with `code` (once), fails the inbound stream with `error` and closes the channel.
    private func fail(_ context: ChannelHandlerContext, _ error: any Error, code: Int = 1002) {
        if !closing {
            closing = true
            var data = context.channel.allocator.buffer(capacity: 2)
            data.writeInteger(UInt16(clamping: code))
            let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
            context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        }
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func endWaiters(error: any Error) {
        let waiters = pongWaiters
        pongWaiters.removeAll()
        for waiter in waiters { waiter.fail(error) }
        peerClosed?.succeed()
    }
}

/// A message longer than the request's `maxResponseBytes`, refused while its frames arrived.
struct WebSocketMessageTooLarge: Error, CustomStringConvertible {
    let limit: Int
    var description: String { "a WebSocket message over \(limit) bytes" }
}

/// A peer that broke the WebSocket protocol (RFC 6455).
struct WebSocketProtocolViolation: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One open WebSocket over a SwiftNIO channel: the ``Courier/WebSocketTransport`` of `AsyncHTTPClientExecutor`.
///
/// A class so that a connection nobody holds any more closes its channel (`deinit`).
final class NIOWebSocketTransport: WebSocketTransport {
    let request: APIRequest
    let channel: any Channel
    let handler: NIOLoopBound<WebSocketFrameHandler>
    let inbound: InboundReader

    init(
        request: APIRequest, channel: any Channel, handler: NIOLoopBound<WebSocketFrameHandler>,
        inbound: NIOAsyncChannelInboundStream<WebSocketEvent>
    ) {
        self.request = request
        self.channel = channel
        self.handler = handler
        self.inbound = InboundReader(iterator: inbound.makeAsyncIterator())
    }

    deinit {
        channel.close(promise: nil)
    }

    func receive() async throws -> WebSocketEvent {
        let event: WebSocketEvent?
        do {
            event = try await inbound.next()
        } catch {
            throw failure(error)
        }
        guard let event else {
            if Task.isCancelled { throw ExecutorStop.cancelled.error(for: request) }
            throw APIError(.transport(.connectionLost), endpoint: request.endpoint, request: request)
        }
        return event
    }

    func send(_ message: WebSocketMessage) async throws {
        let frame: WebSocketFrame
        switch message {
        case .text(let text):
            frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
        case .binary(let data):
            frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: ByteBuffer(bytes: data))
        }
        // While the channel takes more bytes, the frame is written without waiting for the write to finish (as
        // NIOAsyncChannel's writer does: a wait costs a hop back from the event loop per message); a failed write
        // closes the channel, which the next send or receive reports. Past the channel's high-water mark, the send
        // waits for its write: a fast sender holds at most that much in memory.
        guard channel.isActive else {
            throw APIError(.transport(.connectionLost), endpoint: request.endpoint, request: request)
        }
        if channel.isWritable {
            channel.writeAndFlush(frame, promise: nil)
            return
        }
        do {
            try await channel.writeAndFlush(frame)
        } catch {
            throw failure(error)
        }
    }

    func ping() async throws {
        let handler = self.handler
        let pong = channel.eventLoop.flatSubmit {
            handler.value.ping() ?? handler.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        do {
            try await pong.get()
        } catch {
            throw failure(error)
        }
    }

    func close(_ close: WebSocketClose) async {
        guard close.code != 1006 else {
            try? await channel.close()
            return
        }
        let handler = self.handler
        let reason = close.reason  // cut by the connection to what a close frame holds
        let peerClosed = channel.eventLoop.flatSubmit {
            handler.value.close(code: close.code, reason: reason) ?? handler.eventLoop.makeSucceededVoidFuture()
        }
        // Up to a second for the peer's close frame, then the connection closes whatever came (a future's `get()`
        // does not end with a cancelled task: the second is a timer on the channel's loop).
        let loop = channel.eventLoop
        let waited = loop.makePromise(of: Void.self)
        peerClosed.cascade(to: waited)
        let timer = loop.scheduleTask(in: .seconds(1)) { waited.succeed() }
        try? await waited.futureResult.get()
        timer.cancel()
        try? await channel.close()
    }

    /// `error` as the ``Courier/APIError`` of the request.
    func failure(_ error: any Error) -> APIError {
        if let error = error as? APIError { return error }
        return APIError(
            TransportClassifier.reason(for: error), endpoint: request.endpoint, request: request,
            underlyingError: ConnectionFailure.describable(error))
    }

    /// The one iterator over the channel's inbound stream.
    // @unchecked Sendable: WebSocketTransport.receive() has one caller at a time, so the iterator is never shared.
    final class InboundReader: @unchecked Sendable {
        private var iterator: NIOAsyncChannelInboundStream<WebSocketEvent>.AsyncIterator

        init(iterator: NIOAsyncChannelInboundStream<WebSocketEvent>.AsyncIterator) {
            self.iterator = iterator
        }

        func next() async throws -> WebSocketEvent? {
            try await iterator.next()
        }
    }
}

/// The inbound stream of an open socket, which outlives any one scope (the connection holds it until it closes):
/// SwiftNIO deprecated `NIOAsyncChannel.inbound` for `executeThenClose`, whose scope a transport cannot keep open.
protocol UnscopedInbound {
    associatedtype Inbound: Sendable
    var inbound: NIOAsyncChannelInboundStream<Inbound> { get }
}

extension NIOAsyncChannel: UnscopedInbound {}
