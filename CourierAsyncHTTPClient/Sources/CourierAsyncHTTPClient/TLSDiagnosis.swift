import AsyncHTTPClient
@_spi(CourierInternals) import Courier
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why SwiftNIO SSL refused a connection, in Courier's words: the ``Courier/TLSRefusal`` of a
/// `.secureConnectionFailed` error of ``AsyncHTTPClientExecutor`` (HTTP and WebSockets alike).
///
/// Most causes are in the error itself: a host name check (`NIOSSLExtraError.failedToValidateHostname`), a public-key
/// pin (``PinnedKeyMissing``), an alert of the server about the client's certificate, a key that could not be read.
/// A failed chain verification is not: BoringSSL says `CERTIFICATE_VERIFY_FAILED` for an untrusted issuer, an
/// expired certificate and a certificate pin alike, and keeps the reason to itself. For those the diagnosis reads
/// the server's chain in a second handshake that verifies nothing and sends nothing (``chain(host:port:group:within:)``):
/// a certificate out of its dates is `expired`; else a host with certificate pins missed them (`pinMismatch`); else
/// no trusted root anchors the chain (`untrustedIssuer`).
enum TLSDiagnosis {
    /// Where and why the connection to `url` was refused with `error` (the TLS library's), under `rule`.
    static func refusal(
        for error: any Error, url: URL, rule: TLSTrust.Host?, group: any EventLoopGroup, within bound: TimeAmount
    ) async -> TLSRefusal? {
        guard let host = url.host, !host.isEmpty else { return nil }
        let secure = ["https", "wss"].contains(url.scheme?.lowercased() ?? "")
        let port = url.port ?? (secure ? 443 : 80)
        let pins = rule?.pins ?? []
        let hasCertificatePins = pins.contains { $0.kind == .certificate }
        var cause: TLSRefusal.Cause
        switch immediateCause(of: error) {
        case .some(let known):
            cause = known
        case .none:
            cause = hasCertificatePins ? .pinMismatch : .untrustedIssuer
            let certificates = await chain(host: host, port: port, group: group, within: bound)
            let now = time(nil)
            if certificates.contains(where: { $0.notValidAfter < now || $0.notValidBefore > now }) {
                cause = .expired
            }
        }
        let presented = (error as? PinnedKeyMissing)?.presentedKeyHashes ?? []
        return TLSRefusal(host: host, port: port, cause: cause, pins: pins, presentedKeyHashes: presented)
    }

    /// The cause `error` tells by itself; `nil` for a failed chain verification, whose cause needs the chain.
    static func immediateCause(of error: any Error) -> TLSRefusal.Cause? {
        switch error {
        case is PinnedKeyMissing:
            return .pinMismatch
        case is TrustConfigurations.UnreadablePinnedKey:
            return .unreadableCertificate
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return .wrongHost
        case let error as NIOSSLError:
            switch error {
            case .failedToLoadCertificate, .failedToLoadPrivateKey: return .unreadableCertificate
            case .handshakeFailed(let error): return immediateCause(of: error)
            default: return .handshakeFailed
            }
        case let error as BoringSSLError:
            let text = "\(error)".uppercased()
            if text.contains("CERTIFICATE_VERIFY_FAILED") { return nil }
            if clientCertificateAlerts.contains(where: text.contains) { return .clientCertificateRefused }
            return .handshakeFailed
        default:
            return .handshakeFailed
        }
    }

    /// BoringSSL's names of the alerts a server sends when it refuses the client's certificate, or wants one it did
    /// not get.
    private static let clientCertificateAlerts = [
        "ALERT_BAD_CERTIFICATE", "ALERT_CERTIFICATE_REQUIRED", "ALERT_UNKNOWN_CA", "ALERT_CERTIFICATE_UNKNOWN",
        "ALERT_UNSUPPORTED_CERTIFICATE", "ALERT_CERTIFICATE_REVOKED", "ALERT_CERTIFICATE_EXPIRED",
        "ALERT_ACCESS_DENIED",
    ]

    /// The certificates the server at `host` and `port` presents (its own first), read in a handshake that the
    /// client breaks off as soon as they arrive, so that nothing is sent after them; empty when none arrive within
    /// `bound` (five seconds at most).
    static func chain(
        host: String, port: Int, group: any EventLoopGroup, within bound: TimeAmount
    ) async
        -> [NIOSSLCertificate]
    {
        // A server that answered the first handshake answers the second at once: a few seconds at most.
        let bound = min(bound, .seconds(5))
        guard bound > .zero, let context = try? NIOSSLContext(configuration: .makeClientConfiguration()) else {
            return []
        }
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        let seen = group.next().makePromise(of: [NIOSSLCertificate].self)
        let bootstrap = ClientBootstrap(group: group).connectTimeout(bound).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let handler = try NIOSSLClientHandler(
                    context: context, serverHostname: isAddress ? nil : host
                ) { certificates, verdict in
                    seen.succeed(certificates)
                    verdict.succeed(NIOSSLVerificationResult.failed)
                }
                try channel.pipeline.syncOperations.addHandler(handler)
            }
        }
        guard let channel = try? await bootstrap.connect(host: host, port: port).get() else {
            seen.succeed([])
            return []
        }
        let timer = channel.eventLoop.scheduleTask(in: bound) { seen.succeed([]) }
        channel.closeFuture.whenComplete { _ in seen.succeed([]) }
        let certificates = (try? await seen.futureResult.get()) ?? []
        timer.cancel()
        try? await channel.close()
        return certificates
    }
}

extension APIError {
    /// This error with the ``Courier/TLSRefusal`` of its TLS failure, when it is one: the connection to `url` under
    /// `tls`, diagnosed within `bound`.
    func diagnosed(
        url: URL, tls: TrustConfigurations, group: any EventLoopGroup, within bound: TimeAmount
    ) async -> APIError {
        guard reason == .transport(.secureConnectionFailed), let underlyingError else { return self }
        let rule = url.host.flatMap { tls.trust.rule(for: $0) }
        guard
            let refusal = await TLSDiagnosis.refusal(
                for: underlyingError, url: url, rule: rule, group: group, within: bound)
        else { return self }
        return refusing(refusal)
    }
}
