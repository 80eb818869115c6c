import Courier
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import CourierAsyncHTTPClient

/// `WebSocketFrameHandler` in an `EmbeddedChannel`, without a socket: the frames it writes for the frames it reads,
/// the events it hands on to the reader's stream, the errors it raises, and its reads held back or past the reader's
/// demand.
@Suite("WebSocketFrameHandler")
struct WebSocketFrameHandlerTests {
    /// Counts the reads the handler asks of the socket.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var reads = 0

        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    /// A connected channel with a read counter and the handler, for messages of at most `maxMessageBytes`, and the
    /// reader's stream of its events.
    static func channel(
        maxMessageBytes: Int = 10
    ) throws -> (channel: EmbeddedChannel, handler: WebSocketFrameHandler, reads: ReadCounter, events: WebSocketEvents)
    {
        let channel = EmbeddedChannel()
        let reads = ReadCounter()
        let handler = WebSocketFrameHandler(maxMessageBytes: maxMessageBytes)
        let events = handler.makeEvents(on: channel.eventLoop)
        try channel.pipeline.syncOperations.addHandler(reads)
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, handler, reads, events)
    }

    static func frame(_ opcode: WebSocketOpcode, _ bytes: [UInt8], fin: Bool = true) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, data: ByteBuffer(bytes: bytes))
    }

    static func text(_ text: String, fin: Bool = true) -> WebSocketFrame {
        frame(.text, Array(text.utf8), fin: fin)
    }

    static func close(_ code: UInt16, _ reason: String = "") -> WebSocketFrame {
        var data = ByteBuffer()
        data.writeInteger(code)
        data.writeString(reason)
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }

    /// The frame the handler wrote as opcode and payload (the encoder masks it with the key the frame carries).
    struct Written: Equatable, CustomStringConvertible {
        var opcode: WebSocketOpcode
        var payload: [UInt8]
        var description: String { "\(opcode) \(payload)" }
    }

    /// The frames written so far, each checked to carry a mask key (a client masks every frame).
    static func written(_ channel: EmbeddedChannel) throws -> [Written] {
        var frames: [Written] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
            #expect(frame.maskKey != nil, "a client frame without a mask key")
            #expect(frame.fin)
            frames.append(Written(opcode: frame.opcode, payload: Array(frame.data.readableBytesView)))
        }
        return frames
    }

    /// Every event the reader's stream held, read to its end once the channel is closed, and the error it ended with.
    static func events(
        _ channel: EmbeddedChannel, _ stream: WebSocketEvents
    ) async -> (events: [WebSocketEvent], error: (any Error)?) {
        if channel.isActive { try? await channel.close().get() }
        var events: [WebSocketEvent] = []
        do {
            for try await event in stream { events.append(event) }
        } catch {
            return (events, error)
        }
        return (events, nil)
    }

    // MARK: Frames in, frames out

    @Test("A ping is answered with a pong carrying its payload, and nothing reaches the reader")
    func pingAnswered() async throws {
        let (channel, _, _, stream) = try Self.channel()
        try channel.writeInbound(Self.frame(.ping, [7, 8]))
        #expect(try Self.written(channel) == [Written(opcode: .pong, payload: [7, 8])])
        #expect(await Self.events(channel, stream).events == [])
    }

    @Test("Fragments are joined into one message; a ping between them is answered")
    func fragmentsJoined() async throws {
        let (channel, _, _, stream) = try Self.channel()
        try channel.writeInbound(Self.text("he", fin: false))
        try channel.writeInbound(Self.frame(.ping, []))
        try channel.writeInbound(Self.frame(.continuation, Array("llo".utf8)))
        try channel.writeInbound(Self.frame(.binary, [1, 2]))
        #expect(try Self.written(channel) == [Written(opcode: .pong, payload: [])])
        #expect(
            await Self.events(channel, stream).events == [.message(.text("hello")), .message(.binary(Data([1, 2])))])
    }

    @Test("The peer's close is answered with its code and handed on after the messages before it")
    func peerCloseAnswered() async throws {
        let (channel, _, _, stream) = try Self.channel()
        try channel.writeInbound(Self.text("last"))
        try channel.writeInbound(Self.close(1001, "bye"))
        #expect(try Self.written(channel) == [Written(opcode: .connectionClose, payload: [0x03, 0xE9])])
        #expect(
            await Self.events(channel, stream).events == [
                .message(.text("last")), .close(WebSocketClose(code: 1001, reason: "bye")),
            ])
    }

    // MARK: Violations

    /// A frame the handler refuses, the close code it answers with, and the error it raises.
    struct RefusalCase: Sendable, CustomTestStringConvertible {
        var name: String
        var frames: @Sendable () -> [WebSocketFrame]
        var closeCode: UInt16
        var tooLarge: Bool
        var testDescription: String { name }
    }

    @Test(
        "A violation writes its close code, fails the reader and closes the channel",
        arguments: [
            RefusalCase(
                name: "text not UTF-8", frames: { [frame(.text, [0xFF, 0xFE])] }, closeCode: 1007, tooLarge: false),
            RefusalCase(
                name: "over the limit", frames: { [frame(.binary, Array(repeating: 1, count: 11))] }, closeCode: 1009,
                tooLarge: true),
            RefusalCase(
                name: "joined over the limit",
                frames: { [text("123456", fin: false), frame(.continuation, Array("78901".utf8))] }, closeCode: 1009,
                tooLarge: true),
            RefusalCase(
                name: "continuation out of place", frames: { [frame(.continuation, [1])] }, closeCode: 1002,
                tooLarge: false),
        ])
    func violations(_ refusal: RefusalCase) async throws {
        let (channel, _, _, stream) = try Self.channel()
        var raised: (any Error)?
        for frame in refusal.frames() {
            do {
                try channel.writeInbound(frame)
            } catch {
                raised = error
                break
            }
        }
        let code = [UInt8(refusal.closeCode >> 8), UInt8(refusal.closeCode & 0xFF)]
        #expect(try Self.written(channel) == [Written(opcode: .connectionClose, payload: code)])
        #expect(!channel.isActive)
        // The pipeline and the reader's stream both fail with the violation, and nothing was handed on before it.
        let (events, ended) = await Self.events(channel, stream)
        #expect(events == [])
        for error in [raised, ended] {
            if refusal.tooLarge {
                #expect(error is WebSocketMessageTooLarge)
            } else {
                #expect(error is WebSocketProtocolViolation)
            }
        }
    }

    // MARK: Pings, closes and reads

    @Test("While two events wait unread the socket's reads wait; a read passes once the reader took them")
    func readsWaitForTheReader() async throws {
        let (channel, _, reads, stream) = try Self.channel()
        try channel.writeInbound(Self.text("one"))
        try channel.writeInbound(Self.text("two"))
        let before = reads.reads
        channel.read()
        #expect(reads.reads == before)
        let iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == .message(.text("one")))
        channel.embeddedEventLoop.run()
        #expect(reads.reads == before)
        #expect(try await iterator.next() == .message(.text("two")))
        channel.embeddedEventLoop.run()
        #expect(reads.reads == before + 1)
        channel.read()
        #expect(reads.reads == before + 2)
    }

    @Test("A ping waits for the pong; while it waits and the reader holds reads back, the handler reads on")
    func pingWaitsForPong() async throws {
        let (channel, handler, reads, stream) = try Self.channel()
        let completed = NIOLockedValueBox<Bool?>(nil)
        let pong = try #require(handler.ping())
        pong.whenComplete { result in completed.withLockedValue { $0 = (try? result.get()) != nil } }
        #expect(try Self.written(channel) == [Written(opcode: .ping, payload: [])])
        let readsBefore = reads.reads
        // A message arrives and nobody asks for the next read: the handler asks, once the read completed.
        try channel.writeInbound(Self.text("data"))
        channel.embeddedEventLoop.run()
        #expect(reads.reads == readsBefore + 1)
        #expect(completed.withLockedValue { $0 } == nil)
        try channel.writeInbound(Self.frame(.pong, []))
        #expect(completed.withLockedValue { $0 } == true)
        #expect(await Self.events(channel, stream).events == [.message(.text("data"))])
    }

    @Test("A pong given up on fails the pings that wait at once; our close then does not wait for the peer")
    func abandonedPong() async throws {
        let (channel, handler, _, _) = try Self.channel()
        let outcomes = NIOLockedValueBox<[Bool]>([])
        for _ in 0..<2 {
            let pong = try #require(handler.ping())
            pong.whenComplete { result in outcomes.withLockedValue { $0.append((try? result.get()) != nil) } }
        }
        #expect(
            try Self.written(channel) == [Written(opcode: .ping, payload: []), Written(opcode: .ping, payload: [])])
        handler.pongAbandoned()
        #expect(outcomes.withLockedValue { $0 } == [false, false])
        #expect(handler.close(code: 1011, reason: "ping timeout") == nil)
        #expect(
            try Self.written(channel) == [
                Written(opcode: .connectionClose, payload: [0x03, 0xF3] + Array("ping timeout".utf8))
            ])
    }

    @Test("Our close is written once and waits for the peer's, which is not answered again nor handed on")
    func ourCloseWaits() async throws {
        let (channel, handler, _, stream) = try Self.channel()
        let ended = NIOLockedValueBox(false)
        let wait = try #require(handler.close(code: 1000, reason: "done"))
        wait.whenComplete { _ in ended.withLockedValue { $0 = true } }
        #expect(
            try Self.written(channel) == [
                Written(opcode: .connectionClose, payload: [0x03, 0xE8] + Array("done".utf8))
            ])
        #expect(!ended.withLockedValue { $0 })
        try channel.writeInbound(Self.close(1000))
        #expect(ended.withLockedValue { $0 })
        #expect(try Self.written(channel) == [])
        #expect(await Self.events(channel, stream).events == [])
    }

    @Test("The connection's end fails the pings that wait and ends a wait for the peer's close")
    func endFailsPings() async throws {
        let (channel, handler, _, _) = try Self.channel()
        let failed = NIOLockedValueBox(false)
        let pong = try #require(handler.ping())
        pong.whenFailure { _ in failed.withLockedValue { $0 = true } }
        try await channel.close().get()
        #expect(failed.withLockedValue { $0 })
        #expect(handler.close(code: 1000, reason: "") == nil)
    }
}
