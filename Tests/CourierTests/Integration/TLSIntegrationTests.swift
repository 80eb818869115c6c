import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `URLSessionExecutor` under the system's trust against the TLS server of `scripts/test` (scripts/servers/tlsserver.py):
/// a certificate of a private CA, a self-signed one, and a port that does not speak TLS are each refused as
/// `.secureConnectionFailed`, with where and why. On Linux this is libcurl's text read by Courier; the private CA
/// is in no system's trust store, so every origin is refused.
@Suite(
    "URLSessionExecutor: TLS refusals against a real TLS server",
    .testEnvironment("COURIER_TLS_DIR", "COURIER_TLS_MAIN_PORT", setBy: "scripts/test"), .httpbin)
struct TLSIntegrationTests {
    enum Origin: String, CaseIterable, Sendable {
        case privateCA = "MAIN"
        case selfSigned = "SELFSIGNED"
        case notTLS = "HTTPBIN"

        var cause: TLSRefusal.Cause {
            self == .notTLS ? .handshakeFailed : .untrustedIssuer
        }
    }

    static func base(_ origin: Origin) throws -> URL {
        if origin == .notTLS {
            // httpbin speaks plain HTTP: an https call to it fails in the handshake.
            let port = try #require(HTTPBin.url?.port)
            return try #require(URL(string: "https://127.0.0.1:\(port)"))
        }
        let variable = "COURIER_TLS_\(origin.rawValue)_PORT"
        let port = try #require(ProcessInfo.processInfo.environment[variable].flatMap { Int($0) }, "\(variable)")
        return try #require(URL(string: "https://127.0.0.1:\(port)"))
    }

    @Test(
        "A refused certificate or handshake is .secureConnectionFailed, saying where and why",
        arguments: Origin.allCases)
    func refused(_ origin: Origin) async throws {
        let base = try Self.base(origin)
        let configuration = APIConfiguration(
            baseURL: base, timeout: .seconds(10), executor: URLSessionExecutor(configuration: .ephemeral))
        var failure: APIError?
        do {
            _ = try await GET<Void>("/json").request(using: configuration) as Data
        } catch {
            failure = error
        }
        let error = try #require(failure)
        #expect(error.reason == .transport(.secureConnectionFailed), "\(error)")
        let port = try #require(base.port)
        #expect(error.tlsRefusal?.host == "127.0.0.1")
        #expect(error.tlsRefusal?.port == port)
        #expect(error.tlsRefusal?.cause == origin.cause, "\(error)")
        #expect("\(error)".hasPrefix("GET /json: the secure connection to 127.0.0.1:\(port) failed: "), "\(error)")
        #expect(error.underlyingError != nil)
    }
}
