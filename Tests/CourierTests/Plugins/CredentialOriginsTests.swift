import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the auth plugins add their credentials: the origins the configuration names, unless told otherwise.
@Suite struct CredentialOriginsTests {
    /// The configuration of every case: a base URL and one named host.
    static let configuration = APIConfiguration(
        baseURL: URL(string: "https://api.example.com/v2"),
        hosts: URL(string: "https://uploads.example.com:8443/files").map { ["uploads": $0] } ?? [:])

    /// A request target of the table: an endpoint, and whether the configuration's credential reaches it.
    struct Target: Sendable, CustomTestStringConvertible {
        let name: String
        let endpoint: GET<Void>
        let receives: Bool

        var testDescription: String { name }
    }

    static let targets: [Target] = [
        Target(name: "a path on the base URL", endpoint: GET<Void>("/me"), receives: true),
        Target(name: "a named host", endpoint: GET<Void>("/f", host: "uploads"), receives: true),
        Target(
            name: "an absolute URL on the base origin", endpoint: GET<Void>("https://API.example.com:443/x"),
            receives: true),
        Target(
            name: "an absolute URL of another host", endpoint: GET<Void>("https://cdn.example.net/x"), receives: false),
        Target(
            name: "another scheme of the base host", endpoint: GET<Void>("http://api.example.com/x"), receives: false),
        Target(
            name: "another port of the base host", endpoint: GET<Void>("https://api.example.com:444/x"), receives: false
        ),
        Target(
            name: "the named host's host on its default port", endpoint: GET<Void>("https://uploads.example.com/x"),
            receives: false),
        Target(
            name: "a wss URL on the base origin", endpoint: GET<Void>("wss://api.example.com/socket"), receives: true),
    ]

    /// The plugins of the table, each with how to read its credential from a request that reached the executor.
    enum Plugin: String, CaseIterable, Sendable {
        case bearer, apiKeyHeader, apiKeyQuery, refreshing

        /// The plugin, sending its credential to `origins` when given.
        func make(_ origins: CredentialOrigins? = nil) -> any APIPlugin {
            let plugin: AuthPlugin
            switch self {
            case .bearer: plugin = .bearer("t0k")
            case .apiKeyHeader: plugin = .apiKey("k1", header: "X-API-Key")
            case .apiKeyQuery: plugin = .apiKey("k1", queryItem: "api_key")
            case .refreshing: return origins.map { Self.refreshing().sent(to: $0) } ?? Self.refreshing()
            }
            return origins.map { plugin.sent(to: $0) } ?? plugin
        }

        static func refreshing() -> RefreshingAuthPlugin<String> {
            RefreshingAuthPlugin<String>(
                credential: { "t0k" }, refresh: { _ in "t1k" },
                apply: { token, request in request.headers[.authorization] = "Bearer \(token)" })
        }

        func credential(of request: APIRequest) -> String? {
            switch self {
            case .bearer, .refreshing: request.headers[.authorization]
            case .apiKeyHeader: request.headers["X-API-Key"]
            case .apiKeyQuery: request.queryItems.first { $0.name == "api_key" }?.value
            }
        }
    }

    /// The request `endpoint` sends through `configuration` with `plugins` on a stub answering 200.
    func sent(_ endpoint: GET<Void>, plugins: [any APIPlugin]) async throws -> APIRequest {
        let stub = StubExecutor().stubEverything(with: .status(200))
        let configuration = Self.configuration.with {
            $0.executor = stub
            $0.plugins = plugins
        }
        try await endpoint.request(using: configuration)
        return try #require(stub.requests.first)
    }

    @Test(
        "A configuration's plugin adds its credential for the configuration's origins only",
        arguments: Plugin.allCases, targets)
    func configurationPlugin(_ plugin: Plugin, _ target: Target) async throws {
        let request = try await sent(target.endpoint, plugins: [plugin.make()])

        #expect((plugin.credential(of: request) != nil) == target.receives, "\(request.url)")
    }

    @Test("sent(to: .configuredOrigins(and:)) adds the origins named", arguments: Plugin.allCases)
    func namedOrigins(_ plugin: Plugin) async throws {
        let cdnURL = try #require(URL(string: "https://cdn.example.net/anything"))
        let scoped = plugin.make(.configuredOrigins(and: [cdnURL]))

        let cdn = try await sent(GET<Void>("https://cdn.example.net/x"), plugins: [scoped])
        let other = try await sent(GET<Void>("https://other.example.net/x"), plugins: [scoped])
        let base = try await sent(GET<Void>("/me"), plugins: [scoped])

        #expect(plugin.credential(of: cdn) != nil)
        #expect(plugin.credential(of: other) == nil)
        #expect(plugin.credential(of: base) != nil)
    }

    @Test("sent(to: .everyOrigin) adds the credential wherever the call goes", arguments: Plugin.allCases)
    func everyOrigin(_ plugin: Plugin) async throws {
        let request = try await sent(
            GET<Void>("https://cdn.example.net/x"), plugins: [plugin.make(.everyOrigin)])

        #expect(plugin.credential(of: request) != nil)
    }

    @Test("A plugin declared on an endpoint of another origin adds its credential there", arguments: Plugin.allCases)
    func endpointPlugin(_ plugin: Plugin) async throws {
        // GIVEN an endpoint of another origin that declares the plugin itself
        let endpoint = GET<Void>("https://cdn.example.net/x", plugins: [plugin.make()])

        // WHEN it is called through a configuration without plugins, and through one with a bearer of its own
        let alone = try await sent(endpoint, plugins: [])
        let inside = try await sent(endpoint, plugins: [AuthPlugin.bearer("configuration-token")])

        // THEN the endpoint's credential is there both times, and the configuration's bearer is not
        #expect(plugin.credential(of: alone) != nil)
        #expect(plugin.credential(of: inside) != nil)
        if plugin != .bearer, plugin != .refreshing {
            #expect(inside.headers[.authorization] == nil)
        }
    }

    @Test("A refreshing plugin neither adds its credential nor refreshes for another origin's 401")
    func noRefreshForAnotherOrigin() async throws {
        // GIVEN a refreshing plugin and a server of another origin that answers 401
        let refreshes = LockedBox(0)
        let plugin = RefreshingAuthPlugin<String>(
            credential: { "t0k" },
            refresh: { _ in
                refreshes.withLock { $0 += 1 }; return "t1k"
            },
            apply: { token, request in request.headers[.authorization] = "Bearer \(token)" })
        let stub = StubExecutor().stubEverything(with: .status(401))
        let configuration = Self.configuration.with {
            $0.executor = stub
            $0.plugins = [plugin]
        }

        // WHEN the call is made
        let response: APIResponse = try await GET<Void>("https://cdn.example.net/x", acceptableStatusCodes: .any)
            .request(using: configuration)

        // THEN the 401 is the response, sent once, without a credential, and nothing was refreshed
        #expect(response.statusCode == 401)
        #expect(stub.requests.count == 1)
        #expect(stub.requests.first?.headers[.authorization] == nil)
        #expect(refreshes.value == 0)
    }

    @Test("A configuration without a base URL or hosts sends its plugins' credentials nowhere")
    func noOrigins() async throws {
        let stub = StubExecutor().stubEverything(with: .status(200))
        let configuration = APIConfiguration(executor: stub, plugins: [.bearer("t0k")])

        try await GET<Void>("https://api.example.com/me").request(using: configuration)

        #expect(stub.requests.count == 1)
        #expect(stub.requests.first?.headers[.authorization] == nil)
    }
}
