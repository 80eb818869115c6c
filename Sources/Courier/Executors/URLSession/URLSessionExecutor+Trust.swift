import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Security)
    import Security
#endif

extension URLSessionExecutor {
    /// An executor over a new session with `configuration` that verifies servers and presents client certificates
    /// as `trust` says (see ``TLSTrust``).
    ///
    /// On Apple platforms the executor answers the session's server-trust and client-certificate challenges with
    /// `trust`, on every redirect hop and WebSocket handshake: roots of your own anchor the chain (with or without the
    /// system's), certificate and public-key pins are checked against the evaluated chain, and a client identity
    /// must be a PKCS#12 archive (``TLSClientIdentity/init(pkcs12:password:)``). On Linux, FoundationNetworking
    /// offers no hook for any of it: every call of an executor with a trust other than ``TLSTrust/system`` fails
    /// with ``APIError/TransportProblem/unsupportedByExecutor`` before any I/O (use `AsyncHTTPClientExecutor`).
    public init(configuration: URLSessionConfiguration, trust: TLSTrust) {
        self.init(configuration: configuration)
        self.trust = trust
    }

    /// Throws ``APIError/TransportProblem/unsupportedByExecutor`` when this executor's trust cannot be honoured
    /// here: on Linux, any trust but ``TLSTrust/system``; on Apple platforms, a client identity in PEM.
    func checkTrust(for request: APIRequest) throws(APIError) {
        guard !trust.isSystem else { return }
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            let reason = "FoundationNetworking offers no hook for trust roots, pins or client certificates"
        #else
            let pem = trust.hosts.first { host in
                guard case .pem = host.clientIdentity?.material else { return false }
                return true
            }
            guard let pem else { return }
            let reason = "a client identity in PEM for \(pem.pattern) (Apple platforms take a PKCS#12 archive)"
        #endif
        throw APIError(
            .transport(.unsupportedByExecutor), endpoint: request.endpoint, request: request,
            underlyingError: TLSTrustLimitation(
                executor: "URLSessionExecutor", reason: reason,
                advice: "use AsyncHTTPClientExecutor (the CourierAsyncHTTPClient package)"))
    }
}

#if !canImport(FoundationNetworking) || COURIER_APPLE_PATHS
    /// How ``URLSessionExecutor`` answers a TLS challenge on Apple platforms (a server's trust, or a request for a
    /// client certificate) with its ``TLSTrust``.
    enum TrustChallenge {
        #if canImport(Security)
            static let serverTrust = NSURLAuthenticationMethodServerTrust
            static let clientCertificate = NSURLAuthenticationMethodClientCertificate
        #else
            // FoundationNetworking marks the constants unavailable; these are their values on Apple platforms.
            static let serverTrust = "NSURLAuthenticationMethodServerTrust"
            static let clientCertificate = "NSURLAuthenticationMethodClientCertificate"
        #endif

        /// How a TLS challenge is answered and, when it refuses the connection, where and why.
        struct Answer {
            let disposition: URLSession.AuthChallengeDisposition
            let credential: URLCredential?
            /// Why the connection is refused: the call then fails with `.secureConnectionFailed` and this refusal,
            /// not with the `.cancelled` that cancelling the challenge makes URLSession report.
            let refusal: TLSRefusal?

            static var defaultHandling: Answer {
                Answer(disposition: .performDefaultHandling, credential: nil, refusal: nil)
            }

            static func use(_ credential: URLCredential) -> Answer {
                Answer(disposition: .useCredential, credential: credential, refusal: nil)
            }

            static func refuse(
                _ cause: TLSRefusal.Cause, _ space: URLProtectionSpace, pins: [TLSPin] = [],
                presentedKeyHashes: [[UInt8]] = []
            ) -> Answer {
                Answer(
                    disposition: .cancelAuthenticationChallenge, credential: nil,
                    refusal: TLSRefusal(
                        host: space.host, port: space.port, cause: cause, pins: pins,
                        presentedKeyHashes: presentedKeyHashes))
            }
        }

        /// The answer to `challenge` under `trust`, `nil` when `challenge` is not a TLS challenge.
        static func answer(_ challenge: URLAuthenticationChallenge, trust: TLSTrust) -> Answer? {
            let space = challenge.protectionSpace
            switch space.authenticationMethod {
            case serverTrust:
                guard let rule = trust.rule(for: space.host) else { return .defaultHandling }
                switch serverCredential(challenge, rule: rule) {
                case .success(let credential): return .use(credential)
                case .failure(let refusal):
                    let mismatch = refusal.cause == .pinMismatch
                    return .refuse(
                        refusal.cause, space, pins: mismatch ? rule.pins : [],
                        presentedKeyHashes: refusal.presentedKeyHashes)
                }
            case clientCertificate:
                guard let identity = trust.rule(for: space.host)?.clientIdentity else { return .defaultHandling }
                guard let credential = clientCredential(identity) else {
                    return .refuse(.unreadableCertificate, space)
                }
                return .use(credential)
            default:
                return nil
            }
        }
    }

    /// Why ``TrustChallenge/serverCredential(_:rule:)`` refused a server, with the SHA-256 of each public key its
    /// chain presented when no pin matched.
    struct ServerRefusal: Error {
        let cause: TLSRefusal.Cause
        var presentedKeyHashes: [[UInt8]] = []
    }
#endif

#if canImport(Security)
    extension TrustChallenge {
        /// The credential that accepts the server of `challenge`, or why `rule` refuses it: the chain must verify
        /// for the host against the rule's roots and pinned certificates (and the system's roots when the rule says
        /// so), and contain a pin.
        static func serverCredential(
            _ challenge: URLAuthenticationChallenge, rule: TLSTrust.Host
        ) -> Result<URLCredential, ServerRefusal> {
            guard let serverTrust = challenge.protectionSpace.serverTrust else {
                return .failure(ServerRefusal(cause: .handshakeFailed))
            }
            SecTrustSetPolicies(serverTrust, SecPolicyCreateSSL(true, challenge.protectionSpace.host as CFString))
            // A pinned certificate anchors a chain too, as on AsyncHTTPClientExecutor: a private authority can be
            // pinned without being listed twice.
            let anchored = rule.roots + rule.pins.filter { $0.kind == .certificate }.compactMap(\.certificate)
            if !anchored.isEmpty {
                let anchors = anchored.compactMap { SecCertificateCreateWithData(nil, $0.der as CFData) }
                guard anchors.count == anchored.count,
                    SecTrustSetAnchorCertificates(serverTrust, anchors as CFArray) == errSecSuccess,
                    SecTrustSetAnchorCertificatesOnly(serverTrust, !rule.includesSystemRoots) == errSecSuccess
                else { return .failure(ServerRefusal(cause: .unreadableCertificate)) }
            }
            var evaluation: CFError?
            guard SecTrustEvaluateWithError(serverTrust, &evaluation) else {
                return .failure(ServerRefusal(cause: cause(of: evaluation)))
            }
            if !rule.pins.isEmpty {
                let chain = (SecTrustCopyCertificateChain(serverTrust) as? [SecCertificate]) ?? []
                let certificates = chain.map { TLSCertificate(der: SecCertificateCopyData($0) as Data) }
                let keys = certificates.compactMap(\.publicKeyHash)
                let pinned = rule.pins.contains { pin in
                    switch pin.kind {
                    case .certificate: pin.certificate.map(certificates.contains) ?? false
                    case .publicKey: pin.publicKeyHash.map(keys.contains) ?? false
                    }
                }
                guard pinned else { return .failure(ServerRefusal(cause: .pinMismatch, presentedKeyHashes: keys)) }
            }
            return .success(URLCredential(trust: serverTrust))
        }

        /// The cause a failed trust evaluation reports: an expired or not yet valid certificate, one for another
        /// host, else an untrusted issuer.
        private static func cause(of evaluation: CFError?) -> TLSRefusal.Cause {
            guard let evaluation else { return .untrustedIssuer }
            let code = CFErrorGetCode(evaluation)
            if code == Int(errSecCertificateExpired) || code == Int(errSecCertificateNotValidYet) { return .expired }
            if code == Int(errSecHostNameMismatch) { return .wrongHost }
            return .untrustedIssuer
        }

        /// The credential of a PKCS#12 `identity`, `nil` when it cannot be read (or is in PEM, which
        /// ``URLSessionExecutor/checkTrust(for:)`` refuses before any I/O).
        static func clientCredential(_ identity: TLSClientIdentity) -> URLCredential? {
            guard case .pkcs12(let archive, let password) = identity.material else { return nil }
            var items: CFArray?
            let options = [kSecImportExportPassphrase as String: password] as CFDictionary
            guard SecPKCS12Import(archive as CFData, options, &items) == errSecSuccess,
                let first = (items as? [[String: Any]])?.first,
                let value = first[kSecImportItemIdentity as String].map({ $0 as AnyObject }),
                CFGetTypeID(value) == SecIdentityGetTypeID()
            else { return nil }
            // The type identifier was checked above.
            let secIdentity = unsafeBitCast(value, to: SecIdentity.self)
            let chain = (first[kSecImportItemCertChain as String] as? [SecCertificate]) ?? []
            return URLCredential(
                identity: secIdentity, certificates: Array(chain.dropFirst()), persistence: .forSession)
        }
    }
#elseif COURIER_APPLE_PATHS
    extension TrustChallenge {
        // FoundationNetworking has no Security framework: a build with COURIER_APPLE_PATHS type-checks the
        // challenge's dispatch above with these stand-ins, which refuse every server and identity.
        static func serverCredential(
            _ challenge: URLAuthenticationChallenge, rule: TLSTrust.Host
        ) -> Result<URLCredential, ServerRefusal> {
            .failure(ServerRefusal(cause: .untrustedIssuer))
        }

        static func clientCredential(_ identity: TLSClientIdentity) -> URLCredential? {
            nil
        }
    }
#endif

@_spi(CourierInternals)
extension URLSessionExecutor: TLSTrustHolding {
    /// The trust whose roots and pins past their rotation date Courier's policy warns about.
    public var heldTrust: TLSTrust { trust }
}
