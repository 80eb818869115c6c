import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where and why a secure connection was refused: the ``APIError/tlsRefusal`` of an
/// ``APIError/TransportProblem/secureConnectionFailed`` error.
///
/// The error's description says it in words (`the secure connection to api.example.com:443 failed: untrusted
/// issuer …`); the TLS library's own error stays the ``APIError/underlyingError``.
///
/// ```swift
/// if let refusal = error.tlsRefusal, refusal.cause == .pinMismatch {
///     report("\(refusal.host):\(refusal.port) presented \(refusal.presentedKeys), none of \(refusal.pins)")
/// }
/// ```
public struct TLSRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The host of the connection (a name or an address, as the URL gives it).
    public let host: String
    /// The port of the connection.
    public let port: Int
    /// Why it was refused.
    public let cause: Cause
    /// The pins the executor's ``TLSTrust`` sets for the host (empty when none): for a ``Cause/pinMismatch``, the
    /// pins the server's chain matched none of.
    public let pins: [TLSPin]
    /// For a ``Cause/pinMismatch``, the public keys the server presented, as `sha256/…` hashes of their
    /// SubjectPublicKeyInfo (the form ``TLSPin/publicKeyHash(_:)`` reads), the server's own first: what to pin.
    /// Empty for other causes, and where the executor sees no certificate (the chain where it sees the chain,
    /// the server's certificate alone where it sees only that).
    public let presentedKeys: [String]

    /// A refusal of the connection to `host` and `port` for `cause`, with the `pins` configured for the host and
    /// the SHA-256 of each SubjectPublicKeyInfo the server presented (`presentedKeyHashes`).
    @_spi(CourierInternals)
    public init(host: String, port: Int, cause: Cause, pins: [TLSPin] = [], presentedKeyHashes: [[UInt8]] = []) {
        self.host = host
        self.port = port
        self.cause = cause
        self.pins = pins
        self.presentedKeys = presentedKeyHashes.map(TLSCertificate.fingerprint(ofHash:))
    }

    /// `host:port: cause`, and the pins of a pin failure with the keys presented: `127.0.0.1:8443: no pin matched
    /// (pinned for the host: certificate sha256/…; presented: public key sha256/…)`.
    public var description: String {
        "\(origin): \(why)"
    }

    /// `host:port`, an IPv6 address in brackets.
    var origin: String {
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(name):\(port)"
    }

    /// The cause in words, with the pins of a pin failure and the keys presented.
    var why: String {
        guard cause == .pinMismatch, !pins.isEmpty || !presentedKeys.isEmpty else { return cause.description }
        var parts: [String] = []
        if !pins.isEmpty { parts.append("pinned for the host: " + pins.map(\.description).joined(separator: ", ")) }
        if !presentedKeys.isEmpty {
            parts.append("presented: " + presentedKeys.map { "public key \($0)" }.joined(separator: ", "))
        }
        return "\(cause) (\(parts.joined(separator: "; ")))"
    }

    /// Why a secure connection was refused.
    ///
    /// A struct with a static member for each cause, not an enum, so that Courier can add causes without breaking
    /// your code: it matches in a `switch` (end it with `default:`) and with `==`.
    public struct Cause: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable {
            case untrustedIssuer
            case expired
            case wrongHost
            case pinMismatch
            case clientCertificateRefused
            case unreadableCertificate
            case handshakeFailed
        }

        let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// No trusted root anchors the server's chain: a private or self-signed certificate authority that the
        /// trust does not name, or a chain without its intermediate.
        public static let untrustedIssuer = Cause(.untrustedIssuer)
        /// A certificate of the server's chain has expired or is not yet valid.
        public static let expired = Cause(.expired)
        /// The server's certificate names other hosts than the one called.
        public static let wrongHost = Cause(.wrongHost)
        /// The server's chain contains none of the pins set for its host (``pins``).
        public static let pinMismatch = Cause(.pinMismatch)
        /// The server refused the client certificate, or asked for one and got none.
        public static let clientCertificateRefused = Cause(.clientCertificateRefused)
        /// A certificate or key of the host's trust (a root, a pin, the client certificate or its key) could not be
        /// read; nothing was sent.
        public static let unreadableCertificate = Cause(.unreadableCertificate)
        /// The handshake failed for another reason: no protocol version or cipher in common, a peer that does not
        /// speak TLS, or a server that gave no reason.
        public static let handshakeFailed = Cause(.handshakeFailed)

        /// The cause in words.
        public var description: String {
            switch kind {
            case .untrustedIssuer: "untrusted issuer (no trusted root anchors the server's certificate chain)"
            case .expired: "the server's certificate has expired or is not yet valid"
            case .wrongHost: "the server's certificate is for another host"
            case .pinMismatch: "no pin matched"
            case .clientCertificateRefused: "the server refused the client certificate (or got none it asked for)"
            case .unreadableCertificate: "a certificate or key of the host's trust could not be read"
            case .handshakeFailed: "the TLS handshake failed"
            }
        }
    }
}

extension APIError {
    /// Where and why the secure connection was refused, for a ``TransportProblem/secureConnectionFailed`` error;
    /// `nil` for any other.
    ///
    /// The executors of Courier say why; for another executor's error the cause is read from its `URLError`
    /// (``TLSRefusal/Cause/handshakeFailed`` when it says nothing more), and the host and port from its failing URL or
    /// the request.
    public var tlsRefusal: TLSRefusal? {
        guard reason == .transport(.secureConnectionFailed) else { return nil }
        if let reportedTLSRefusal { return reportedTLSRefusal }
        let urlError = underlyingError as? URLError
        // The URL that failed: a redirect hop's, when the session followed one.
        guard let url = urlError?.failingURL ?? request?.url, let host = url.host else { return nil }
        let secure = ["https", "wss"].contains(url.scheme?.lowercased() ?? "")
        let cause = urlError.flatMap(TLSRefusal.Cause.init) ?? .handshakeFailed
        return TLSRefusal(host: host, port: url.port ?? (secure ? 443 : 80), cause: cause)
    }

    /// This error with `refusal` as its ``tlsRefusal``: what an executor knows of a refused connection.
    @_spi(CourierInternals)
    public func refusing(_ refusal: TLSRefusal) -> APIError {
        var error = self
        error.reportedTLSRefusal = refusal
        return error
    }
}

extension TLSRefusal.Cause {
    /// The cause `error` reports, `nil` when it reports no TLS failure: the codes of Apple platforms, and on Linux
    /// libcurl's text behind FoundationNetworking's unknown error (`-1`).
    init?(_ error: URLError) {
        switch error.code {
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot: self = .untrustedIssuer
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid: self = .expired
        case .clientCertificateRejected, .clientCertificateRequired: self = .clientCertificateRefused
        case .secureConnectionFailed: self = .handshakeFailed
        case .unknown:
            guard let text = error.userInfo[NSLocalizedDescriptionKey] as? String,
                let cause = LibcurlTLSText.cause(of: text)
            else { return nil }
            self = cause
        default: return nil
        }
    }
}
