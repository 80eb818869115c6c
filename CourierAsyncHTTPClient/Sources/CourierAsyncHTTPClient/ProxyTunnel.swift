import Courier
import Foundation
import NIOCore

/// The `CONNECT` tunnel of a WebSocket through an HTTP proxy: once the connection to the proxy is up, it asks for
/// a tunnel to `target` (`host:port`) with the proxy's Basic credentials, reads the proxy's answer, and removes
/// itself on a `2xx`: from then on the connection is the server's (TLS, then the upgrade request). Any other answer
/// fails ``established`` with ``TunnelRefused``, and nothing of the request was sent.
final class ProxyTunnel: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let target: String
    let server: HTTPProxy.Server
    /// Succeeds once the proxy opened the tunnel.
    let established: EventLoopPromise<Void>
    private var answer: ByteBuffer?
    /// The most of the proxy's answer read before giving up on it.
    private static let headLimit = 16 * 1024

    init(target: String, server: HTTPProxy.Server, on loop: any EventLoop) {
        self.target = target
        self.server = server
        self.established = loop.makePromise()
    }

    func channelActive(context: ChannelHandlerContext) {
        var head = "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n"
        if let username = server.username {
            let credentials = Data("\(username):\(server.password ?? "")".utf8).base64EncodedString()
            head += "Proxy-Authorization: Basic \(credentials)\r\n"
        }
        head += "\r\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: head)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if answer == nil { answer = bytes } else { answer?.writeBuffer(&bytes) }
        guard let answer else { return }
        let view = answer.readableBytesView
        guard let end = Self.endOfHead(view) else {
            if answer.readableBytes > Self.headLimit { fail(context, TunnelRefused(status: nil, server: server)) }
            return
        }
        let text = String(decoding: view[view.startIndex..<end], as: UTF8.self)
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
        guard let status, (200..<300).contains(status) else {
            return fail(context, TunnelRefused(status: status, server: server))
        }
        self.answer = nil
        established.succeed()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        established.fail(TunnelRefused(status: nil, server: server))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        established.fail(error)
        context.fireErrorCaught(error)
    }

    private func fail(_ context: ChannelHandlerContext, _ error: TunnelRefused) {
        established.fail(error)
        context.close(promise: nil)
    }

    /// Where the answer's head ends (after its blank line), if it has.
    private static func endOfHead(_ bytes: ByteBufferView) -> ByteBufferView.Index? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4 else { return nil }
        var index = bytes.startIndex
        while index <= bytes.endIndex - 4 {
            if bytes[index..<(index + 4)].elementsEqual(terminator) { return index + 4 }
            index += 1
        }
        return nil
    }
}

/// The proxy did not open the tunnel: its status (`407`: it refused the credentials), or `nil` when it closed the
/// connection or answered with no HTTP status.
struct TunnelRefused: Error, Sendable, CustomStringConvertible {
    let status: Int?
    let server: HTTPProxy.Server

    var description: String {
        "the proxy \(server) refused the tunnel" + (status.map { " (\($0))" } ?? " (no answer)")
    }
}
