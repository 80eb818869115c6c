import Courier
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CourierAsyncHTTPClient

/// `TLSTrust` on `AsyncHTTPClientExecutor` against a real TLS server (scripts/servers/tlsserver.py, Python's `ssl`)
/// with a private certificate authority made by openssl when `scripts/test-ahc` starts it.
///
/// Each call asks for a path of its own; the server counts the request lines it reads per path (`/count`), so a
/// refusal "before the request is sent" is a count of zero. Its cases run one at a time: a burst of handshakes beside
/// the timing-sensitive WebSocket suites (pongs within 2 s) is load they need not share.
@Suite(
    "AsyncHTTPClientExecutor: TLS trust against a private CA",
    .testEnvironment("COURIER_TLS_DIR", "COURIER_TLS_MAIN_PORT", setBy: "scripts/test-ahc"), .serialized)
struct TLSTrustTests {
    /// The TLS server's folder and ports.
    struct Server {
        let folder: URL
        let ports: [String: Int]

        init() throws {
            let environment = ProcessInfo.processInfo.environment
            folder = URL(fileURLWithPath: try #require(environment["COURIER_TLS_DIR"]))
            var ports: [String: Int] = [:]
            for name in ["MAIN", "MTLS", "OTHER", "EXPIRED", "WRONGHOST", "SELFSIGNED"] {
                let port = environment["COURIER_TLS_\(name)_PORT"].flatMap { Int($0) }
                let value: Int = try #require(port, "COURIER_TLS_\(name)_PORT")
                ports[name] = value
            }
            self.ports = ports
        }

        func url(_ origin: String, host: String = "127.0.0.1", scheme: String = "https") throws -> URL {
            let port = try #require(ports[origin])
            return try #require(URL(string: "\(scheme)://\(host):\(port)"))
        }

        func text(_ name: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }

        func certificate(_ name: String) throws -> TLSCertificate {
            try #require(TLSCertificate(pem: try text(name)))
        }

        /// How many request lines for `path` the server read (asked with the CA trusted).
        func count(_ path: String) async throws -> Int {
            struct Count: Decodable { let count: Int }
            let trust = TLSTrust([TLSTrust.Host("127.0.0.1", roots: [try certificate("ca.pem")])])
            let configuration = APIConfiguration(
                baseURL: try url("MAIN"), executor: AsyncHTTPClientExecutor(trust: trust, cookies: nil))
            let counted: Count = try await GET<String>("/count") { ["path": $0] }.request(
                with: path, using: configuration)
            return counted.count
        }
    }

    /// A path no other call asks for.
    static func path(_ name: String) -> String { "/\(name)-\(UUID().uuidString)" }

    /// The text of `GET path` on `origin` with `trust`, or the error.
    static func call(
        _ path: String, on base: URL, trust: TLSTrust
    ) async -> Result<String, APIError> {
        let configuration = APIConfiguration(
            baseURL: base, executor: AsyncHTTPClientExecutor(trust: trust, cookies: nil))
        do {
            let text: String = try await GET<Void>(path).request(using: configuration)
            return .success(text)
        } catch {
            return .failure(error)
        }
    }

    static func reason(_ result: Result<String, APIError>) -> APIError.Reason? {
        guard case .failure(let error) = result else { return nil }
        return error.reason
    }

    @Test("Default trust refuses the private CA, and the request is never sent")
    func defaultTrustRefuses() async throws {
        let server = try Server()
        let path = Self.path("default")
        let result = await Self.call(path, on: try server.url("MAIN"), trust: .system)
        #expect(Self.reason(result) == .transport(.secureConnectionFailed), "\(result)")
        #expect(try await server.count(path) == 0)
    }

    @Test("The CA as trust root succeeds, for an address and for a host name")
    func caAsRoot() async throws {
        let server = try Server()
        let ca = try server.certificate("ca.pem")
        for host in ["127.0.0.1", "localhost"] {
            let trust = TLSTrust([TLSTrust.Host(host, roots: [ca])])
            let result = await Self.call(Self.path("root"), on: try server.url("MAIN", host: host), trust: trust)
            #expect(try result.get() == "hello")
        }
    }

    @Test("A root past its rotation date still verifies; the timeline and the log warn once")
    func rotationDate() async throws {
        let server = try Server()
        let ca = try server.certificate("ca.pem").rotating(by: Date(timeIntervalSinceNow: -3_600))
        let warned = NIOLockedValueBox<[String]>([])
        let lines = NIOLockedValueBox<[String]>([])
        struct TrustEvents: CallObserver {
            let warned: NIOLockedValueBox<[String]>
            func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
                if event.kind == .trust, let detail = event.detail { warned.withLockedValue { $0.append(detail) } }
            }
        }
        let configuration = APIConfiguration(
            baseURL: try server.url("MAIN"),
            executor: AsyncHTTPClientExecutor(trust: TLSTrust([TLSTrust.Host("127.0.0.1", roots: [ca])]), cookies: nil),
            plugins: [.logging { line in lines.withLockedValue { $0.append(line) } }],
            observers: [TrustEvents(warned: warned)])

        for _ in 0..<2 {
            let text: String = try await GET<Void>(Self.path("rotation")).request(using: configuration)
            #expect(text == "hello")
        }

        let details = warned.withLockedValue { $0 }
        #expect(details.count == 1)
        #expect(details.first?.hasPrefix("the root certificate sha256/") == true)
        #expect(lines.withLockedValue { $0 }.filter { $0.contains("⚠ the root certificate") }.count == 1)
    }

    @Test("A correct certificate pin succeeds; a rotation's two pins succeed with either")
    func correctPin() async throws {
        let server = try Server()
        let ca = try server.certificate("ca.pem")
        let other = try server.certificate("other-ca.pem")
        for pins in [[TLSPin.certificate(ca)], [.certificate(other), .certificate(ca)]] {
            let trust = TLSTrust([TLSTrust.Host("127.0.0.1", pins: pins)])
            let result = await Self.call(Self.path("pin"), on: try server.url("MAIN"), trust: trust)
            #expect(try result.get() == "hello")
        }
    }

    @Test("A wrong pin fails in the TLS handshake: the server reads no request line")
    func wrongPin() async throws {
        let server = try Server()
        let path = Self.path("wrong-pin")
        let ca = try server.certificate("ca.pem")
        let trust = TLSTrust([
            TLSTrust.Host("127.0.0.1", roots: [ca], pins: [.certificate(try server.certificate("other-ca.pem"))])
        ])
        let result = await Self.call(path, on: try server.url("MAIN"), trust: trust)
        #expect(Self.reason(result) == .transport(.secureConnectionFailed), "\(result)")
        #expect(try await server.count(path) == 0)
    }

    @Test("A public-key pin on an HTTP request is refused before any I/O, naming the endpoint")
    func publicKeyPinRefused() async throws {
        let server = try Server()
        let path = Self.path("key-pin")
        let trust = TLSTrust([
            TLSTrust.Host("127.0.0.1", pins: [.publicKey(of: try server.certificate("server.pem"))])
        ])
        let result = await Self.call(path, on: try server.url("MAIN"), trust: trust)
        #expect(Self.reason(result) == .transport(.unsupportedByExecutor), "\(result)")
        if case .failure(let error) = result {
            #expect(error.endpoint.path == path)
            #expect("\(error.underlyingError.map { "\($0)" } ?? "")".contains("AsyncHTTPClientExecutor"))
        }
        #expect(try await server.count(path) == 0)
    }

    enum Identity: String, CaseIterable, Sendable {
        case pem, pkcs12, none
    }

    @Test(
        "mTLS: the client certificate (PEM or PKCS#12) is presented; without one the handshake fails",
        arguments: Identity.allCases)
    func mutualTLS(identity: Identity) async throws {
        let server = try Server()
        let path = Self.path("mtls")
        let client: TLSClientIdentity?
        switch identity {
        case .pem:
            client = TLSClientIdentity(
                certificateChain: [try server.certificate("client.pem")], privateKeyPEM: try server.text("client.key"))
        case .pkcs12:
            let archive = try Data(contentsOf: server.folder.appendingPathComponent("client.p12"))
            client = TLSClientIdentity(pkcs12: archive, password: "courier")
        case .none:
            client = nil
        }
        let trust = TLSTrust([
            TLSTrust.Host("127.0.0.1", roots: [try server.certificate("ca.pem")], clientIdentity: client)
        ])
        let result = await Self.call(path, on: try server.url("MTLS"), trust: trust)
        if identity == .none {
            #expect(Self.reason(result) == .transport(.secureConnectionFailed), "\(result)")
            #expect(try await server.count(path) == 0)
        } else {
            #expect(try result.get() == "hello courier-client")
        }
    }

    @Test("A redirect from a pinned host to one whose pin fails: the second hop is never sent")
    func redirectToFailingPin() async throws {
        let server = try Server()
        let ca = try server.certificate("ca.pem")
        let target = Self.path("redirected")
        let to = try server.url("OTHER", host: "localhost").appendingPathComponent(String(target.dropFirst()))
        // 127.0.0.1 (main) and localhost (other, a certificate of another CA) are both pinned to the test CA.
        let trust = TLSTrust([
            TLSTrust.Host("127.0.0.1", pins: [.certificate(ca)]), TLSTrust.Host("localhost", pins: [.certificate(ca)]),
        ])
        let configuration = APIConfiguration(
            baseURL: try server.url("MAIN"), executor: AsyncHTTPClientExecutor(trust: trust, cookies: nil))
        let redirect = GET<String>("/redirect") { ["to": $0] }
        var failure: APIError?
        do {
            _ = try await redirect.request(with: to.absoluteString, using: configuration) as String
        } catch {
            failure = error
        }
        #expect(failure?.reason == .transport(.secureConnectionFailed), "\(String(describing: failure))")
        #expect(try await server.count(target) == 0)
    }

    enum BadCertificate: String, CaseIterable, Sendable {
        case expired = "EXPIRED"
        case wrongHost = "WRONGHOST"
    }

    @Test("An expired and a wrong-host certificate of the trusted CA fail", arguments: BadCertificate.allCases)
    func badCertificates(_ bad: BadCertificate) async throws {
        let server = try Server()
        let path = Self.path(bad.rawValue.lowercased())
        let trust = TLSTrust([TLSTrust.Host("127.0.0.1", roots: [try server.certificate("ca.pem")])])
        let result = await Self.call(path, on: try server.url(bad.rawValue), trust: trust)
        #expect(Self.reason(result) == .transport(.secureConnectionFailed), "\(result)")
        #expect(try await server.count(path) == 0)
    }

    enum SocketPin: String, CaseIterable, Sendable {
        case certificate, publicKey, publicKeyHash, wrongPublicKey, wrongPublicKeyHash
    }

    @Test(
        "wss with a pin: a certificate, public-key or hash pin opens the socket, a wrong one sends no upgrade",
        arguments: SocketPin.allCases)
    func webSocketWithPin(_ kind: SocketPin) async throws {
        let server = try Server()
        let ca = try server.certificate("ca.pem")
        // The hash as a pin failure prints it, and as other clients write it.
        let serverKey = String("\(TLSPin.publicKey(of: try server.certificate("server.pem")))".dropFirst(11))
        let otherKey = String("\(TLSPin.publicKey(of: try server.certificate("other.pem")))".dropFirst(11))
        let pin: TLSPin
        switch kind {
        case .certificate: pin = .certificate(ca)
        case .publicKey: pin = .publicKey(of: try server.certificate("server.pem"))
        case .publicKeyHash: pin = try #require(TLSPin.publicKeyHash(serverKey))
        case .wrongPublicKey: pin = .publicKey(of: try server.certificate("other.pem"))
        case .wrongPublicKeyHash: pin = try #require(TLSPin.publicKeyHash(otherKey))
        }
        let wrong = kind == .wrongPublicKey || kind == .wrongPublicKeyHash
        let trust = TLSTrust([TLSTrust.Host("127.0.0.1", roots: [ca], pins: [pin])])
        let configuration = APIConfiguration(
            baseURL: try server.url("MAIN", scheme: "wss"),
            executor: AsyncHTTPClientExecutor(trust: trust, cookies: nil))
        let path = "/ws" + Self.path("echo")
        do {
            let socket = try await WebSocket<Void>(path).connect(using: configuration)
            try await socket.send(.text("pinned"))
            var received: WebSocketMessage?
            for try await message in socket {
                received = message
                break
            }
            await socket.close()
            #expect(!wrong)
            #expect(received == .text("pinned"))
        } catch {
            #expect(wrong, "\(error)")
            #expect(error.reason == .transport(.secureConnectionFailed), "\(error)")
            // The refusal names the key the server presented: what to pin.
            let refusal = try #require(error.tlsRefusal)
            #expect(refusal.cause == .pinMismatch)
            #expect(refusal.presentedKeys == [serverKey], "\(refusal)")
            #expect("\(error)".contains("presented: public key \(serverKey)"), "\(error)")
            #expect(try await server.count(path) == 0)
        }
    }

    @Test("wss with a public-key pin of bytes that hold no key: refused before any I/O, never left unpinned")
    func webSocketWithUnreadablePin() async throws {
        let server = try Server()
        let junk = TLSCertificate(der: Data([0x30, 0x03, 0x02, 0x01, 0x01]))
        let trust = TLSTrust([
            TLSTrust.Host("127.0.0.1", roots: [try server.certificate("ca.pem")], pins: [.publicKey(of: junk)])
        ])
        let configuration = APIConfiguration(
            baseURL: try server.url("MAIN", scheme: "wss"),
            executor: AsyncHTTPClientExecutor(trust: trust, cookies: nil))
        let path = "/ws" + Self.path("unreadable-pin")
        let error = await #expect(throws: APIError.self) {
            _ = try await WebSocket<Void>(path).connect(using: configuration)
        }
        #expect(error?.reason == .transport(.secureConnectionFailed), "\(String(describing: error))")
        #expect(error?.tlsRefusal?.cause == .unreadableCertificate)
        #expect(try await server.count(path) == 0)
    }

    @Test("A key that cannot be read fails the call before any I/O, as a TLS failure")
    func unreadableKey() async throws {
        let server = try Server()
        let path = Self.path("bad-key")
        let identity = TLSClientIdentity(
            certificateChain: [try server.certificate("client.pem")],
            privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        let trust = TLSTrust([
            TLSTrust.Host("127.0.0.1", roots: [try server.certificate("ca.pem")], clientIdentity: identity)
        ])
        let result = await Self.call(path, on: try server.url("MTLS"), trust: trust)
        #expect(Self.reason(result) == .transport(.secureConnectionFailed), "\(result)")
        #expect(try await server.count(path) == 0)
    }

    @Test("No printable surface of an executor, its configuration or a call's error shows the client's private key")
    func keyNeverPrinted() async throws {
        let server = try Server()
        let key = try server.text("client.key")
        // The key's base64 lines: none may appear anywhere.
        let secrets = key.split(separator: "\n").filter { !$0.hasPrefix("-----") && $0.count > 16 }.map(String.init)
        try #require(!secrets.isEmpty)
        let identity = TLSClientIdentity(certificateChain: [try server.certificate("client.pem")], privateKeyPEM: key)
        // A rule the server's chain fails (a pin of another CA), so that the call's error is printed too.
        let trust = TLSTrust([
            TLSTrust.Host(
                "127.0.0.1", pins: [.certificate(try server.certificate("other-ca.pem"))], clientIdentity: identity)
        ])
        let executor = AsyncHTTPClientExecutor(trust: trust, cookies: nil)
        let configuration = APIConfiguration(baseURL: try server.url("MTLS"), executor: executor)
        var texts: [String] = []
        do {
            _ = try await GET<Void>(Self.path("printed")).request(using: configuration) as String
        } catch {
            texts += ["\(error)", String(reflecting: error), error.debugDetails()]
        }
        // `dump` of the executor (or of a configuration holding it) would walk the HTTPClient's internals (its pool,
        // its event loops) for seconds, racing their threads: the test dumps what the executor holds of the trust,
        // the TLS configurations built from it, instead.
        texts += ["\(executor)", String(reflecting: executor), "\(configuration)", String(reflecting: configuration)]
        for value in [executor.tls as Any, trust, identity] {
            var dumped = ""
            dump(value, to: &dumped)
            texts += ["\(value)", String(reflecting: value), dumped]
        }
        for text in texts {
            for secret in secrets {
                #expect(!text.contains(secret), "the key leaks in: \(text)")
            }
            #expect(!text.contains("BEGIN PRIVATE KEY"))
        }
    }

    // MARK: - Refusals: typed, where and why

    /// A refusal of the TLS server, on one of its origins under one trust, and its cause.
    enum Refusal: String, CaseIterable, Sendable {
        case privateCAUnderSystemTrust, selfSignedUnderSystemTrust, expired, wrongHost, wrongPin, refusedClient

        var origin: String {
            switch self {
            case .privateCAUnderSystemTrust, .wrongPin: "MAIN"
            case .selfSignedUnderSystemTrust: "SELFSIGNED"
            case .expired: "EXPIRED"
            case .wrongHost: "WRONGHOST"
            case .refusedClient: "MTLS"
            }
        }

        var cause: TLSRefusal.Cause {
            switch self {
            case .privateCAUnderSystemTrust, .selfSignedUnderSystemTrust: .untrustedIssuer
            case .expired: .expired
            case .wrongHost: .wrongHost
            case .wrongPin: .pinMismatch
            case .refusedClient: .clientCertificateRefused
            }
        }

        func trust(_ server: Server) throws -> TLSTrust {
            let ca = try server.certificate("ca.pem")
            switch self {
            case .privateCAUnderSystemTrust, .selfSignedUnderSystemTrust:
                return .system
            case .expired, .wrongHost:
                return TLSTrust([TLSTrust.Host("127.0.0.1", roots: [ca])])
            case .wrongPin:
                return TLSTrust([
                    TLSTrust.Host("127.0.0.1", pins: [.certificate(try server.certificate("other-ca.pem"))])
                ])
            case .refusedClient:
                // The server's own certificate, which is not for clients (its extended key usage is serverAuth).
                let identity = TLSClientIdentity(
                    certificateChain: [try server.certificate("server.pem")],
                    privateKeyPEM: try server.text("server.key"))
                return TLSTrust([TLSTrust.Host("127.0.0.1", roots: [ca], clientIdentity: identity)])
            }
        }
    }

    /// The error of a call to `path` on `origin` under `trust`: a `GET` (`https`) or a WebSocket (`wss`).
    static func refusal(
        _ path: String, on origin: URL, trust: TLSTrust, webSocket: Bool
    ) async throws -> APIError {
        let configuration = APIConfiguration(
            baseURL: origin, executor: AsyncHTTPClientExecutor(trust: trust, cookies: nil))
        do {
            if webSocket {
                let socket = try await WebSocket<Void>(path).connect(using: configuration)
                await socket.close()
            } else {
                _ = try await GET<Void>(path).request(using: configuration) as String
            }
        } catch {
            return error
        }
        Issue.record("the call to \(origin)\(path) succeeded")
        throw CancellationError()
    }

    @Test(
        "Every TLS refusal, over HTTP and wss, is .secureConnectionFailed with the TLS error, saying where and why",
        arguments: Refusal.allCases, [false, true])
    func refusals(_ refusal: Refusal, webSocket: Bool) async throws {
        let server = try Server()
        let path = (webSocket ? "/ws" : "") + Self.path("refused-\(refusal.rawValue)")
        let origin = try server.url(refusal.origin, scheme: webSocket ? "wss" : "https")
        let trust = try refusal.trust(server)
        let error = try await Self.refusal(path, on: origin, trust: trust, webSocket: webSocket)
        #expect(error.reason == .transport(.secureConnectionFailed), "\(error)")
        let underlying = try #require(error.underlyingError, "\(error)")
        #expect(!(underlying is APIError) && "\(type(of: underlying))".contains("SSL"), "\(underlying)")
        let port = try #require(origin.port)
        let pins: [TLSPin] = refusal == .wrongPin ? [.certificate(try server.certificate("other-ca.pem"))] : []
        let reported = try #require(error.tlsRefusal)
        #expect(reported.host == "127.0.0.1")
        #expect(reported.port == port)
        #expect(reported.cause == refusal.cause, "\(error)")
        #expect(reported.pins == pins)
        let text = "\(error)"
        #expect(text.hasPrefix("GET \(path): the secure connection to 127.0.0.1:\(port) failed: \(refusal.cause)"))
        for build in [".build", "checkouts", ".cc:", "OPENSSL_internal"] {
            #expect(!text.contains(build), "\(text)")
        }
        if refusal == .wrongPin {
            #expect(text.contains("pinned for the host: \(TLSPin.certificate(try server.certificate("other-ca.pem")))"))
        }
        #expect(try await server.count(path) == 0)
    }

    @Test(
        "A pinned certificate that is not a root is refused before any I/O, naming what to pin instead",
        arguments: ["server.pem", "client.pem"], [false, true])
    func nonRootPinRefused(_ name: String, webSocket: Bool) async throws {
        let server = try Server()
        let path = (webSocket ? "/ws" : "") + Self.path("leaf-pin")
        let pin = TLSPin.certificate(try server.certificate(name))
        let trust = TLSTrust([
            TLSTrust.Host("127.0.0.1", roots: [try server.certificate("ca.pem")], pins: [pin])
        ])
        let origin = try server.url("MAIN", scheme: webSocket ? "wss" : "https")
        let error = try await Self.refusal(path, on: origin, trust: trust, webSocket: webSocket)
        #expect(error.reason == .transport(.unsupportedByExecutor), "\(error)")
        #expect(error.endpoint.path == path)
        let text = "\(error.underlyingError.map { "\($0)" } ?? "")"
        #expect(text.contains("127.0.0.1") && text.contains("\(pin)"), "\(text)")
        #expect(text.contains("pin the root certificate authority"), "\(text)")
        #expect(text.contains("TLSPin.publicKey(of:)") == webSocket, "\(text)")
        #expect(try await server.count(path) == 0)
    }

    @Test("A CA bundle in PEM becomes a rule's roots in one call")
    func bundleAsRoots() async throws {
        let server = try Server()
        let other = try server.text("other-ca.pem")
        let bundle = other + (try server.text("ca.pem"))
        let roots = TLSCertificate.certificates(inPEM: bundle)
        #expect(roots.count == 2)
        let trust = TLSTrust([TLSTrust.Host("127.0.0.1", roots: roots)])
        let result = await Self.call(Self.path("bundle"), on: try server.url("MAIN"), trust: trust)
        #expect(try result.get() == "hello")
    }
}
