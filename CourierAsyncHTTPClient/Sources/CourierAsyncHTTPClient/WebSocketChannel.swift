@_spi(CourierInternals) import Courier
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

// An open WebSocket of `AsyncHTTPClientExecutor`, after its handshake (`AsyncHTTPClientExecutor+WebSocket.swift`):
//
//     socket ─ [TLS] ─ frame encoder ─ frame decoder ─ WebSocketFrameHandler ──► WebSocketEvents
//                                     (maxFrameSize)   control frames, errors,    (the reader's stream:
//                                                      fragments joined           data messages, the close)
//
// Control frames stay in the pipeline: a ping is answered there, a pong completes the pings waiting for it, so a
// pong is seen while the app reads no data messages. Data messages go to the reader's stream, which holds the socket's
// reads back while two messages wait unread (the reader paces the peer). While a ping waits for its pong and the
// stream holds the reads back, the handler reads on (up to `pongReadAllowance` bytes of data messages) so that a pong
// behind unread messages still arrives.

/// The reader's stream of an open socket: the messages and the peer's close, handed on by ``WebSocketFrameHandler``,
/// which stops reading from the socket while two wait unread (``WebSocketFrameHandler/Demand``).
typealias WebSocketEvents = NIOThrowingAsyncSequenceProducer<
    WebSocketEvent, any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark,
    WebSocketFrameHandler.Demand
>

/// The handler of an open WebSocket: feeds the frames it decodes, the reader's reads, pings and closes to a
/// ``Courier/WebSocketStateMachine`` and performs the actions it returns (answer pings and the peer's close, join
/// fragments within the size limit, hand ``Courier/WebSocketEvent``s on to the reader's ``WebSocketEvents``, and
/// hold the socket's reads back while the reader does not keep up).
final class WebSocketFrameHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    typealias Machine = WebSocketStateMachine<FrameBytes>

    /// The socket's protocol state.
    private var machine: Machine
    /// The pong the pings wait for, while they do (the machine says when it completes or fails).
    private var pong: EventLoopPromise<Void>?
    /// Completed when the peer's close frame arrives or the connection ends.
    private var peerClosed: EventLoopPromise<Void>?
    private var context: ChannelHandlerContext?
    /// Where the reader's events go; `nil` once the stream ended (or before ``makeEvents(on:)``).
    private var source: WebSocketEvents.Source?
    /// The events of the read under way, handed on when it completes (the messages of one read in one hand-over).
    private var events: [WebSocketEvent] = []
    /// Whether the reader's stream takes more events, and whether a read waits for it to.
    private var flow = Flow.flowing

    /// Whether the reader's stream takes more events: the socket's reads pass while it does.
    private enum Flow {
        case flowing
        /// Full: the reads wait until the reader takes an event.
        case full
        /// Full, and a read waits.
        case fullWithReadWaiting
    }

    init(maxMessageBytes: Int) {
        self.machine = Machine(maxMessageBytes: maxMessageBytes)
    }

    /// The reader's stream of this socket's events (made once, on the channel's `eventLoop`, before the handler is
    /// added): two may wait unread before the socket is read no further.
    func makeEvents(on eventLoop: any EventLoop) -> WebSocketEvents {
        let made = WebSocketEvents.makeSequence(
            backPressureStrategy: .init(lowWatermark: 1, highWatermark: 2), finishOnDeinit: true,
            delegate: Demand(handler: NIOLoopBound(self, eventLoop: eventLoop)))
        source = made.source
        return made.sequence
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        peerClosed = context.eventLoop.makePromise()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        connectionEnded()
        finishEvents(nil)
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let event: Machine.Frame
        switch frame.opcode {
        case .text: event = .data(.text, FrameBytes(frame.unmaskedData), fin: frame.fin)
        case .binary: event = .data(.binary, FrameBytes(frame.unmaskedData), fin: frame.fin)
        case .continuation: event = .continuation(FrameBytes(frame.unmaskedData), fin: frame.fin)
        case .ping: event = .ping(FrameBytes(frame.unmaskedData))
        case .pong: event = .pong
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readInteger(as: UInt16.self).map(Int.init)
            event = .close(code: code, reason: data.readString(length: data.readableBytes) ?? "")
        default: event = .unknown(opcode: Int(UInt8(webSocketOpcode: frame.opcode)))
        }
        perform(machine.received(event), context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        let action = machine.readCompleted()
        handOnEvents()
        context.fireChannelReadComplete()
        // With auto-read, the next `read()` follows this event at once, unless the reader's stream holds it.
        if action == .askToReadOn {
            context.eventLoop.assumeIsolated().execute { self.readPastDemand() }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connectionEnded()
        finishEvents(nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The frame decoder's errors: a frame over the size limit (1009) or a broken frame (1002). Handled here, not
        // by NIO's `WebSocketProtocolErrorHandler`, which may close the channel before it passes the error on: the
        // inbound stream would then end as if the connection had dropped.
        if let error = error as? NIOWebSocketError {
            return perform(machine.frameRefused(tooLarge: error == .invalidFrameLength, "\(error)"), context)
        }
        connectionEnded()
        finishEvents(error)
        context.fireErrorCaught(error)
    }

    /// Performs what the machine decided.
    private func perform(_ action: Machine.Action, _ context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .deliver(let kind, let payload):
            deliver(context, kind: kind, payload.buffer)
        case .write(let frame):
            write(frame, context)
        case .completePings:
            completePong(.success(()))
        case .failPings:
            completePong(.failure(CancellationError()))
        case .ended:
            ended()
        case .answerClose(let answer, let close):
            write(answer, context)
            peerClosed?.succeed()
            events.append(.close(close))
        case .peerClosed:
            peerClosed?.succeed()
        case .fail(let violation, let close):
            if let close { write(close, context) }
            let error: any Error =
                switch violation {
                case .messageTooLarge(let limit): WebSocketMessageTooLarge(limit: limit)
                case .invalidText: WebSocketProtocolViolation("a text message that is not UTF-8")
                case .protocolError(let description): WebSocketProtocolViolation(description)
                }
            finishEvents(error)
            context.fireErrorCaught(error)
            context.close(promise: nil)
        }
    }

    /// Writes and flushes `frame`, masked.
    private func write(_ frame: Machine.Outbound, _ context: ChannelHandlerContext) {
        let written: WebSocketFrame
        switch frame {
        case .pong(let payload):
            written = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: payload.buffer)
        case .ping:
            written = WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: ByteBuffer())
        case .close(let code, let reason):
            var data = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
            if let code {
                data.writeInteger(UInt16(clamping: code))
                data.writeString(reason)
            }
            written = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
        }
        context.writeAndFlush(wrapOutboundOut(written), promise: nil)
    }

    /// Hands a whole message on to the inbound stream.
    private func deliver(_ context: ChannelHandlerContext, kind: Machine.MessageKind, _ buffer: ByteBuffer) {
        let message: WebSocketMessage
        switch kind {
        case .text:
            guard let text = Self.text(of: buffer) else { return perform(machine.receivedInvalidText(), context) }
            message = .text(text)
        case .binary:
            message = .binary(Data(buffer.readableBytesView))
        }
        events.append(.message(message))
    }

    /// Hands the events of the read on to the reader's stream; a full stream holds the next reads back.
    private func handOnEvents() {
        guard !events.isEmpty else { return }
        defer { events.removeAll(keepingCapacity: true) }
        guard let source else { return }
        if source.yield(contentsOf: events) == .stopProducing, flow == .flowing { flow = .full }
    }

    /// Ends the reader's stream after the events handed on (with `error`, when it is not `nil`), once.
    private func finishEvents(_ error: (any Error)?) {
        handOnEvents()
        guard let source else { return }
        self.source = nil
        if let error { source.finish(error) } else { source.finish() }
    }

    /// Asks the reader's stream for more: what ``WebSocketEvents`` calls when the reader took an event from a full
    /// stream, or left it.
    struct Demand: NIOAsyncSequenceProducerDelegate {
        let handler: NIOLoopBound<WebSocketFrameHandler>

        func produceMore() {
            let handler = self.handler
            handler.eventLoop.execute { handler.value.readerTookEvents() }
        }

        func didTerminate() {
            let handler = self.handler
            handler.eventLoop.execute { handler.value.readerLeft() }
        }
    }

    /// The reader took events from a full stream: a read that waited passes.
    private func readerTookEvents() {
        let waiting = flow == .fullWithReadWaiting
        flow = .flowing
        if waiting, let context, machine.readerAskedForRead() == .read { context.read() }
    }

    /// The reader left the stream (the connection closes the socket): no read waits for it again.
    private func readerLeft() {
        source = nil
        flow = .fullWithReadWaiting
    }

    /// The UTF-8 text of `buffer`, `nil` when it is not UTF-8: the standard library's validation where the platform
    /// has it (Foundation's `String(bytes:encoding:)` costs a few percent of an echo round trip on Linux).
    private static func text(of buffer: ByteBuffer) -> String? {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            return String(validating: buffer.readableBytesView, as: UTF8.self)
        }
        return String(bytes: buffer.readableBytesView, encoding: .utf8)
    }

    // MARK: Outbound

    func read(context: ChannelHandlerContext) {
        switch flow {
        case .flowing: if machine.readerAskedForRead() == .read { context.read() }
        case .full: flow = .fullWithReadWaiting
        case .fullWithReadWaiting: break
        }
    }

    /// Sends a ping; the future completes when a pong arrives.
    func ping() -> EventLoopFuture<Void>? {
        guard let context, context.channel.isActive else { return nil }
        guard case .write(let frame) = machine.pingRequested() else { return nil }
        let pong = self.pong ?? context.eventLoop.makePromise(of: Void.self)
        self.pong = pong
        write(frame, context)
        readPastDemand()
        return pong.futureResult
    }

    /// The connection gave up waiting for a pong: the pings waiting fail, and a close then does not wait for the
    /// peer.
    func pongAbandoned() {
        guard let context else { return }
        perform(machine.pongAbandoned(), context)
    }

    /// Completes the pong the pings wait for, if they do.
    private func completePong(_ result: Result<Void, any Error>) {
        let pong = self.pong
        self.pong = nil
        pong?.completeWith(result)
    }

    /// What the transport does to close with `code` and `reason`: the machine's decision, its close frame written.
    /// The future completes when the peer's close arrives or the connection ends (`nil`: close at once).
    func close(code: Int, reason: String) -> EventLoopFuture<Void>? {
        guard let context, let peerClosed, context.channel.isActive else { return nil }
        switch machine.closeRequested(code: code, reason: reason) {
        case .sendAndWait(let code, let reason, let readOn):
            write(.close(code: code, reason: reason), context)
            if readOn { context.read() }
            return peerClosed.futureResult
        case .sendAndClose(let code, let reason):
            write(.close(code: code, reason: reason), context)
            return nil
        case .wait:
            return peerClosed.futureResult
        case .close, .none:
            return nil
        }
    }

    /// Reads from the socket past the reader's demand when the machine says so.
    private func readPastDemand() {
        guard let context, context.channel.isActive, machine.readOnRequested() == .read else { return }
        context.read()
    }

    /// The connection ended: the machine knows, and says what ends with it.
    private func connectionEnded() {
        if case .ended = machine.connectionEnded() { ended() }
    }

    /// The pings fail, a wait for the peer's close ends.
    private func ended() {
        completePong(.failure(ChannelError.ioOnClosedChannel))
        peerClosed?.succeed()
    }
}

/// A frame's bytes, as ``Courier/WebSocketStateMachine`` counts and joins them.
struct FrameBytes: WebSocketPayload {
    var buffer: ByteBuffer

    init(_ buffer: ByteBuffer) {
        self.buffer = buffer
    }

    var byteCount: Int { buffer.readableBytes }

    mutating func append(_ other: FrameBytes) {
        var bytes = other.buffer
        buffer.writeBuffer(&bytes)
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
        events: WebSocketEvents
    ) {
        self.request = request
        self.channel = channel
        self.handler = handler
        self.inbound = InboundReader(iterator: events.makeAsyncIterator())
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
            // The connection cancels a ping it gave up on: the peer does not answer, so a close does not wait for it.
            try await withTaskCancellationHandler {
                try await pong.get()
            } onCancel: {
                handler.eventLoop.execute { handler.value.pongAbandoned() }
            }
        } catch {
            throw failure(error)
        }
    }

    func close(_ close: WebSocketClose) async {
        let handler = self.handler
        let reason = close.reason  // cut by the connection to what a close frame holds
        let peerClosed = channel.eventLoop.submit {
            handler.value.close(code: close.code, reason: reason)
        }
        // Up to a second for the peer's close frame when the machine waits for it, then the connection closes
        // whatever came (a future's `get()` does not end with a cancelled task: the second is a timer on the
        // channel's loop).
        if let peerClosed = try? await peerClosed.get() {
            let loop = channel.eventLoop
            let waited = loop.makePromise(of: Void.self)
            peerClosed.cascade(to: waited)
            let timer = loop.scheduleTask(in: .seconds(1)) { waited.succeed() }
            try? await waited.futureResult.get()
            timer.cancel()
        }
        try? await channel.close()
    }

    /// `error` as the ``Courier/APIError`` of the request.
    func failure(_ error: any Error) -> APIError {
        if let error = error as? APIError { return error }
        return APIError(
            TransportClassifier.reason(for: error), endpoint: request.endpoint, request: request,
            underlyingError: ConnectionFailure.describable(error))
    }

    /// The one iterator over the socket's events.
    // @unchecked Sendable: WebSocketTransport.receive() has one caller at a time, so the iterator is never shared.
    final class InboundReader: @unchecked Sendable {
        private var iterator: WebSocketEvents.AsyncIterator

        init(iterator: WebSocketEvents.AsyncIterator) {
            self.iterator = iterator
        }

        func next() async throws -> WebSocketEvent? {
            try await iterator.next()
        }
    }
}
