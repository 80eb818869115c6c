/// What libcurl's text of a failed transfer says of TLS: FoundationNetworking (``URLSessionExecutor`` on Linux)
/// reports every certificate and handshake failure as an unknown error (`-1`) with libcurl's message as its
/// description, and nothing else tells them apart from other failures.
///
/// The texts are those of libcurl over OpenSSL (the build of Linux distributions): a failed verification is
/// `SSL certificate problem: <OpenSSL's reason>`, a host name check `SSL: … target host name …`, a handshake the
/// server broke off OpenSSL's error line (`error:0A000412:SSL routines::sslv3 alert bad certificate`). A read or
/// write that fails after the handshake (`OpenSSL SSL_read: …`) is a lost connection, not a TLS refusal.
enum LibcurlTLSText {
    /// The cause `text` reports, `nil` when it reports no TLS refusal.
    static func cause(of text: String) -> TLSRefusal.Cause? {
        let text = text.lowercased()
        if text.contains("ssl_read") || text.contains("ssl_write") { return nil }
        if let problem = text.range(of: "ssl certificate problem:") {
            let reason = text[problem.upperBound...]
            if reason.contains("expired") || reason.contains("not yet valid") { return .expired }
            if ["issuer certificate", "self-signed", "self signed", "verify the first certificate", "invalid ca"]
                .contains(where: reason.contains)
            {
                return .untrustedIssuer
            }
            return .handshakeFailed
        }
        if text.contains("target host name") || text.contains("target hostname") { return .wrongHost }
        if clientCertificateAlerts.contains(where: text.contains) { return .clientCertificateRefused }
        if ["client certificate", "client cert", "private key"].contains(where: text.contains) {
            return .unreadableCertificate
        }
        return handshakeMarkers.contains(where: text.contains) ? .handshakeFailed : nil
    }

    /// The alerts a server sends when it refuses the client's certificate, or wants one it did not get.
    private static let clientCertificateAlerts = [
        "alert bad certificate", "alert certificate required", "alert unknown ca", "alert certificate unknown",
        "alert unsupported certificate", "alert certificate revoked", "alert certificate expired",
        "alert access denied",
    ]

    /// Words of libcurl's TLS layer in a failed handshake.
    private static let handshakeMarkers = [
        "ssl routines", "ssl_connect", "ssl connect error", "tls connect error", "wrong version number",
        "alert handshake failure", "ssl: ", "openssl", "gnutls", "schannel",
    ]
}
