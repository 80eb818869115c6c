import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOHTTPCompression
import NIOPosix
import NIOSSL
import NIOWebSocket

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Classifies the errors of AsyncHTTPClient and SwiftNIO into Courier's ``Courier/APIError/Reason``s, so
/// that code that switches over a reason works the same with every executor.
enum TransportClassifier {
    /// The reason for a transport failure with `error`.
    static func reason(for error: any Error) -> APIError.Reason {
        switch error {
        case is CancellationError:
            return .transport(.cancelled)
        case let error as HTTPClientError:
            return reason(for: error)
        case is NIOConnectionError:
            return .transport(.cannotConnect)
        case is SocketAddressError:
            return .transport(.cannotConnect)
        case let error as IOError:
            return .transport(problem(errno: error.errnoCode))
        case let error as ChannelError:
            return .transport(problem(for: error))
        case let error as TunnelRefused:
            return .transport(error.status == 407 ? .proxyAuthenticationRequired : .cannotConnect)
        case is NIOHTTP2Errors.StreamClosed:
            // HTTP/2: the server reset the request's stream (RST_STREAM), or closed it as one a GOAWAY left out
            // (SwiftNIO tells neither apart): the stream is lost, the connection and its other streams go on.
            return .transport(.connectionLost)
        case let error as HTTPParserError:
            // A response that ends before its head is complete: the connection broke (a bare status line).
            return .transport(error == .invalidEOFState ? .connectionLost : .other)
        case let error as NIOHTTPDecompression.DecompressionError:
            return .transport(error == .limit ? .responseTooLarge : .other)
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError, is PinnedKeyMissing:
            return .transport(.secureConnectionFailed)
        case is WebSocketMessageTooLarge:
            return .transport(.responseTooLarge)
        case let error as NIOWebSocketError:
            // A frame longer than the decoder's limit (the request's `maxResponseBytes`), refused from its header.
            return .transport(error == .invalidFrameLength ? .responseTooLarge : .other)
        default:
            return .transport(.other)
        }
    }

    private static func reason(for error: HTTPClientError) -> APIError.Reason {
        switch error {
        case .cancelled, .requestStreamCancelled:
            return .transport(.cancelled)
        case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
            .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return .transport(.timedOut)
        case .remoteConnectionClosed, .uncleanShutdown, .bodyLengthMismatch:
            return .transport(.connectionLost)
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
            return .invalidRequest(.invalidURL)
        case .proxyAuthenticationRequired:
            return .transport(.proxyAuthenticationRequired)
        case .invalidProxyResponse:
            // The proxy refused the tunnel (a `403`, say) or answered it with something other than a `2xx`.
            return .transport(.cannotConnect)
        default:
            return .transport(.other)
        }
    }

    private static func problem(for error: ChannelError) -> APIError.TransportProblem {
        switch error {
        case .connectTimeout: .timedOut
        case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed, .inputClosed: .connectionLost
        default: .other
        }
    }

    private static func problem(errno code: Int32) -> APIError.TransportProblem {
        switch code {
        case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL: .cannotConnect
        case ECONNRESET, EPIPE, ECONNABORTED: .connectionLost
        case ETIMEDOUT: .timedOut
        default: .other
        }
    }
}

/// A failed system call of a connection (`connect`, `read`, `write`), with a description of its own: SwiftNIO's
/// text for it closes a parenthesis it never opened (`connection reset (error set): Connection refused) (errno:
/// 111)`), and Courier shows the underlying error in parentheses after the reason. This one reads `connection
/// refused, errno 111`; a `NIOConnectionError` (every address tried) lists each address with its failure.
struct ConnectionFailure: Error, CustomStringConvertible {
    /// SwiftNIO's error: an `IOError` or a `NIOConnectionError`.
    let underlying: any Error

    /// `error` itself, or wrapped when SwiftNIO would describe it with unbalanced parentheses.
    static func describable(_ error: any Error) -> any Error {
        error is IOError || error is NIOConnectionError ? ConnectionFailure(underlying: error) : error
    }

    var description: String { Self.text(underlying) }

    private static func text(_ error: any Error) -> String {
        switch error {
        case let error as IOError:
            return "\(reason(errno: error.errnoCode)), errno \(error.errnoCode)"
        case let error as NIOConnectionError:
            if let dns = error.dnsAError ?? error.dnsAAAAError { return "\(error.host): \(text(dns))" }
            let attempts = error.connectionErrors.map { failure in
                let host = failure.target.ipAddress.map { $0.contains(":") ? "[\($0)]" : $0 } ?? error.host
                return "\(host):\(failure.target.port ?? error.port): \(text(failure.error))"
            }
            return attempts.isEmpty ? "\(error.host):\(error.port)" : attempts.joined(separator: "; ")
        default:
            return String(describing: error)
        }
    }

    private static func reason(errno code: Int32) -> String {
        switch code {
        case ECONNREFUSED: "connection refused"
        case ECONNRESET: "connection reset by peer"
        case ECONNABORTED: "connection aborted"
        case EPIPE: "broken pipe"
        case ETIMEDOUT: "timed out"
        case ENETUNREACH: "network unreachable"
        case EHOSTUNREACH: "host unreachable"
        case EADDRNOTAVAIL: "address not available"
        default: "system call failed"
        }
    }
}
