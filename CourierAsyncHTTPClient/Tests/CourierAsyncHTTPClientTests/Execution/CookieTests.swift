@_spi(CourierInternals) import Courier
import CourierAsyncHTTPClient
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `AsyncHTTPClientExecutor` keeps cookies as `URLSessionExecutor` does: a cookie a response sets (a redirect hop's
/// too) is stored in the executor's `HTTPCookieStorage` and sent, by the storage's domain and path rules, on every
/// later request and hop, in one `Cookie` field with the request's own pairs (which win on a name clash); a redirect
/// to another origin leaves the request's own pairs behind and carries only the cookies whose domain matches it.
@Suite("AsyncHTTPClientExecutor cookies", .servers)
struct CookieTests {
    /// What httpbin's `/anything` echoes.
    struct Echo: Decodable {
        var headers: [String: String]
    }

    static let setCookie = GET<String>("/response-headers") { ["Set-Cookie": $0] }

    @Test("On by default: AsyncHTTPClientExecutor() stores a cookie in HTTPCookieStorage.shared and sends it")
    func onByDefault() async throws {
        // A cookie scoped to a path no other test calls, removed at the end: the shared storage is the process's.
        let name = "courier-default-\(UUID().uuidString.prefix(8))"
        let path = "/anything/\(name)"
        let configuration = APIConfiguration(
            baseURL: try Servers.required().httpbin, executor: AsyncHTTPClientExecutor())
        defer {
            for cookie in HTTPCookieStorage.shared.cookies ?? [] where cookie.name == name {
                HTTPCookieStorage.shared.deleteCookie(cookie)
            }
        }

        _ = try await Self.setCookie.request(with: "\(name)=1; Path=\(path)", using: configuration) as Data
        let echo: Echo = try await GET<Void>(path).request(using: configuration)

        #expect(echo.headers["Cookie"] == "\(name)=1")
    }

    /// The executors under test, each over a cookie storage of its own.
    enum Executor: String, CaseIterable, CustomStringConvertible {
        case asyncHTTPClient
        case urlSession

        func make() -> (any APIExecutor, HTTPCookieStorage) {
            let storage = HTTPCookieStorage.sharedCookieStorage(
                forGroupContainerIdentifier: "courier-ahc-tests-\(UUID().uuidString)")
            storage.cookieAcceptPolicy = .always
            switch self {
            case .asyncHTTPClient:
                return (AsyncHTTPClientExecutor(cookies: storage), storage)
            case .urlSession:
                let configuration = URLSessionConfiguration.default
                configuration.httpCookieStorage = storage
                configuration.httpCookieAcceptPolicy = .always
                return (URLSessionExecutor(configuration: configuration), storage)
            }
        }

        var description: String { rawValue }
    }

    /// What httpbin's `/cookies` echoes.
    struct Cookies: Decodable {
        var cookies: [String: String]
    }

    /// What the fault server's `/headers` echoes.
    struct Headers: Decodable {
        var headers: [String: String]
    }

    @Test("httpbin's /cookies/set stores the cookie (its 302 hop already sends it); /cookies then shows it")
    func setByARedirect() async throws {
        let (executor, storage) = Executor.asyncHTTPClient.make()
        let configuration = APIConfiguration(baseURL: try Servers.required().httpbin, executor: executor)

        let hop: Cookies = try await GET<Void>("/cookies/set?name=value").request(using: configuration)
        let later: Cookies = try await GET<Void>("/cookies").request(using: configuration)

        #expect(hop.cookies == ["name": "value"])
        #expect(later.cookies == ["name": "value"])
        #expect(storage.cookies?.map(\.name) == ["name"])
    }

    @Test("A cookie is stored, then sent by its path: under it, not beside it", arguments: Executor.allCases)
    func storedAndSentByPath(_ executorKind: Executor) async throws {
        let (executor, _) = executorKind.make()
        let configuration = APIConfiguration(baseURL: try Servers.required().httpbin, executor: executor)

        _ = try await Self.setCookie.request(with: "scoped=s1; Path=/anything/in", using: configuration) as Data
        _ = try await Self.setCookie.request(with: "everywhere=e1; Path=/", using: configuration) as Data
        let inside: Echo = try await GET<Void>("/anything/in/x").request(using: configuration)
        let beside: Echo = try await GET<Void>("/anything/out").request(using: configuration)

        #expect(Self.names(inside.headers["Cookie"]) == ["everywhere=e1", "scoped=s1"])
        #expect(Self.names(beside.headers["Cookie"]) == ["everywhere=e1"])
    }

    @Test(
        "A redirect to another host carries none of the jar's cookies; to another port of the same host, its cookies",
        arguments: Executor.allCases)
    func redirectsByDomain(_ executorKind: Executor) async throws {
        // GIVEN a cookie set by httpbin for its host, which is the fault server's host too
        let servers = try Servers.required()
        try #require(servers.httpbin.host == servers.faultServer.host)
        let (executor, _) = executorKind.make()
        let httpbin = APIConfiguration(baseURL: servers.httpbin, executor: executor)
        let fault = APIConfiguration(baseURL: servers.faultServer, executor: executor)
        _ = try await Self.setCookie.request(with: "jar=j1; Path=/", using: httpbin) as Data
        let redirect = GET<String>("/redirect") { ["to": $0] }

        // WHEN the fault server redirects to itself, to its other host, and to its other port
        let same: Headers = try await redirect.request(
            with: servers.faultServer.appendingPathComponent("headers").absoluteString, using: fault)
        let otherHost: Headers = try await redirect.request(
            with: servers.faultServerOtherHost.appendingPathComponent("headers").absoluteString, using: fault)
        let otherPort: Headers = try await redirect.request(
            with: servers.faultServerOtherPort.appendingPathComponent("headers").absoluteString, using: fault)

        // THEN the cookie goes where its domain matches (cookies ignore ports, RFC 6265 §8.5), and nowhere else
        #expect(Self.cookie(in: same) == "jar=j1")
        #expect(Self.cookie(in: otherHost) == nil)
        #expect(Self.cookie(in: otherPort) == "jar=j1")
    }

    @Test(
        "A request's own Cookie field is merged with the jar's (its value wins), and left behind on another origin",
        arguments: Executor.allCases)
    func ownCookieField(_ executorKind: Executor) async throws {
        // GIVEN two cookies in the jar for the servers' host
        let servers = try Servers.required()
        try #require(servers.httpbin.host == servers.faultServer.host)
        let (executor, _) = executorKind.make()
        let httpbin = APIConfiguration(baseURL: servers.httpbin, executor: executor)
        let fault = APIConfiguration(baseURL: servers.faultServer, executor: executor)
        _ = try await Self.setCookie.request(with: "jar=j1; Path=/", using: httpbin) as Data
        _ = try await Self.setCookie.request(with: "shared=from-jar; Path=/", using: httpbin) as Data
        let own: Courier.HTTPHeaders = ["Cookie": "own=o1; shared=mine"]
        let redirect = GET<String>("/redirect", headers: own) { ["to": $0] }
        func hop(to server: URL) async throws -> Headers {
            try await redirect.request(with: server.appendingPathComponent("headers").absoluteString, using: fault)
        }

        // WHEN a request with a Cookie field of its own, one name the jar holds too, goes to the fault server, and
        // is redirected to the same origin, another port and another host
        let direct: Headers = try await GET<Void>("/headers", headers: own).request(using: fault)
        let same = try await hop(to: servers.faultServer)
        let otherPort = try await hop(to: servers.faultServerOtherPort)
        let otherHost = try await hop(to: servers.faultServerOtherHost)

        // THEN one field carries the request's pairs first, then the jar's that it does not name, on the same origin;
        // another port gets the jar's cookies only, another host none
        #expect(Self.cookie(in: direct) == "own=o1; shared=mine; jar=j1")
        #expect(Self.cookie(in: same) == "own=o1; shared=mine; jar=j1")
        #expect(Self.names(Self.cookie(in: otherPort)) == ["jar=j1", "shared=from-jar"])
        #expect(Self.cookie(in: otherHost) == nil)
    }

    @Test("With cookies: nil nothing is stored or sent")
    func noJar() async throws {
        let configuration = APIConfiguration(
            baseURL: try Servers.required().httpbin, executor: AsyncHTTPClientExecutor(cookies: nil))

        let hop: Cookies = try await GET<Void>("/cookies/set?none=n1").request(using: configuration)
        let later: Cookies = try await GET<Void>("/cookies").request(using: configuration)

        #expect(hop.cookies.isEmpty)
        #expect(later.cookies.isEmpty)
    }

    /// The `Cookie` field the fault server received, whatever the spelling of its name.
    static func cookie(in echo: Headers) -> String? {
        echo.headers.first { $0.key.lowercased() == "cookie" }?.value
    }

    /// The `name=value` pairs of a `Cookie` field, sorted.
    static func names(_ field: String?) -> [String] {
        (field ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .sorted()
    }
}

/// The jar's rules on top of the storage's domain match, without a server.
@Suite("CookieJar rules")
struct CookieJarRuleTests {
    static func jar(_ cookies: [HTTPCookiePropertyKey: Any]...) -> CookieJar {
        let storage = HTTPCookieStorage.sharedCookieStorage(
            forGroupContainerIdentifier: "courier-ahc-tests-\(UUID().uuidString)")
        storage.cookieAcceptPolicy = .always
        for properties in cookies {
            if let cookie = HTTPCookie(properties: properties) { storage.setCookie(cookie) }
        }
        return CookieJar(storage)
    }

    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test("A Secure cookie goes over https only; an expired one never; a path matches itself and below, not beside")
    func rules() throws {
        let jar = Self.jar(
            [.name: "secure", .value: "s", .domain: "example.com", .path: "/", .secure: "TRUE"],
            [.name: "old", .value: "o", .domain: "example.com", .path: "/", .expires: Date(timeIntervalSinceNow: -60)],
            [.name: "api", .value: "a", .domain: "example.com", .path: "/api"])

        #expect(jar.cookieField(for: try Self.url("https://example.com/")) == "secure=s")
        #expect(jar.cookieField(for: try Self.url("http://example.com/")) == nil)
        #expect(jar.cookieField(for: try Self.url("http://example.com/api")) == "api=a")
        #expect(jar.cookieField(for: try Self.url("http://example.com/api/v2")) == "api=a")
        #expect(jar.cookieField(for: try Self.url("http://example.com/apis")) == nil)
        #expect(jar.cookieField(for: try Self.url("http://other.example.org/api")) == nil)
    }
}
