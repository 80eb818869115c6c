// CourierAHCWebSocketBench — echo round trips per second over WebSockets: Courier's connection on
// AsyncHTTPClientExecutor against a raw SwiftNIO WebSocket client as SwiftNIO documents it
// (NIOTypedWebSocketClientUpgrader and an NIOAsyncChannel of frames, written without Courier, on the executor's event
// loops), both against one SwiftNIO echo server in this process (on an event loop of its own), over loopback. Run by
// `Benchmarks/scripts/bench-ahc-websockets` (release build):
//
//     CourierAHCWebSocketBench [--rounds N] [--warmup N] [--trips N] [--trips-per-socket N] [--only courier|raw]
//                              [--concurrency 1|32]
//
// At concurrency 1 a block is `trips` sequential round trips (send a 64-byte text message, read its echo) on one
// socket; at concurrency 32, 32 sockets each make `trips-per-socket` round trips at once. The sockets are opened
// before anything is timed and kept for every round. Each round times one block of each side, in alternating order
// (courier first in even rounds, raw first in odd ones); the ratio of a round is raw time / courier time (Courier's
// throughput relative to raw), the figure the median of the rounds, with their range. Each block's CPU time is
// measured too: the process's CPU time over the block less the echo server's (its event loop thread's own clock), so
// the client's CPU per round trip; a round's CPU ratio is courier's / raw's, the figure again the median.
import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

struct Failure: Error, CustomStringConvertible {
    var description: String
}

// MARK: - Options

var rounds = 21
var warmup = 3
var trips = 2_000
var tripsPerSocket = 200
/// `--only courier` or `--only raw` runs one side's blocks alone (for an instruction count of each, under callgrind).
var only: String?
/// `--concurrency 1` or `--concurrency 32` runs only that concurrency (both by default).
var concurrencies = [1, 32]
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--only", let side = arguments.popFirst(), ["courier", "raw"].contains(side) {
        only = side
        continue
    }
    guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else {
        print(
            "usage: CourierAHCWebSocketBench [--rounds N] [--warmup N] [--trips N] [--trips-per-socket N] "
                + "[--only courier|raw] [--concurrency 1|32]")
        exit(2)
    }
    switch argument {
    case "--rounds": rounds = value
    case "--warmup": warmup = value
    case "--trips": trips = value
    case "--trips-per-socket": tripsPerSocket = value
    case "--concurrency" where value == 1 || value == 32: concurrencies = [value]
    default:
        print("unknown option \(argument)")
        exit(2)
    }
}

// MARK: - The echo server

/// Echoes each data frame with its opcode, answers pings and closes.
final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary, .continuation:
            let echo = WebSocketFrame(fin: frame.fin, opcode: frame.opcode, data: frame.unmaskedData)
            context.write(wrapOutboundOut(echo), promise: nil)
        case .ping:
            context.write(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(close)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

let serverGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let server = try await ServerBootstrap(group: serverGroup)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: 1 << 20, automaticErrorHandling: true,
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(EchoHandler()) }
            })
        return channel.pipeline.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
    }
    .bind(host: "127.0.0.1", port: 0).get()
guard let port = server.localAddress?.port, let url = URL(string: "http://127.0.0.1:\(port)") else {
    throw Failure(description: "the echo server has no address")
}

/// The message of every round trip: 64 bytes of text.
let payload = String(repeating: "x", count: 64)

// MARK: - The sides

/// One side of the comparison: sockets that each make round trips.
protocol Side: Sendable {
    /// Makes `count` round trips on the socket `index`.
    func trips(_ count: Int, on index: Int) async throws
}

/// Courier: `WebSocket<Void>("/echo").connect(...)` on `AsyncHTTPClientExecutor()`, `send(.text(_:))` and the next
/// message of its loop.
final class CourierSide: Side {
    /// A socket and the one iterator over its messages.
    // @unchecked Sendable: each socket is used by one task at a time (one block's task for it).
    final class Socket: @unchecked Sendable {
        let connection: WebSocketConnection
        var iterator: WebSocketConnection.AsyncIterator

        init(_ connection: WebSocketConnection) {
            self.connection = connection
            self.iterator = connection.makeAsyncIterator()
        }
    }

    let sockets: [Socket]

    init(count: Int, url: URL) async throws {
        let configuration = APIConfiguration(baseURL: url, executor: AsyncHTTPClientExecutor())
        let echo = WebSocket<Void>("/echo")
        var sockets: [Socket] = []
        for _ in 0..<count {
            sockets.append(Socket(try await echo.connect(pingInterval: nil, using: configuration)))
        }
        self.sockets = sockets
    }

    func trips(_ count: Int, on index: Int) async throws {
        let socket = sockets[index]
        for _ in 0..<count {
            try await socket.connection.send(.text(payload))
            guard case .text(let echo) = try await socket.iterator.next(), echo.utf8.count == payload.utf8.count else {
                throw Failure(description: "courier: a wrong echo")
            }
        }
    }

    func close() async {
        for socket in sockets { await socket.connection.close() }
    }
}

/// Raw SwiftNIO: the upgrade with `NIOTypedWebSocketClientUpgrader` on the executor's event loops, then an
/// `NIOAsyncChannel<WebSocketFrame, WebSocketFrame>` (inside `executeThenClose`, in a task per socket that runs the
/// blocks it is given): a masked text frame written, the next frame read as a String.
final class RawSide: Side {
    typealias Command = (count: Int, done: CheckedContinuation<Void, any Error>)
    let sockets: [AsyncStream<Command>.Continuation]

    init(count: Int, port: Int) async throws {
        var sockets: [AsyncStream<Command>.Continuation] = []
        for _ in 0..<count {
            let channel = try await Self.connect(port: port)
            let (commands, continuation) = AsyncStream.makeStream(of: Command.self)
            sockets.append(continuation)
            Task {
                try await channel.executeThenClose { inbound, outbound in
                    var iterator = inbound.makeAsyncIterator()
                    for await command in commands {
                        do {
                            for _ in 0..<command.count {
                                let frame = WebSocketFrame(
                                    fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: payload))
                                try await outbound.write(frame)
                                // The text read as a String, as an app reads it (and as Courier hands it over).
                                guard let echo = try await iterator.next(), echo.opcode == .text,
                                    String(buffer: echo.data).utf8.count == payload.utf8.count
                                else { throw Failure(description: "raw: a wrong echo") }
                            }
                            command.done.resume()
                        } catch {
                            command.done.resume(throwing: error)
                        }
                    }
                }
            }
        }
        self.sockets = sockets
    }

    static func connect(port: Int) async throws -> NIOAsyncChannel<WebSocketFrame, WebSocketFrame> {
        typealias Socket = NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
        let upgrade = try await ClientBootstrap(group: HTTPClient.defaultEventLoopGroup)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Socket?>(maxFrameSize: 1 << 20) { channel, _ in
                        channel.eventLoop.makeCompletedFuture { try Socket(wrappingChannelSynchronously: channel) }
                    }
                    var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/echo")
                    head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Socket?>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { $0.eventLoop.makeSucceededFuture(nil) })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                }
            }
        guard let socket = try await upgrade.get() else { throw Failure(description: "raw: not upgraded") }
        return socket
    }

    func trips(_ count: Int, on index: Int) async throws {
        try await withCheckedThrowingContinuation { done in sockets[index].yield((count, done)) }
    }

    func close() {
        for socket in sockets { socket.finish() }
    }
}

// MARK: - Timing

/// The CPU time the calling thread has used, in seconds (`CLOCK_THREAD_CPUTIME_ID`).
@Sendable func threadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The CPU time the process has used, in seconds, and the part of it the echo server's one event loop thread used.
func cpuTimes() async throws -> (process: Double, server: Double) {
    let server = try await serverGroup.next().submit { threadCPUTime() }.get()
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return (Double(time.tv_sec) + Double(time.tv_nsec) / 1e9, server)
}

/// One block's wall time and the client's CPU time over it (the process's, less the echo server's), in seconds.
struct Block {
    var time: Duration
    var clientCPU: Double
}

/// One block of `side`, measured: its wall time and the client's CPU time.
func measuredBlock(_ side: some Side, concurrency: Int) async throws -> Block {
    let before = try await cpuTimes()
    let time = try await block(side, concurrency: concurrency)
    let after = try await cpuTimes()
    return Block(time: time, clientCPU: (after.process - before.process) - (after.server - before.server))
}

/// The time of one block of `side`: `trips` on socket 0 at concurrency 1, else `tripsPerSocket` on each socket at once.
func block(_ side: some Side, concurrency: Int) async throws -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    if concurrency == 1 {
        try await side.trips(trips, on: 0)
    } else {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<concurrency {
                group.addTask { try await side.trips(tripsPerSocket, on: index) }
            }
            try await group.waitForAll()
        }
    }
    return clock.now - start
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

print("CourierAHCWebSocketBench: echo server on \(url); \(rounds) rounds after \(warmup) warm-up rounds")
for concurrency in concurrencies {
    let courier = try await CourierSide(count: concurrency, url: url)
    let raw = try await RawSide(count: concurrency, port: port)
    let perBlock = Double(concurrency == 1 ? trips : tripsPerSocket * concurrency)
    var ratios: [Double] = []
    var cpuRatios: [Double] = []
    var courierRates: [Double] = []
    var rawRates: [Double] = []
    var courierCPU: [Double] = []
    var rawCPU: [Double] = []
    for round in 0..<(warmup + rounds) {
        let courierBlock: Block
        let rawBlock: Block
        if let only {
            let measured =
                try await only == "raw"
                ? measuredBlock(raw, concurrency: concurrency) : measuredBlock(courier, concurrency: concurrency)
            (courierBlock, rawBlock) = (measured, measured)
        } else if round % 2 == 0 {
            courierBlock = try await measuredBlock(courier, concurrency: concurrency)
            rawBlock = try await measuredBlock(raw, concurrency: concurrency)
        } else {
            rawBlock = try await measuredBlock(raw, concurrency: concurrency)
            courierBlock = try await measuredBlock(courier, concurrency: concurrency)
        }
        guard round >= warmup else { continue }
        ratios.append(seconds(rawBlock.time) / seconds(courierBlock.time))
        cpuRatios.append(courierBlock.clientCPU / rawBlock.clientCPU)
        courierRates.append(perBlock / seconds(courierBlock.time))
        rawRates.append(perBlock / seconds(rawBlock.time))
        courierCPU.append(courierBlock.clientCPU / perBlock)
        rawCPU.append(rawBlock.clientCPU / perBlock)
    }
    await courier.close()
    raw.close()
    func range(_ values: [Double]) -> String {
        "\(String(format: "%.3f", values.min() ?? 0))–\(String(format: "%.3f", values.max() ?? 0))"
    }
    print(
        "concurrency \(concurrency): courier \(Int(median(courierRates))) round trips/s, raw NIO "
            + "\(Int(median(rawRates))) round trips/s; courier/raw \(String(format: "%.3f", median(ratios)))× "
            + "(median of \(rounds) rounds, range \(range(ratios)))")
    print(
        "concurrency \(concurrency): client CPU per round trip: courier "
            + "\(String(format: "%.2f", median(courierCPU) * 1e6)) µs, raw NIO "
            + "\(String(format: "%.2f", median(rawCPU) * 1e6)) µs; courier/raw "
            + "\(String(format: "%.3f", median(cpuRatios)))× (median of \(rounds) rounds, range \(range(cpuRatios)))")
}
try await server.close().get()
try await serverGroup.shutdownGracefully()
