import AsyncHTTPClient
@_spi(ExecutorSupport) import Courier
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

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
        case let error as HTTPParserError:
            // A response that ends before its head is complete: the connection broke (a bare status line).
            return .transport(error == .invalidEOFState ? .connectionLost : .other)
        case let error as NIOHTTPDecompression.DecompressionError:
            return .transport(error == .limit ? .responseTooLarge : .other)
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            return .transport(.secureConnectionFailed)
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
