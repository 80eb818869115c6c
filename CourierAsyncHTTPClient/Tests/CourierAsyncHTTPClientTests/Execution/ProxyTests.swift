import AsyncHTTPClient
import Courier
import CourierObservability
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CourierAsyncHTTPClient

/// `AsyncHTTPClientExecutor(proxy:)` against squid with Basic auth, which `scripts/test-ahc` starts
/// (`courier_proxy_start`): it tunnels to httpbin and the TLS server's main origin only, and it alone resolves
/// `proxied.courier.test` (to 127.0.0.1), so a call to that name that succeeds went through it.
@Suite(
    "AsyncHTTPClientExecutor: through an HTTP proxy (squid)",
    .testEnvironment(
        "COURIER_PROXY_URL", "COURIER_PROXY_PASSWORD", "COURIER_HTTPBIN_URL", "COURIER_TLS_DIR",
        "COURIER_TLS_MAIN_PORT", "COURIER_TLS_OTHER_PORT", setBy: "scripts/test-ahc"))
struct ProxyTests {
    /// The proxy and the origins behind it.
    struct Setup {
        let proxy: HTTPProxy.Server
        let password: String
        let httpbinPort: Int
        let tlsPort: Int
        let otherTLSPort: Int
        let trust: TLSTrust

        init() throws {
            let environment = ProcessInfo.processInfo.environment
            let proxyURL = try #require(environment["COURIER_PROXY_URL"])
            password = try #require(environment["COURIER_PROXY_PASSWORD"])
            var proxy = try #require(HTTPProxy.Server(url: proxyURL))
            proxy.username = environment["COURIER_PROXY_USER"] ?? "courier"
            proxy.password = password
            self.proxy = proxy
            httpbinPort = try #require(environment["COURIER_HTTPBIN_URL"].flatMap(URL.init(string:))?.port)
            tlsPort = try #require(environment["COURIER_TLS_MAIN_PORT"].flatMap { Int($0) })
            otherTLSPort = try #require(environment["COURIER_TLS_OTHER_PORT"].flatMap { Int($0) })
            let folder = URL(fileURLWithPath: try #require(environment["COURIER_TLS_DIR"]))
            let pem = try String(contentsOf: folder.appendingPathComponent("ca.pem"), encoding: .utf8)
            let ca = try #require(TLSCertificate(pem: pem))
            trust = TLSTrust([
                TLSTrust.Host("proxied.courier.test", roots: [ca]), TLSTrust.Host("127.0.0.1", roots: [ca]),
            ])
        }

        /// The proxy with credentials it refuses. Another user name than the right one's: squid keeps the outcome
        /// of a user's credentials for a while, so a wrong password for the same user, tried alongside, could make
        /// it refuse the right one.
        var wrongPassword: HTTPProxy.Server {
            var server = proxy
            server.username = "intruder"
            server.password = "not-the-password"
            return server
        }

        /// An executor whose calls go through `proxy`, and its configuration for `base`.
        func configuration(
            _ base: String, proxy: HTTPProxy, observers: [any CallObserver] = [], plugins: [any APIPlugin] = []
        ) throws -> (APIConfiguration, AsyncHTTPClientExecutor) {
            let executor = AsyncHTTPClientExecutor(trust: trust, cookies: nil, proxy: proxy)
            let configuration = APIConfiguration(
                baseURL: URL(string: base), executor: executor, plugins: plugins, observers: observers)
            return (configuration, executor)
        }
    }

    struct Echo: Decodable {
        let url: String
    }

    @Test("http: a name only the proxy resolves answers, through the proxy")
    func http() async throws {
        let setup = try Setup()
        let (configuration, executor) = try setup.configuration(
            "http://proxied.courier.test:\(setup.httpbinPort)", proxy: HTTPProxy(setup.proxy))
        defer { Task { try? await executor.shutdown() } }

        let echo: Echo = try await GET<Void>("/get").request(using: configuration)

        #expect(echo.url.hasSuffix("/get"))
    }

    @Test("https: a CONNECT tunnel, TLS verified end to end with the executor's trust")
    func https() async throws {
        let setup = try Setup()
        let (configuration, executor) = try setup.configuration(
            "https://proxied.courier.test:\(setup.tlsPort)", proxy: HTTPProxy(setup.proxy))
        defer { Task { try? await executor.shutdown() } }

        let text: String = try await GET<Void>("/hello-through-proxy").request(using: configuration)

        #expect(text == "hello")
    }

    @Test("A wrong password: .proxyAuthenticationRequired, naming the endpoint; nothing reaches the server")
    func wrongPassword() async throws {
        let setup = try Setup()
        let path = "/wrong-password-\(UUID().uuidString)"
        let (configuration, executor) = try setup.configuration(
            "https://proxied.courier.test:\(setup.tlsPort)", proxy: HTTPProxy(setup.wrongPassword))
        defer { Task { try? await executor.shutdown() } }

        let error = await #expect(throws: APIError.self) {
            let _: String = try await GET<Void>(path).request(using: configuration)
        }

        #expect(error?.reason == .transport(.proxyAuthenticationRequired))
        #expect(error?.endpoint.description == "GET \(path)")
        #expect(try await TLSTrustTests.Server().count(path) == 0)
    }

    @Test("A tunnel the proxy refuses (a port it does not allow): .cannotConnect")
    func refusedTunnel() async throws {
        let setup = try Setup()
        let (configuration, executor) = try setup.configuration(
            "https://proxied.courier.test:\(setup.otherTLSPort)", proxy: HTTPProxy(setup.proxy))
        defer { Task { try? await executor.shutdown() } }

        let error = await #expect(throws: APIError.self) {
            let _: String = try await GET<Void>("/refused").request(using: configuration)
        }

        #expect(error?.reason == .transport(.cannotConnect))
    }

    @Test("A bypassed host goes directly: it answers although the proxy's password is wrong")
    func bypass() async throws {
        let setup = try Setup()
        let proxy = HTTPProxy(setup.wrongPassword, bypass: ["127.0.0.1"])
        let (direct, executor) = try setup.configuration("http://127.0.0.1:\(setup.httpbinPort)", proxy: proxy)
        defer { Task { try? await executor.shutdown() } }
        let proxied = direct.with { $0.baseURL = URL(string: "http://proxied.courier.test:\(setup.httpbinPort)") }

        let echo: Echo = try await GET<Void>("/get").request(using: direct)
        let error = await #expect(throws: APIError.self) {
            let _: Echo = try await GET<Void>("/get").request(using: proxied)
        }

        #expect(echo.url.hasSuffix("/get"))
        #expect(error?.reason == .transport(.proxyAuthenticationRequired))
    }

    @Test("wss: a CONNECT tunnel, then TLS and the upgrade; messages echo")
    func webSocket() async throws {
        let setup = try Setup()
        let (configuration, executor) = try setup.configuration(
            "wss://proxied.courier.test:\(setup.tlsPort)", proxy: HTTPProxy(setup.proxy))
        defer { Task { try? await executor.shutdown() } }

        let socket = try await WebSocket<Void>("/ws-through-proxy").connect(using: configuration)
        try await socket.send(.text("through the tunnel"))
        var received: WebSocketMessage?
        for try await message in socket {
            received = message
            break
        }
        await socket.close()

        #expect(received == .text("through the tunnel"))
    }

    @Test("A proxy in the HTTPClient.Configuration carries no WebSocket: the handshake fails before any I/O")
    func webSocketBesideClientProxy() async throws {
        let setup = try Setup()
        var settings = HTTPClient.Configuration()
        settings.proxy = .server(host: setup.proxy.host, port: setup.proxy.port)
        let executor = AsyncHTTPClientExecutor(configuration: settings, trust: setup.trust, cookies: nil)
        defer { Task { try? await executor.shutdown() } }
        let configuration = APIConfiguration(
            baseURL: URL(string: "wss://127.0.0.1:\(setup.tlsPort)"), executor: executor)
        let path = "/ws-beside-client-proxy-\(UUID().uuidString)"

        let error = await #expect(throws: APIError.self) {
            _ = try await WebSocket<Void>(path).connect(using: configuration)
        }

        #expect(error?.reason == .transport(.unsupportedByExecutor))
        #expect(error?.underlyingError is WebSocketBesideClientProxy)
        #expect(try await TLSTrustTests.Server().count(path) == 0)
    }

    @Test("wss with a wrong password: .proxyAuthenticationRequired; the upgrade never reaches the server")
    func webSocketWrongPassword() async throws {
        let setup = try Setup()
        let (configuration, executor) = try setup.configuration(
            "wss://proxied.courier.test:\(setup.tlsPort)", proxy: HTTPProxy(setup.wrongPassword))
        defer { Task { try? await executor.shutdown() } }
        let path = "/ws-wrong-password-\(UUID().uuidString)"

        let error = await #expect(throws: APIError.self) {
            _ = try await WebSocket<Void>(path).connect(using: configuration)
        }

        #expect(error?.reason == .transport(.proxyAuthenticationRequired))
        #expect(error?.endpoint.description == "GET \(path)")
        #expect(try await TLSTrustTests.Server().count(path) == 0)
    }

    @Test("wss to a port the proxy refuses: .cannotConnect")
    func webSocketRefusedTunnel() async throws {
        let setup = try Setup()
        let (configuration, executor) = try setup.configuration(
            "wss://proxied.courier.test:\(setup.otherTLSPort)", proxy: HTTPProxy(setup.proxy))
        defer { Task { try? await executor.shutdown() } }

        let error = await #expect(throws: APIError.self) {
            _ = try await WebSocket<Void>("/ws-refused").connect(using: configuration)
        }

        #expect(error?.reason == .transport(.cannotConnect))
    }

    @Test("The proxy's password is on no surface: errors, descriptions, log lines, timeline, HAR")
    func noSecret() async throws {
        let setup = try Setup()
        let lines = NIOLockedValueBox<[String]>([])
        let har = HARRecorder()
        for server in [setup.proxy, setup.wrongPassword] {
            let proxy = HTTPProxy(server)
            let (configuration, executor) = try setup.configuration(
                "https://proxied.courier.test:\(setup.tlsPort)", proxy: proxy, observers: [har],
                plugins: [
                    .logging(.init(includeHeaders: true, includeCURL: true)) { line in
                        lines.withLockedValue { $0.append(line) }
                    }
                ])
            defer { Task { try? await executor.shutdown() } }
            var dumped = ""
            dump(executor, to: &dumped)
            var texts = [proxy.description, String(reflecting: proxy), String(reflecting: executor), dumped]
            do {
                let response: DecodedResponse<String> = try await GET<Void>("/secret-scan").request(
                    using: configuration)
                texts.append(String(reflecting: response.response))
            } catch {
                texts += ["\(error)", String(reflecting: error)]
            }
            let logged = lines.withLockedValue { $0 }
            for text in texts + logged + [String(decoding: try har.har(), as: UTF8.self)] {
                #expect(!text.contains(setup.password), "\(text)")
                #expect(!text.contains("not-the-password"), "\(text)")
            }
        }
        #expect(lines.withLockedValue { $0 }.count >= 2)
    }
}
