// Every ```swift block of README.md, copied here so that the compiler checks it. ReadmeTests fails when a
// README block is no longer found here (its lines, in order), so the two cannot drift apart. The functions
// are compiled, never run: they would talk to real servers.
import Courier
import CourierTesting
import Foundation
import Testing

struct User: Codable, Sendable {
    let login: String
}

struct NewIssue: Codable, Sendable {
    let owner: String
    let repo: String
    let title: String
}

struct Product: Codable, Sendable {
    let id: Int
    let name: String
}

struct ServerError: Decodable, Sendable {
    let message: String
}

actor Session {
    static let shared = Session()
    var accessToken: String? = nil
}

// MARK: - The ten-line example

@MainActor enum GitHub {
    @GET("/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }

    @POST("/repos/{owner}/{repo}/issues")
    static var createIssue: APIParameterBuilder<NewIssue>? = .init { $0 }  // Encodable model → JSON body
}

func readmeExample() async throws {
    APIConfiguration.default = APIConfiguration(baseURL: URL(string: "https://api.github.com"))
    let user: User = try await GitHub.$user.request(with: "octocat")
    _ = user
}

// MARK: - Parameters

@MainActor enum Shop {
    @GET("/products/{id}")
    static var product: APIParameterBuilder<Int>? = .init { ["id": $0] }

    @GET("/products", headerBuilder: { ["X-Trace-Id": $0.traceID] })
    static var search: APIParameterBuilder<(query: String, tags: [String], traceID: String)>? = .init {
        ["q": $0.query, "tag": $0.tags, "in_stock": true]  // ?q=…&tag=a&tag=b&in_stock=true
    }

    @POST("/session", encoding: .form, tags: [.retryPolicy(.never)])
    static var signIn: APIParameterBuilder<(user: String, password: String)>? = .init {
        ["user": $0.user, "password": $0.password]
    }

    @GET("/health")
    static var health: APIParameterBuilder<Void>? = nil
}

// MARK: - Calls

func readmeCalls() async throws {
    let product: Product = try await Shop.$product.request(with: 42)  // JSON, decoded
    let raw: Data = try await Shop.$product.request(with: 42)  // the bytes
    let text: String = try await Shop.$health.request()  // charset from Content-Type
    let maybe: Product? = try await Shop.$product.request(with: 42)  // nil for an empty body (204, HEAD)
    let response: APIResponse = try await Shop.$health.request()  // status, headers, body, request
    try await Shop.$signIn.request(with: (user: "ann", password: "secret"))  // only success matters
    let request = try await Shop.$product.makeRequest(with: 42)  // built, not sent
    let again: Product = try await request.send()  // a request you have, same pipeline
    let page: DecodedResponse<Product> = try await Shop.$product.request(with: 42)  // value + status + headers
    let fresh: Product = try await Shop.$product.with(headers: ["If-None-Match": "v1"]).request(with: 42)
    let inner: Product = try await Shop.$product.request(with: 42, decoder: .at("data"))  // inside {"data": …}
    _ = (product, raw, text, maybe, response, request, again, page, fresh, inner)
}

// MARK: - Errors

func readmeErrors() async {
    do {
        let product: Product = try await Shop.$product.request(with: 42)
        print(product.name)
    } catch {  // typed throws: `error` is an APIError
        switch error.reason {
        case .unacceptableStatus(.notFound): print("no such product")
        case .unacceptableStatus(.unauthorized): print("sign in first")
        case .transport(.offline), .transport(.cannotConnect): print("offline")
        case .transport(.cancelled): break
        default: print(error.decodeBody(as: ServerError.self)?.message ?? error.description)
        }
    }
}

// MARK: - Configuration, plugins and limits

func readmeConfiguration() async throws {
    var configuration = APIConfiguration(baseURL: URL(string: "https://shop.example.com/api/v2"))
    configuration.headers = ["Accept": "application/json"]
    configuration.plugins = [
        .retry(),
        .bearer { await Session.shared.accessToken },
        .logging(LoggingPlugin.Options(includeCURL: true)),
    ]
    configuration.timeout = .seconds(10)  // connect, send, wait and receive, all together
    configuration.maxResponseBytes = 5 * 1024 * 1024  // default 100 MiB; over it: .transport(.responseTooLarge)
    configuration.redirectPolicy = .custom { hop in  // .follow (default), .doNotFollow, or decide per hop
        hop.to.host == "cdn.example.com" ? .follow : .refuse
    }
    configuration.sensitiveNames = ["X-Session"]  // redacted in logs and errors, removed on cross-origin redirects
    APIConfiguration.default = configuration

    let staging = configuration.with { $0.baseURL = URL(string: "https://staging.example.com") }
    try await APIConfiguration.withCurrent(staging) {
        let product: Product = try await Shop.$product.request(with: 42)
        print(product.name)
    }
}

// MARK: - Testing

func readmeTesting() async throws {
    let stub = await StubExecutor()
        .stub(Shop.$product, with: .json(#"{"id": 42, "name": "Lamp"}"#))
        .stub(Shop.$health, with: .status(503))

    try await stub.activate {
        let product: Product = try await Shop.$product.request(with: 42)
        #expect(product.name == "Lamp")
    }
    #expect(stub.requests.map(\.url.path) == ["/products/42"])
}

/// The cassette snippet proposed for the README's Testing paragraph (compiled here, not run: it records once).
func readmeCassette() async throws {
    let shop = APIConfiguration(baseURL: URL(string: "https://shop.example.com"))  // what it records against
    let cassette = Cassette(URL(fileURLWithPath: "Tests/Cassettes/products.har"))  // records once, then replays
    try await cassette.activate(in: shop) {
        let product: Product = try await Shop.$product.request(with: 42)
        #expect(product.name == "Lamp")
    }
}

// MARK: Caching

@MainActor enum Catalog {
    @GET("/products/{id}", tags: [.cache(.cacheElseNetwork(seconds: 300))])  // memory + disk, 5 minutes
    static var product: APIParameterBuilder<Int>? = .init { ["id": $0] }
}

func show(_ update: CacheThenNetworkUpdate<Product>) {}

@MainActor func readmeCaching() async throws {
    APIConfiguration.default.cache = ResponseCache(diskCapacity: 100 * 1024 * 1024)
    let product: Product = try await Catalog.$product.request(with: 42)  // a second call sends nothing
    for try await update in Catalog.$product.cacheThenNetwork(with: 42) as CacheThenNetworkSequence<Product> {
        show(update)  // .cached(product, age:), then .network(product) or .networkFailed(error)
    }
    _ = product
}
