@_spi(CourierInternals) import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `TLSRefusal`: what a `.secureConnectionFailed` error says of where and why, and how a `URLError` (FoundationNetworking's
/// unknown error with libcurl's text among them) is read.
@Suite struct TLSRefusalTests {
    static let endpoint = APIEndpoint(method: .get, path: "/json")

    static func request(_ url: String) throws -> APIRequest {
        APIRequest(method: .get, url: try #require(URL(string: url)), endpoint: endpoint)
    }

    /// The error `URLSessionExecutor` makes of a failed task.
    static func wrapped(_ error: URLError, url: String = "https://api.example.com:8443/json") throws -> APIError {
        APIError.wrapping(error, request: try request(url))
    }

    /// FoundationNetworking's error for a transfer libcurl failed with `text`.
    static func libcurl(_ text: String) -> URLError {
        URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: text])
    }

    @Test(
        "libcurl's certificate and handshake failures are secure-connection failures with their cause",
        arguments: [
            ("SSL certificate problem: unable to get local issuer certificate", TLSRefusal.Cause.untrustedIssuer),
            ("SSL certificate problem: self-signed certificate", .untrustedIssuer),
            ("SSL certificate problem: self signed certificate in certificate chain", .untrustedIssuer),
            ("SSL certificate problem: certificate has expired", .expired),
            ("SSL certificate problem: certificate is not yet valid", .expired),
            ("SSL: no alternative certificate subject name matches target host name 'localhost'", .wrongHost),
            ("SSL: certificate subject name 'a.example' does not match target hostname 'b.example'", .wrongHost),
            ("OpenSSL/3.0.19: error:0A000412:SSL routines::sslv3 alert bad certificate", .clientCertificateRefused),
            ("error:0A00045C:SSL routines::tlsv13 alert certificate required", .clientCertificateRefused),
            ("error:0A000410:SSL routines::sslv3 alert handshake failure", .handshakeFailed),
            ("error:0A00010B:SSL routines::wrong version number", .handshakeFailed),
            ("OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to localhost:8443 ", .handshakeFailed),
        ])
    func libcurlTexts(text: String, cause: TLSRefusal.Cause) throws {
        let error = try Self.wrapped(Self.libcurl(text))
        #expect(error.reason == .transport(.secureConnectionFailed))
        #expect(error.tlsRefusal == TLSRefusal(host: "api.example.com", port: 8443, cause: cause))
        #expect(error.underlyingError is URLError)
    }

    @Test(
        "Other unknown errors stay .other, a failed read after the handshake among them",
        arguments: [
            "OpenSSL SSL_read: error:0A000126:SSL routines::unexpected eof while reading, errno 0",
            "Recv failure: Connection reset by peer", "transfer closed with 10 bytes remaining to read", "",
        ])
    func otherTexts(text: String) throws {
        let error = try Self.wrapped(Self.libcurl(text))
        #expect(error.reason == .transport(.other))
        #expect(error.tlsRefusal == nil)
    }

    @Test(
        "Apple platforms' certificate codes give their cause",
        arguments: [
            (URLError.Code.serverCertificateUntrusted, TLSRefusal.Cause.untrustedIssuer),
            (.serverCertificateHasUnknownRoot, .untrustedIssuer), (.serverCertificateHasBadDate, .expired),
            (.serverCertificateNotYetValid, .expired), (.clientCertificateRejected, .clientCertificateRefused),
            (.clientCertificateRequired, .clientCertificateRefused), (.secureConnectionFailed, .handshakeFailed),
        ])
    func appleCodes(code: URLError.Code, cause: TLSRefusal.Cause) throws {
        let error = try Self.wrapped(URLError(code), url: "wss://[::1]/socket")
        #expect(error.tlsRefusal == TLSRefusal(host: "::1", port: 443, cause: cause))
    }

    @Test("The description says where and why in Courier's words, with the pins of a pin failure")
    func description() throws {
        let pin = TLSPin.certificate(TLSCertificate(der: Data([1, 2, 3])))
        let base = APIError(
            .transport(.secureConnectionFailed), endpoint: Self.endpoint, request: try Self.request("https://a/json"),
            underlyingError: LibraryError())
        let refused = base.refusing(TLSRefusal(host: "127.0.0.1", port: 8443, cause: .pinMismatch, pins: [pin]))
        #expect(
            "\(refused)"
                == "GET /json: the secure connection to 127.0.0.1:8443 failed: no pin matched (pinned for the host: "
                + "certificate sha256/A5BYxvLAy0ksUzsKTRTvd8wPeKvMztUofYShogEc+4E=)")
        #expect(refused.underlyingError is LibraryError)
        // Without a word from the executor: the request's host and port, and a cause the error does not know.
        #expect("\(base)" == "GET /json: the secure connection to a:443 failed: the TLS handshake failed")
        #expect(!"\(base)".contains(".cc"))
        let issuer = base.refusing(TLSRefusal(host: "::1", port: 443, cause: .untrustedIssuer))
        #expect("\(issuer)".contains("to [::1]:443 failed: untrusted issuer"))
        // Any other reason has no refusal, whatever the executor said.
        let other = APIError(.transport(.timedOut), endpoint: Self.endpoint)
        #expect(other.refusing(TLSRefusal(host: "a", port: 1, cause: .expired)).tlsRefusal == nil)
    }

    /// A TLS library's error whose text names a file of its build.
    struct LibraryError: Error, CustomStringConvertible {
        var description: String { "CERTIFICATE_VERIFY_FAILED at /build/.build/checkouts/ssl/handshake.cc:320" }
    }
}
