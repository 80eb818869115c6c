import Foundation

// The few fields of an X.509 certificate (RFC 5280 §4.1) that Courier shows: the SubjectPublicKeyInfo, whose
// SHA-256 names a public-key pin as `sha256/<base64>` (the form `openssl` and other clients print). Read from the
// DER bytes by walking a fixed path of tag-length-value fields, without recursion; bytes that are not such a
// certificate read as `nil`.

extension TLSCertificate {
    /// `sha256/<base64>` of the certificate's DER bytes.
    var fingerprint: String {
        "sha256/" + Data(Self.sha256(der)).base64EncodedString()
    }

    /// `sha256/<base64>` of the certificate's SubjectPublicKeyInfo, `nil` when the bytes are not a certificate.
    var publicKeyFingerprint: String? {
        publicKeyHash.map(Self.fingerprint(ofHash:))
    }

    /// The SHA-256 of the certificate's SubjectPublicKeyInfo (what a public-key pin holds), `nil` when the bytes are
    /// not a certificate.
    var publicKeyHash: [UInt8]? {
        subjectPublicKeyInfo.map(Self.sha256)
    }

    /// `sha256/<base64>` of a SHA-256.
    static func fingerprint(ofHash hash: [UInt8]) -> String {
        "sha256/" + Data(hash).base64EncodedString()
    }

    /// The DER bytes of the SubjectPublicKeyInfo: the seventh field of `tbsCertificate` when it has a version (the
    /// sixth without), `nil` when the bytes are not a certificate.
    var subjectPublicKeyInfo: Data? {
        let bytes = [UInt8](der)
        guard let certificate = DERField(bytes, at: 0), certificate.tag == 0x30,
            let tbs = DERField(bytes, at: certificate.contentStart), tbs.tag == 0x30
        else { return nil }
        var field = DERField(bytes, at: tbs.contentStart)
        if field?.tag == 0xA0 { field = field.flatMap { DERField(bytes, at: $0.end) } }
        // serialNumber, signature, issuer, validity, subject: then subjectPublicKeyInfo.
        for _ in 0..<5 { field = field.flatMap { $0.end < tbs.end ? DERField(bytes, at: $0.end) : nil } }
        guard let key = field, key.tag == 0x30, key.end <= tbs.end else { return nil }
        return Data(bytes[key.start..<key.end])
    }

    private static func sha256(_ data: Data) -> [UInt8] {
        var hasher = SHA256()
        data.withUnsafeBytes { hasher.update($0.bindMemory(to: UInt8.self)) }
        return hasher.finalize()
    }
}

/// One DER tag-length-value field: its tag byte and where its bytes start, its content starts and it ends.
private struct DERField {
    let tag: UInt8
    let start: Int
    let contentStart: Int
    let end: Int

    /// The field at `offset` of `bytes`, `nil` when the bytes there are not a whole field of a one-byte tag and a
    /// definite length of up to four bytes.
    init?(_ bytes: [UInt8], at offset: Int) {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        let first = bytes[offset + 1]
        var length = Int(first)
        var contentStart = offset + 2
        if first >= 0x80 {
            let count = Int(first & 0x7F)
            guard (1...4).contains(count), contentStart + count <= bytes.count else { return nil }
            length = 0
            for byte in bytes[contentStart..<contentStart + count] { length = length << 8 | Int(byte) }
            contentStart += count
        }
        guard length <= bytes.count - contentStart else { return nil }
        self.tag = bytes[offset]
        self.start = offset
        self.contentStart = contentStart
        self.end = contentStart + length
    }
}
