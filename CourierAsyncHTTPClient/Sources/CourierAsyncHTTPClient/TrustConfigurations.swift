import AsyncHTTPClient
@_spi(CourierInternals) import Courier
import Foundation
import NIOSSL

/// The TLS configuration of each host of an ``AsyncHTTPClientExecutor``: its ``Courier/TLSTrust`` laid over the TLS
/// configuration the executor's client was made with, one `TLSConfiguration` per rule, built once.
///
/// A rule becomes AsyncHTTPClient's per-request `TLSConfiguration` (which also keys its connection pool, so that a
/// connection verified under one rule never carries a request under another), and the WebSocket path's:
/// - roots replace the trust roots, or join them (`includesSystemRoots`);
/// - certificate pins become the only trust roots: the chain must lead to one of them. BoringSSL takes a trust
///   root as the end of a chain only when it is self-signed, so a pinned certificate that is not (its subject is not
///   its issuer: an intermediate, a server's certificate) could never match: a request to its host fails with
///   `.unsupportedByExecutor` before any I/O, naming the pin and what to pin instead;
/// - a client identity becomes the certificate chain and private key presented;
/// - public-key pins need a look at the verified chain that AsyncHTTPClient does not give: a request to such a
///   host fails with `.unsupportedByExecutor` before any I/O (WebSockets check them, see `WebSocketHandshake`).
struct TrustConfigurations: Sendable {
    /// The configuration of a host no rule names: the client's own, `nil` for AsyncHTTPClient's default.
    let base: TLSConfiguration?
    let trust: TLSTrust
    /// Per rule, in the trust's order: its configuration, or why it cannot be built.
    private let built: [Result<TLSConfiguration, Unreadable>]
    /// Per rule, in the trust's order: its first certificate pin that is not self-signed, `nil` when there is none.
    private let unanchoredPins: [TLSPin?]

    /// Why a rule cannot be built: its key material cannot be read (SwiftNIO SSL's error, or
    /// ``UnreadablePinnedKey``).
    struct Unreadable: Error {
        let underlying: any Error
    }

    /// A public-key pin of a certificate whose public key cannot be read.
    struct UnreadablePinnedKey: Error, CustomStringConvertible {
        var description: String { "a public-key pin's certificate holds no readable public key" }
    }

    init(base: TLSConfiguration?, trust: TLSTrust) {
        self.base = base
        self.trust = trust
        self.built = trust.hosts.map { Self.configuration(of: $0, over: base ?? .makeClientConfiguration()) }
        self.unanchoredPins = trust.hosts.map { rule in
            rule.pins.first { pin in
                guard pin.kind == .certificate, let der = pin.certificate?.der,
                    let certificate = try? NIOSSLCertificate(bytes: Array(der), format: .der)
                else { return false }
                return certificate.subjectName != certificate.issuerName
            }
        }
    }

    /// The TLS configuration of a request to `url` (`nil`: the client's own), checked for `request`'s path: an
    /// HTTP request (the default) cannot check public-key pins, a WebSocket handshake can.
    func configuration(
        for url: URL, of request: APIRequest, webSocket: Bool = false
    ) throws(APIError)
        -> TLSConfiguration?
    {
        guard !trust.isSystem, let host = url.host, let index = trust.ruleIndex(for: host) else { return nil }
        let rule = trust.hosts[index]
        if !webSocket, rule.pins.contains(where: { $0.kind == .publicKey }) {
            throw APIError(
                .transport(.unsupportedByExecutor), endpoint: request.endpoint, request: request,
                underlyingError: TLSTrustLimitation(
                    executor: "AsyncHTTPClientExecutor",
                    reason: "a public-key pin for \(rule.pattern) (AsyncHTTPClient verifies the chain itself and "
                        + "shows it to no one)",
                    advice: "pin the root certificate authority with TLSPin.certificate(_:) instead"))
        }
        if let pin = unanchoredPins[index] {
            throw APIError(
                .transport(.unsupportedByExecutor), endpoint: request.endpoint, request: request,
                underlyingError: TLSTrustLimitation(
                    executor: "AsyncHTTPClientExecutor",
                    reason: "a pin of a certificate that is not self-signed for \(rule.pattern) (\(pin)): a pinned "
                        + "certificate becomes the host's only trust root, and BoringSSL ends a chain only at a "
                        + "self-signed root, so an intermediate's or a server's own certificate never matches",
                    advice: "pin the root certificate authority that issues it with TLSPin.certificate(_:)"
                        + (webSocket ? ", or its public key with TLSPin.publicKey(of:)" : "")))
        }
        switch built[index] {
        case .success(let configuration):
            return configuration
        case .failure(let unreadable):
            let error = APIError(
                .transport(.secureConnectionFailed), endpoint: request.endpoint, request: request,
                underlyingError: unreadable.underlying)
            let port = url.port ?? 443
            throw error.refusing(TLSRefusal(host: host, port: port, cause: .unreadableCertificate, pins: rule.pins))
        }
    }

    /// The public-key pins of the rule for `host`, as SHA-256 hashes of SubjectPublicKeyInfo (empty: none; a pin
    /// whose certificate cannot be read fails its rule's configuration before this is asked).
    func publicKeyPins(for host: String) -> [[UInt8]] {
        guard let rule = trust.rule(for: host) else { return [] }
        return rule.pins.compactMap { $0.kind == .publicKey ? $0.publicKeyHash : nil }
    }

    /// `base` with `rule` laid over it.
    private static func configuration(
        of rule: TLSTrust.Host, over base: TLSConfiguration
    ) -> Result<TLSConfiguration, Unreadable> {
        var tls = base
        do {
            // A public-key pin whose certificate holds no readable key would pin nothing.
            if rule.pins.contains(where: { $0.kind == .publicKey && $0.publicKeyHash == nil }) {
                throw UnreadablePinnedKey()
            }
            let pinned = rule.pins.filter { $0.kind == .certificate }.compactMap(\.certificate)
            if !pinned.isEmpty {
                tls.trustRoots = .certificates(try pinned.map(certificate))
                tls.additionalTrustRoots = []
            } else if !rule.roots.isEmpty {
                let roots = try rule.roots.map(certificate)
                if rule.includesSystemRoots {
                    tls.additionalTrustRoots.append(.certificates(roots))
                } else {
                    tls.trustRoots = .certificates(roots)
                    tls.additionalTrustRoots = []
                }
            }
            switch rule.clientIdentity?.material {
            case nil:
                break
            case .pem(let chain, let key):
                tls.certificateChain = try chain.map { .certificate(try certificate($0)) }
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(key.utf8), format: .pem))
            case .pkcs12(let archive, let password):
                let bundle = try NIOSSLPKCS12Bundle(buffer: Array(archive), passphrase: Array(password.utf8))
                tls.certificateChain = bundle.certificateChain.map { .certificate($0) }
                tls.privateKey = .privateKey(bundle.privateKey)
            }
        } catch {
            return .failure(Unreadable(underlying: error))
        }
        return .success(tls)
    }

    private static func certificate(_ certificate: TLSCertificate) throws -> NIOSSLCertificate {
        try NIOSSLCertificate(bytes: Array(certificate.der), format: .der)
    }
}
