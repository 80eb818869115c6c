import Foundation

// A trust may hold a private key and its password (a client identity): every way of printing it — `print`,
// `String(describing:)`, `String(reflecting:)`, interpolation, `dump`, `Mirror` — shows hosts, pin kinds and
// sizes, never the key or the password.

extension TLSTrust: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The rules' descriptions: `TLSTrust([api.example.com: 1 root, 2 pins, client identity])`.
    public var description: String {
        "TLSTrust([\(hosts.map(\.description).joined(separator: "; "))])"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror whose children are the rules' descriptions.
    public var customMirror: Mirror {
        Mirror(self, children: ["hosts": hosts.map(\.description)], displayStyle: .struct)
    }
}

extension TLSTrust.Host: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The pattern and what the rule sets, by count: `api.example.com: 1 root, 2 pins, client identity`.
    public var description: String {
        var parts: [String] = []
        if !roots.isEmpty { parts.append(roots.count == 1 ? "1 root" : "\(roots.count) roots") }
        if includesSystemRoots { parts.append("system roots") }
        if !pins.isEmpty { parts.append(pins.count == 1 ? "1 pin" : "\(pins.count) pins") }
        if let clientIdentity { parts.append(clientIdentity.description) }
        return "\(pattern): \(parts.joined(separator: ", "))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror with the pattern, the counts of roots and pins, and the client identity's description.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "pattern": pattern, "roots": roots.count, "includesSystemRoots": includesSystemRoots,
                "pins": pins.count, "clientIdentity": clientIdentity?.description ?? "none",
            ],
            displayStyle: .struct)
    }
}

extension TLSPin: CustomStringConvertible {
    /// What is pinned, by its SHA-256 in base64: `certificate sha256/…` (of the certificate's DER bytes) or
    /// `public key sha256/…` (of its SubjectPublicKeyInfo, the form other clients and `openssl` print, and that
    /// ``publicKeyHash(_:)`` reads).
    public var description: String {
        switch kind {
        case .certificate: "certificate " + (certificate.map(\.fingerprint) ?? "none")
        case .publicKey:
            "public key " + (publicKeyHash.map(TLSCertificate.fingerprint(ofHash:)) ?? "of an unreadable certificate")
        }
    }
}

extension TLSClientIdentity: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The identity's kind and size, without the key: `client identity (PEM, 2 certificates, key ***)`.
    public var description: String {
        switch material {
        case .pem(let chain, _):
            "client identity (PEM, \(chain.count) certificate\(chain.count == 1 ? "" : "s"), key ***)"
        case .pkcs12(let archive, _):
            "client identity (PKCS#12, \(archive.count) bytes, password ***)"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror with ``description`` only.
    public var customMirror: Mirror {
        Mirror(self, children: ["identity": description], displayStyle: .struct)
    }
}

extension TLSClientIdentity.Material: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The material's kind and size, without the key or the password.
    public var description: String { TLSClientIdentity(material: self).description }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror with ``description`` only.
    public var customMirror: Mirror {
        Mirror(self, children: ["material": description], displayStyle: .enum)
    }
}

extension TLSClientIdentity {
    /// An identity of `material`.
    init(material: Material) {
        self.material = material
    }
}
