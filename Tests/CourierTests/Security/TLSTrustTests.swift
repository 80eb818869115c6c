@_spi(CourierInternals) import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `TLSTrust`: host patterns, PEM reading, the secrets it holds kept off every printable surface, and what
/// `URLSessionExecutor` does with it on Linux.
@Suite struct TLSTrustTests {
    /// A private key and a password with `SECRET` planted in them (the scan's marker, as in `SecretScanTests`).
    static let key = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg-key-SECRET
        -----END PRIVATE KEY-----
        """
    static let password = "p12-password-SECRET"
    static let archive = Data("pkcs12-archive-SECRET".utf8)
    static let certificate = TLSCertificate(der: Data([0x30, 0x03, 0x02, 0x01, 0x01]))

    static let trust = TLSTrust([
        TLSTrust.Host(
            "api.example.com", roots: [certificate], pins: [.certificate(certificate), .publicKey(of: certificate)],
            clientIdentity: TLSClientIdentity(certificateChain: [certificate], privateKeyPEM: key)),
        TLSTrust.Host("*.example.org", clientIdentity: TLSClientIdentity(pkcs12: archive, password: password)),
    ])

    /// Every printable form of `value`.
    static func printed<Value>(_ value: Value) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        let mirror = Mirror(reflecting: value).children.map { "\($0.label ?? "-"): \($0.value)" }
        return [
            "\(value)", String(describing: value), String(reflecting: value), dumped, mirror.joined(separator: "\n"),
        ]
    }

    @Test("No printable surface of a trust, a rule, an identity or its material shows the key or the password")
    func noSecretIsPrinted() throws {
        let rule = try #require(Self.trust.hosts.first)
        let identity = try #require(rule.clientIdentity)
        let archived = try #require(Self.trust.hosts.last?.clientIdentity)
        let texts =
            Self.printed(Self.trust) + Self.printed(rule) + Self.printed(identity) + Self.printed(identity.material)
            + Self.printed(archived) + Self.printed(archived.material) + Self.printed(Self.trust.hosts)
        // The scanner finds what is planted.
        #expect(!SecretScanTests.leaks(in: Self.key).isEmpty)
        for text in texts {
            #expect(SecretScanTests.leaks(in: text).isEmpty, "\(text)")
            #expect(!text.contains("BEGIN PRIVATE KEY"), "\(text)")
        }
        #expect(
            "\(Self.trust)".contains("api.example.com: 1 root, 2 pins, client identity (PEM, 1 certificate, key ***)"))
    }

    @Test(
        "Host patterns: exact names and addresses, one label under a wildcard, any case",
        arguments: [
            ("api.example.com", "api.example.com", true), ("api.example.com", "API.Example.COM.", true),
            ("api.example.com", "example.com", false), ("*.example.com", "api.example.com", true),
            ("*.example.com", "example.com", false), ("*.example.com", "a.b.example.com", false),
            ("*.example.com", "evilexample.com", false), ("127.0.0.1", "127.0.0.1", true), ("::1", "[::1]", true),
        ])
    func patterns(pattern: String, host: String, matches: Bool) {
        #expect((TLSTrust([TLSTrust.Host(pattern)]).rule(for: host) != nil) == matches)
    }

    @Test("The first matching rule applies; no rule means the system's trust; roots alone replace the system's")
    func firstRuleWins() throws {
        let trust = TLSTrust([
            TLSTrust.Host("api.example.com", roots: [Self.certificate]), TLSTrust.Host("*.example.com"),
        ])
        #expect(trust.rule(for: "api.example.com")?.roots == [Self.certificate])
        #expect(trust.rule(for: "api.example.com")?.includesSystemRoots == false)
        #expect(trust.rule(for: "www.example.com")?.includesSystemRoots == true)
        #expect(trust.rule(for: "example.net") == nil)
        #expect(TLSTrust.system.isSystem)
    }

    @Test("A PEM certificate reads as its DER bytes; text without one reads as nil")
    func pem() throws {
        let der = Data((0..<100).map { UInt8($0) })
        let body = der.base64EncodedString(options: .lineLength64Characters)
        let pem = "junk\n-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
        #expect(TLSCertificate(pem: pem)?.der == der)
        #expect(TLSCertificate(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----") == nil)
    }

    #if canImport(FoundationNetworking)
        @Test(
            "On Linux, URLSessionExecutor with a trust refuses every call before any I/O, naming the executor that can")
        func linuxRefuses() async throws {
            let executor = URLSessionExecutor(configuration: .ephemeral, trust: Self.trust)
            // Nothing listens on port 9 of a documentation address: a call that reached the network would fail
            // otherwise (cannot connect), not with `.unsupportedByExecutor`.
            let configuration = APIConfiguration(baseURL: URL(string: "https://192.0.2.1:9"), executor: executor)
            await #expect {
                _ = try await GET<Void>("/zen").request(using: configuration) as Data
            } throws: { error in
                guard let error = error as? APIError, error.reason == .transport(.unsupportedByExecutor) else {
                    return false
                }
                let text = "\(error.underlyingError.map { "\($0)" } ?? "")"
                return text.contains("URLSessionExecutor") && text.contains("AsyncHTTPClientExecutor")
            }
            let plain = URLSessionExecutor(configuration: .ephemeral, trust: .system)
            #expect(plain.supportedTransfers == URLSessionExecutor().supportedTransfers)
        }
    #endif
}

/// A bundle of PEM certificates, and what a pin prints.
@Suite struct TLSCertificateBundleTests {
    /// A self-signed EC certificate made with openssl; its fingerprints as `openssl dgst -sha256 -binary | base64`
    /// prints them (of the DER bytes, and of `openssl x509 -pubkey | openssl pkey -pubin -outform der`).
    static let fixture = """
        -----BEGIN CERTIFICATE-----
        MIIBejCCAR+gAwIBAgIUXkj3a5sTOTiuCxpGEtkz//sZL3owCgYIKoZIzj0EAwIw
        EjEQMA4GA1UEAwwHZml4dHVyZTAeFw0yNjEyMDEyMDU5NDJaFw0zNjExMjgyMDU5
        NDJaMBIxEDAOBgNVBAMMB2ZpeHR1cmUwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
        AAS0naPcgWSPR9oOJuSCSkyT6+7HCMfqmAh/mtFz2GSbIyzcy49qCzEv3R0nMk4m
        EhGeGxhc9QmCJYYQ4LVDyuP1o1MwUTAdBgNVHQ4EFgQUcpgB6w/pip9M5FJoOYoe
        U6do4F8wHwYDVR0jBBgwFoAUcpgB6w/pip9M5FJoOYoeU6do4F8wDwYDVR0TAQH/
        BAUwAwEB/zAKBggqhkjOPQQDAgNJADBGAiEA8YLGkiIv9657IvZumL/Ot8m+DrUE
        KZxHobxziEBXmtACIQDBnhjnPKcf/Sb5GU1McMKsJ2cBdwIxiU9czjo8TYpdng==
        -----END CERTIFICATE-----
        """
    static let certificateFingerprint = "sha256/4cLGy8fYQQbzu4qBbR5nnig3m+c2us6JM9xKJ7pWHSY="
    static let keyFingerprint = "sha256/8tjTPHrj5IQJUVv3zGQhGtIfg4vGgph2XJkdF5l0LLc="

    @Test("A bundle reads as every certificate in order, skipping other blocks; text without one as none")
    func bundle() throws {
        let first = Data((0..<40).map { UInt8($0) })
        let second = try #require(TLSCertificate(pem: Self.fixture)).der
        let bundle = """
            # Company CA bundle
            -----BEGIN CERTIFICATE-----
            \(first.base64EncodedString(options: .lineLength64Characters))
            -----END CERTIFICATE-----
            -----BEGIN PRIVATE KEY-----
            AAAA
            -----END PRIVATE KEY-----
            \(Self.fixture)
            """
        #expect(TLSCertificate.certificates(inPEM: bundle).map(\.der) == [first, second])
        #expect(TLSCertificate(pem: bundle)?.der == first)
        #expect(TLSCertificate.certificates(inPEM: "no certificate here").isEmpty)
        #expect(TLSCertificate.certificates(inPEM: "-----BEGIN CERTIFICATE-----\nAAAA").isEmpty)
    }

    @Test("A pin prints what it pins by SHA-256, as openssl prints it; bytes that are no certificate say so")
    func pinDescriptions() throws {
        let certificate = try #require(TLSCertificate(pem: Self.fixture))
        #expect("\(TLSPin.certificate(certificate))" == "certificate \(Self.certificateFingerprint)")
        #expect("\(TLSPin.publicKey(of: certificate))" == "public key \(Self.keyFingerprint)")
        for bytes in [[], [0x30], [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF], [0x30, 0x03, 0x02, 0x01, 0x01]] as [[UInt8]] {
            let junk = TLSCertificate(der: Data(bytes))
            #expect("\(TLSPin.publicKey(of: junk))" == "public key of an unreadable certificate")
        }
    }

    @Test(
        "A public-key hash reads as other clients write it, with or without sha256/; anything else is no pin",
        arguments: [
            ("sha256/8tjTPHrj5IQJUVv3zGQhGtIfg4vGgph2XJkdF5l0LLc=", true),
            ("8tjTPHrj5IQJUVv3zGQhGtIfg4vGgph2XJkdF5l0LLc=", true),
            (" sha256/8tjTPHrj5IQJUVv3zGQhGtIfg4vGgph2XJkdF5l0LLc= ", true),
            ("sha1/8tjTPHrj5IQJUVv3zGQhGtIfg4vGgph2XJkdF5l0LLc=", false),
            ("sha256/8tjTPHrj5IQJUVv3zGQhGtIfg4vGgph2XJkdF5l0LA==", false),  // 31 bytes
            ("sha256/8tjTPHrj5IQJUVv3zGQhGtIfg4vGgph2XJkdF5l0LLcA", false),  // 33 bytes
            ("sha256/not base64 at all", false), ("", false),
        ])
    func publicKeyHash(text: String, reads: Bool) throws {
        let pin = TLSPin.publicKeyHash(text)
        #expect((pin != nil) == reads)
        guard let pin else { return }
        // The same key as the certificate's own pin: it prints the same and holds the same hash.
        let certificate = try #require(TLSCertificate(pem: Self.fixture))
        #expect("\(pin)" == "public key \(Self.keyFingerprint)")
        #expect(pin.kind == .publicKey)
        #expect(pin.publicKeyHash == TLSPin.publicKey(of: certificate).publicKeyHash)
        #expect(pin.certificate == nil)
    }

    @Test("A pin failure lists the pins and the public keys the server presented, in the form a pin is written")
    func refusalListsPresentedKeys() throws {
        let pin = try #require(TLSPin.publicKeyHash(Self.keyFingerprint))
        let presented = "sha256/+w0bQ8zRg6Kl7VJQCBrEvSzjeioEnCzKind8vuOctHs="
        let hash = try #require(TLSPin.publicKeyHash(presented)?.publicKeyHash)
        let refusal = TLSRefusal(
            host: "api.example.com", port: 443, cause: .pinMismatch, pins: [pin], presentedKeyHashes: [hash])
        #expect(
            "\(refusal)"
                == "api.example.com:443: no pin matched (pinned for the host: public key \(Self.keyFingerprint); "
                + "presented: public key \(presented))")
        #expect(TLSPin.publicKeyHash(refusal.presentedKeys[0]) != nil)
        let other = TLSRefusal(host: "api.example.com", port: 443, cause: .expired, presentedKeyHashes: [hash])
        #expect("\(other)" == "api.example.com:443: the server's certificate has expired or is not yet valid")
    }
}
