import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension APIError {
    /// Why a request did not complete.
    ///
    /// A struct with a static member for each problem, not an enum, so that Courier can add problems without
    /// breaking your code: it matches in a `switch` (end it with `default:`) and with `==`, payload included
    /// (`.redirectRefused(.insecureRedirect)`). Read the payload with ``redirectRefusal``.
    public struct TransportProblem: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case timedOut
            case cannotConnect
            case offline
            case cancelled
            case connectionLost
            case secureConnectionFailed
            case responseTooLarge
            case redirectRefused(RedirectRefusal)
            case unsupportedByExecutor
            case closedByPeer
            case proxyAuthenticationRequired
            case other
        }

        let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// The request or the resource timed out.
        public static let timedOut = TransportProblem(.timedOut)
        /// The host could not be resolved or did not accept the connection.
        public static let cannotConnect = TransportProblem(.cannotConnect)
        /// The device has no network connection.
        public static let offline = TransportProblem(.offline)
        /// The calling task was cancelled.
        public static let cancelled = TransportProblem(.cancelled)
        /// The connection was lost mid-request.
        public static let connectionLost = TransportProblem(.connectionLost)
        /// A TLS or certificate problem.
        public static let secureConnectionFailed = TransportProblem(.secureConnectionFailed)
        /// The response body grew past the request's ``APIRequest/maxResponseBytes``; the call stopped
        /// receiving the moment it crossed the limit.
        public static let responseTooLarge = TransportProblem(.responseTooLarge)
        /// A redirect was not followed, and the call failed: see the ``RedirectRefusal``.
        public static func redirectRefused(_ refusal: RedirectRefusal) -> TransportProblem {
            TransportProblem(.redirectRefused(refusal))
        }
        /// The executor cannot carry out this transfer (a download to a file, a stream, progress, a body that is
        /// not in memory); the `ExecutorLimitation` is the ``APIError/underlyingError``. Raised before any I/O.
        public static let unsupportedByExecutor = TransportProblem(.unsupportedByExecutor)
        /// The WebSocket peer closed the connection with a code that reports a failure (not `1000` or `1001`): a
        /// policy violation (`1008`), a server error (`1011`), one of the application's (`4000`–`4999`). The
        /// ``WebSocketClose`` is the ``APIError/underlyingError`` and the connection's
        /// ``WebSocketConnection/receivedClose``.
        public static let closedByPeer = TransportProblem(.closedByPeer)
        /// The proxy asked for credentials, or refused the ones given: its `407 Proxy Authentication Required`, to the
        /// tunnel (`CONNECT`) or the request. Nothing reached the server. Fix the ``HTTPProxy/Server``'s credentials.
        public static let proxyAuthenticationRequired = TransportProblem(.proxyAuthenticationRequired)
        /// Any other transport failure; the `URLError` is the ``APIError/underlyingError``.
        public static let other = TransportProblem(.other)

        /// The failures that the next connection may not have: a timeout, a lost or refused connection, a device
        /// offline. The one rule of what is worth another try: ``RetryPolicy``'s default `transportProblems`, and what
        /// Server-Sent Events and WebSockets reconnect after.
        public static let transient: Set<TransportProblem> = [.timedOut, .connectionLost, .cannotConnect, .offline]

        /// Why the redirect was not followed, for ``redirectRefused(_:)``; `nil` for any other problem.
        public var redirectRefusal: RedirectRefusal? {
            if case .redirectRefused(let refusal) = kind { refusal } else { nil }
        }

        /// Classifies a `URLError`.
        init(_ error: URLError) {
            switch error.code {
            case .timedOut: self = .timedOut
            case .cancelled: self = .cancelled
            case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff: self = .offline
            case .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .cannotLoadFromNetwork:
                self = .cannotConnect
            case .networkConnectionLost: self = .connectionLost
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
                .clientCertificateRequired:
                self = .secureConnectionFailed
            case .unknown where TLSRefusal.Cause(error) != nil:
                // FoundationNetworking: libcurl's certificate and handshake failures, told by their text.
                self = .secureConnectionFailed
            default: self = .other
            }
        }
    }
}

extension APIError.Reason {
    /// Whether this is a transport failure the next connection may not have (``APIError/TransportProblem/transient``).
    var isTransient: Bool {
        // Unwrapped, then looked up: passing `transient.contains` to `Optional.map` crashes the 6.3.1 optimizer.
        guard let problem = transportProblem else { return false }
        return APIError.TransportProblem.transient.contains(problem)
    }
}
