import Foundation

/// Which TLS servers an executor trusts, and which certificate it presents to them, host by host: trust roots of
/// your own (a private certificate authority), pinned certificates or public keys, and a client certificate (mTLS).
///
/// Hand it to the executor that opens the connections (``URLSessionExecutor/init(configuration:trust:)``, or
/// `AsyncHTTPClientExecutor(trust:cookies:)` of the CourierAsyncHTTPClient package): a connection is verified once
/// and then carries many calls, so trust belongs to the executor that owns the connections, not to a call. A
/// host no rule names is verified as the executor verifies any host (the system's roots); every redirect hop is
/// verified with the rule of its own host.
///
/// ```swift
/// let trust = TLSTrust([
///     TLSTrust.Host("api.internal.example", roots: [privateCA], clientIdentity: identity),
///     TLSTrust.Host("*.payments.example", pins: [.certificate(currentCA), .certificate(nextCA)]),
/// ])
/// ```
///
/// What each executor honours is in the "Trust and certificates" article; an executor that cannot honour a rule
/// fails the call with ``APIError/TransportProblem/unsupportedByExecutor`` before any I/O, never ignoring it.
/// Printing a trust (`description`, `dump`) shows its hosts and the certificates' sizes, never a private key.
public struct TLSTrust: Sendable {
    /// The rules, in order: the first whose pattern matches a host applies to it.
    @_spi(CourierInternals) public let hosts: [Host]

    /// Which roots and pins past their rotation date were already warned about; `nil` when none has a date.
    let rotations: RotationLedger?

    /// Trust with `hosts`, in order: the first rule whose pattern matches a host applies to it.
    public init(_ hosts: [Host]) {
        self.hosts = hosts
        let dated = hosts.contains { host in
            host.roots.contains { $0.rotationDate != nil } || host.pins.contains { $0.rotationDate != nil }
        }
        self.rotations = dated ? RotationLedger() : nil
    }

    /// The system's trust for every host: no roots, pins or client certificate of your own.
    public static let system = TLSTrust([])

    /// Whether no rule is set (``system``).
    @_spi(CourierInternals) public var isSystem: Bool { hosts.isEmpty }

    /// The rule for `host` (a host name or an IP address), `nil` when no pattern matches it.
    @_spi(CourierInternals) public func rule(for host: String) -> Host? {
        ruleIndex(for: host).map { hosts[$0] }
    }

    /// The index in ``hosts`` of the rule for `host`, `nil` when no pattern matches it.
    @_spi(CourierInternals) public func ruleIndex(for host: String) -> Int? {
        hosts.firstIndex { $0.matches(host) }
    }

    /// The trust of one host pattern: the roots that anchor its chain, the pins its chain must contain, and the
    /// client certificate to present.
    public struct Host: Sendable {
        /// The host pattern: a host name (`api.example.com`), an IP address, or `*.` and a domain for any host
        /// one label below it (`*.example.com` matches `api.example.com`, not `example.com` or `a.b.example.com`).
        /// Case does not matter.
        public let pattern: String
        /// Trust roots of your own (a private certificate authority).
        @_spi(CourierInternals) public let roots: [TLSCertificate]
        /// Whether the system's roots are trusted beside ``roots`` (they are when ``roots`` is empty).
        @_spi(CourierInternals) public let includesSystemRoots: Bool
        /// The pins: the server's chain must contain one of them.
        @_spi(CourierInternals) public let pins: [TLSPin]
        /// The certificate and key presented when the server asks for one.
        @_spi(CourierInternals) public let clientIdentity: TLSClientIdentity?

        /// The trust of hosts matching `pattern`.
        ///
        /// - Parameters:
        ///   - pattern: a host name, an IP address, or `*.example.com` for any host one label below `example.com`.
        ///   - roots: trust roots of your own, such as a private certificate authority; by default they replace the
        ///     system's roots for these hosts.
        ///   - includesSystemRoots: `true` to trust the system's roots as well as `roots`.
        ///   - pins: certificates or public keys of which the server's chain must contain one; list two (the
        ///     current and the next) to rotate without an outage. No pins: any chain the roots anchor.
        ///   - clientIdentity: the client certificate and key to present (mutual TLS).
        public init(
            _ pattern: String, roots: [TLSCertificate] = [], includesSystemRoots: Bool = false, pins: [TLSPin] = [],
            clientIdentity: TLSClientIdentity? = nil
        ) {
            self.pattern = pattern
            self.roots = roots
            self.includesSystemRoots = includesSystemRoots || roots.isEmpty
            self.pins = pins
            self.clientIdentity = clientIdentity
        }

        /// Whether `host` matches ``pattern``.
        func matches(_ host: String) -> Bool {
            let host = Self.normalized(host)
            let pattern = Self.normalized(pattern)
            guard pattern.hasPrefix("*.") else { return host == pattern }
            let domain = pattern.dropFirst(2)
            guard host.hasSuffix("." + domain) else { return false }
            let label = host.dropLast(domain.count + 1)
            return !label.isEmpty && !label.contains(".")
        }

        /// `name` in lower case, without a trailing dot or the brackets of an IPv6 address.
        private static func normalized(_ name: String) -> String {
            var name = name.lowercased()
            if name.hasSuffix(".") { name.removeLast() }
            if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            return name
        }
    }
}

/// An X.509 certificate, held as its DER bytes: a trust root, a pin, or part of a client certificate chain.
public struct TLSCertificate: Sendable, Hashable {
    /// The certificate's DER bytes.
    public let der: Data
    /// The date by which a root should be rotated out (``rotating(by:)``); `nil` for none.
    public private(set) var rotationDate: Date?

    /// The certificate in `der` (DER bytes). The bytes are checked when a connection uses them.
    public init(der: Data) {
        self.der = der
    }

    /// The first certificate of `pem` (`-----BEGIN CERTIFICATE-----`…).
    ///
    /// `nil` when `pem` holds no `CERTIFICATE` block whose base64 decodes: another kind of block (a private key,
    /// `BEGIN TRUSTED CERTIFICATE`), DER bytes read as text, or a block cut short. The bytes are not checked as
    /// X.509 here; a connection that uses them does (an executor refuses a certificate it cannot read). For a bundle
    /// of several certificates, use ``certificates(inPEM:)``.
    public init?(pem: String) {
        guard let first = Self.derBlocks(inPEM: pem).first else { return nil }
        self.der = first
    }

    /// This certificate, as a root to be rotated out by `date`: past it, calls still verify with it, and the
    /// timeline (a ``CallTimeline/Event/Kind/trust`` event) and the logging plugins warn once, so that the rotation is
    /// planned before the certificate is retired (see the "Trust and certificates" article).
    public func rotating(by date: Date) -> TLSCertificate {
        var certificate = self
        certificate.rotationDate = date
        return certificate
    }

    /// Every certificate of `pem`, in order: a CA bundle becomes a rule's roots in one step
    /// (`TLSTrust.Host("api.internal.example", roots: TLSCertificate.certificates(inPEM: bundle))`). Empty when it
    /// holds none; blocks that are not certificates (a key, a comment) are skipped, as ``init(pem:)`` skips them.
    public static func certificates(inPEM pem: String) -> [TLSCertificate] {
        derBlocks(inPEM: pem).map(TLSCertificate.init(der:))
    }

    /// The DER bytes of every `CERTIFICATE` block of `pem`, in order.
    static func derBlocks(inPEM pem: String) -> [Data] {
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        var found: [Data] = []
        var rest = Substring(pem)
        while let start = rest.range(of: begin), let stop = rest[start.upperBound...].range(of: end) {
            let base64 = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            if let der = Data(base64Encoded: String(base64)), !der.isEmpty { found.append(der) }
            rest = rest[stop.upperBound...]
        }
        return found
    }
}

/// A pin: a certificate, or a public key, that a server's chain must contain.
///
/// A public-key pin survives the renewal of a certificate that keeps its key. List the current pin and the next
/// one in ``TLSTrust/Host/init(_:roots:includesSystemRoots:pins:clientIdentity:)`` to rotate without an outage.
/// A public key is pinned by the SHA-256 of its SubjectPublicKeyInfo: from a certificate that holds it
/// (``publicKey(of:)``) or from the hash itself (``publicKeyHash(_:)``), as other clients and pinning guides give it.
public struct TLSPin: Sendable, Hashable {
    /// What is pinned.
    @_spi(CourierInternals) public enum Kind: Sendable, Hashable {
        /// The certificate itself.
        case certificate
        /// A public key (its SubjectPublicKeyInfo), by its SHA-256.
        case publicKey
    }

    /// What is pinned: the certificate or a public key.
    @_spi(CourierInternals) public let kind: Kind
    /// The pinned certificate, or the certificate whose public key is pinned; `nil` for a pin given as a hash.
    @_spi(CourierInternals) public let certificate: TLSCertificate?
    /// The SHA-256 of the pinned SubjectPublicKeyInfo, for a public-key pin; `nil` for a certificate pin, and for a
    /// certificate whose key cannot be read (an executor refuses such a pin before any I/O).
    @_spi(CourierInternals) public let publicKeyHash: [UInt8]?
    /// The date by which the pin should be rotated out (``rotating(by:)``, or its certificate's); `nil` for none.
    public var rotationDate: Date? { ownRotationDate ?? certificate?.rotationDate }
    private var ownRotationDate: Date?

    private init(kind: Kind, certificate: TLSCertificate?, publicKeyHash: [UInt8]?) {
        self.kind = kind
        self.certificate = certificate
        self.publicKeyHash = publicKeyHash
    }

    /// This pin, to be rotated out by `date`: past it, calls still verify with it, and the timeline (a
    /// ``CallTimeline/Event/Kind/trust`` event) and the logging plugins warn once, so that the next pin is shipped
    /// and the server moved before this one is dropped.
    ///
    /// ```swift
    /// TLSTrust.Host("payments.example", pins: [.certificate(current).rotating(by: retirement), .certificate(next)])
    /// ```
    public func rotating(by date: Date) -> TLSPin {
        var pin = self
        pin.ownRotationDate = date
        return pin
    }

    /// Pins `certificate`: the server's chain must contain it. Pin the certificate authority that issues the
    /// server's certificates (see the "Trust and certificates" article for what each executor accepts).
    public static func certificate(_ certificate: TLSCertificate) -> TLSPin {
        TLSPin(kind: .certificate, certificate: certificate, publicKeyHash: nil)
    }

    /// Pins the public key of `certificate`: the server's chain must contain a certificate with that key.
    public static func publicKey(of certificate: TLSCertificate) -> TLSPin {
        TLSPin(kind: .publicKey, certificate: certificate, publicKeyHash: certificate.publicKeyHash)
    }

    /// Pins a public key by the SHA-256 of its SubjectPublicKeyInfo in base64, with or without the `sha256/` prefix
    /// other clients write (`sha256/+w0bQ8zRg6Kl7VJQCBrEvSzjeioEnCzKind8vuOctHs=`); `nil` when `hash` is not 32
    /// bytes in base64. A pin failure lists the hashes of the keys the server presented, in this form.
    ///
    /// ```swift
    /// // openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform der \
    /// //     | openssl dgst -sha256 -binary | openssl base64
    /// let pin = TLSPin.publicKeyHash("sha256/+w0bQ8zRg6Kl7VJQCBrEvSzjeioEnCzKind8vuOctHs=")
    /// ```
    public static func publicKeyHash(_ hash: String) -> TLSPin? {
        var text = Substring(hash.trimmingCharacters(in: .whitespaces))
        if text.hasPrefix("sha256/") { text = text.dropFirst("sha256/".count) }
        guard let bytes = Data(base64Encoded: String(text)), bytes.count == 32 else { return nil }
        return TLSPin(kind: .publicKey, certificate: nil, publicKeyHash: [UInt8](bytes))
    }
}

/// A client certificate with its private key, presented to servers that ask for one (mutual TLS).
///
/// Printing it (`description`, `debugDescription`, `dump`, a `Mirror`) shows the chain's size, never the key or
/// the password.
public struct TLSClientIdentity: Sendable {
    /// How the identity is held.
    @_spi(CourierInternals) public enum Material: Sendable {
        /// A certificate chain (the client's certificate first) and its private key in PEM.
        case pem(chain: [TLSCertificate], privateKey: String)
        /// A PKCS#12 archive (`.p12`, `.pfx`) and its password.
        case pkcs12(Data, password: String)
    }

    /// The certificate and key.
    @_spi(CourierInternals) public let material: Material

    /// An identity of `certificateChain` (the client's certificate first, then any intermediates) and its private
    /// key in PEM (`-----BEGIN PRIVATE KEY-----`…, PKCS#8, or a PKCS#1 RSA or SEC 1 EC key).
    public init(certificateChain: [TLSCertificate], privateKeyPEM: String) {
        self.material = .pem(chain: certificateChain, privateKey: privateKeyPEM)
    }

    /// An identity read from a PKCS#12 archive (`.p12`, `.pfx`) protected by `password`.
    public init(pkcs12: Data, password: String) {
        self.material = .pkcs12(pkcs12, password: password)
    }
}

extension TLSTrust {
    /// The warnings due for a request to `url` at `now`: one for each root and pin of its host's rule past its
    /// rotation date that no call warned about before (each is warned about once for this trust and its copies).
    /// Empty at once when no root or pin has a date.
    func rotationWarnings(for url: URL, at now: Date = Date()) -> [String] {
        guard let rotations, let host = url.host, let index = ruleIndex(for: host) else { return [] }
        let rule = hosts[index]
        var due: [(key: RotationLedger.Key, text: String)] = []
        func warn(_ what: String, since date: Date) -> String {
            "\(what) of \(rule.pattern) is past its rotation date (\(Self.day(date))): the call was verified with it; "
                + "rotate it"
        }
        for (offset, root) in rule.roots.enumerated() {
            guard let date = root.rotationDate, date <= now else { continue }
            let key = RotationLedger.Key(rule: index, item: offset, isPin: false)
            due.append((key, warn("the root certificate \(root.fingerprint)", since: date)))
        }
        for (offset, pin) in rule.pins.enumerated() {
            guard let date = pin.rotationDate, date <= now else { continue }
            let key = RotationLedger.Key(rule: index, item: offset, isPin: true)
            due.append((key, warn("the pin \(pin)", since: date)))
        }
        guard !due.isEmpty else { return [] }
        let fresh = rotations.claim(due.map(\.key))
        return due.filter { fresh.contains($0.key) }.map(\.text)
    }

    /// `date` as a day in UTC: `2026-12-01`.
    private static func day(_ date: Date) -> String {
        String((try? DateText.iso8601(date, milliseconds: false))?.prefix(10) ?? "\(date)")
    }
}

/// Which dated roots and pins of a trust were warned about: shared by the trust's copies (an executor's).
final class RotationLedger: Sendable {
    struct Key: Hashable {
        let rule: Int
        let item: Int
        let isPin: Bool
    }

    private let warned = LockedBox<Set<Key>>([])

    /// The keys of `keys` not claimed before, now claimed.
    func claim(_ keys: [Key]) -> Set<Key> {
        warned.withLock { warned in
            var fresh = Set<Key>()
            for key in keys where warned.insert(key).inserted { fresh.insert(key) }
            return fresh
        }
    }
}
