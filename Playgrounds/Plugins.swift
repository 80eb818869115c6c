// Plugins: middleware around every call. They run in order on the way out and in reverse on the way back;
// set them on the configuration (every call) or on an endpoint (`@GET("/x", plugins: [...])`).
import Courier
import CourierTesting
import Foundation

@MainActor
enum Guarded {
    @GET("/bearer")
    static var bearer: APIParameterBuilder<Void>? = nil

    @GET("/basic-auth/{user}/{password}")
    static var basic: APIParameterBuilder<(user: String, password: String)>? = .init {
        ["user": $0.user, "password": $0.password]
    }

    @GET("/headers")
    static var headers: APIParameterBuilder<Void>? = nil

    @GET("/get")
    static var get: APIParameterBuilder<Void>? = nil

    @GET("/status/503")
    static var unavailable: APIParameterBuilder<Void>? = nil

    @POST("/status/503")
    static var unavailablePost: APIParameterBuilder<Void>? = nil

    // 201 with an empty body: the log below shows the request, not an echo of it.
    @POST("/status/201")
    static var signIn: APIParameterBuilder<(user: String, password: String)>? = .init {
        ["user": $0.user, "password": $0.password]
    }

    // An API that wraps every payload in {"code": 0, "msg": "ok", "data": …}; a stub plays the server.
    // `decoder: .at("data")` decodes the payload; the EnvelopeCode plugin fails the calls whose code says so.
    @GET("/legacy/users/{id}", plugins: [EnvelopeCode()], decoder: .at("data"))
    static var legacyUser: APIParameterBuilder<Int>? = .init { ["id": $0] }
}

struct Authenticated: Decodable, Sendable {
    var authenticated: Bool
    var token: String?
    var user: String?
}

struct LegacyUser: Decodable, Sendable {
    var id: Int
    var name: String
}

/// Counts the attempts that get past the plugins before it (here: the retries).
struct CountAttempts: APIPlugin {
    let tally: Tally
    func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        tally.increment()
        return try await next(request)
    }
}

/// Fails a call whose envelope carries a code other than 0: `{"code": 1001, "msg": "user not found"}`.
struct EnvelopeCode: APIPlugin {
    struct Envelope: Decodable {
        var code: Int
        var msg: String?
    }

    func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        let response = try await next(request)
        if let envelope = try? JSONDecoder().decode(Envelope.self, from: response.data), envelope.code != 0 {
            throw APIError(
                .rejectedByService(code: String(envelope.code), message: envelope.msg),
                endpoint: request.endpoint, request: request, response: response)
        }
        return response
    }
}

/// Where a refreshing plugin reads and stores its token.
actor TokenStore {
    private(set) var token: String?
    private(set) var refreshes = 0

    func refresh() async throws -> String {
        try await Task.sleep(for: .milliseconds(50))  // a sign-in round trip
        refreshes += 1
        token = "secret-token-\(refreshes + 1)"
        return token ?? ""
    }
}

@MainActor
enum PluginsPage {
    /// The default configuration with `plugins`.
    static func with(_ plugins: [any APIPlugin]) -> APIConfiguration {
        var configuration = APIConfiguration.default
        configuration.plugins = plugins
        return configuration
    }

    static func run(_ stage: Stage) async throws {
        Console.step("/bearer without credentials")
        do { try await Guarded.$bearer.request() } catch { Console.caught(error) }

        Console.step("… with `.bearer(token)`: the plugin adds `Authorization: Bearer …` to every request")
        let bearer: Authenticated = try await Guarded.$bearer.request(using: with([.bearer("secret-token-1")]))
        Console.result("authenticated \(bearer.authenticated), token \(bearer.token ?? "-")")

        Console.step("`.basicAuth(username:password:)` against /basic-auth/{user}/{password}")
        let basic: Authenticated = try await Guarded.$basic.request(
            with: (user: "ann", password: "secret-pa55"),
            using: with([.basicAuth(username: "ann", password: "secret-pa55")]))
        Console.result("authenticated \(basic.authenticated), user \(basic.user ?? "-")")
        do {
            try await Guarded.$basic.request(
                with: (user: "ann", password: "secret-pa55"),
                using: with([.basicAuth(username: "ann", password: "secret-wrong")]))
        } catch {
            Console.caught(error)
        }

        Console.step("`.apiKey(key, header:)` and `.apiKey(key, queryItem:)`")
        let header: Echo = try await Guarded.$headers.request(
            using: with([.apiKey("secret-key-9", header: "X-Api-Key")]))
        Console.result("httpbin received X-Api-Key: \(header.header("X-Api-Key") ?? "-")")
        let query: Echo = try await Guarded.$get.request(using: with([.apiKey("secret-key-9", queryItem: "api_key")]))
        Console.result("httpbin received the query \(query.argsText)")

        Console.step("`.retry(policy)` retries idempotent calls on 408/429/5xx and transient transport errors")
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(100), jitter: 0)
        let attempts = Tally()
        do {
            try await Guarded.$unavailable.request(using: with([.retry(policy), CountAttempts(tally: attempts)]))
        } catch {
            Console.caught(error)
        }
        Console.result("GET attempts: \(attempts.count) (waits 100 ms, then 200 ms: doubling backoff)")
        let postAttempts = Tally()
        do {
            try await Guarded.$unavailablePost.request(
                using: with([.retry(policy), CountAttempts(tally: postAttempts)]))
        } catch {
            Console.caught(error)
        }
        Console.result("POST attempts: \(postAttempts.count) (POST is not idempotent, so it is never retried)")
        Console.note("per endpoint: `@POST(\"/search\", tags: [.retryPolicy(RetryPolicy(methods: [.post]))])`")
        Console.note("put .retry first: the plugins after it (auth, logging) then run again for every attempt")

        Console.step("LoggingPlugin: one entry per request and response, secrets redacted in URL, headers, body, cURL")
        let leaks = Tally()
        let logging: LoggingPlugin = .logging(.init(includeBodies: true, includeCURL: true)) { entry in
            if entry.contains("secret-") { leaks.increment() }
            for line in entry.split(separator: "\n") { Console.line("    log│ \(line)") }
        }
        let plugins: [any APIPlugin] = [
            .apiKey("secret-key-9", queryItem: "api_key"), .bearer("secret-token-1"), logging,
        ]
        try await Guarded.$signIn.request(with: (user: "ann", password: "secret-pa55"), using: with(plugins))
        Console.result("log entries that contain a secret: \(leaks.count)")

        try await refreshingAuth()
        try await envelope()
    }

    static func refreshingAuth() async throws {
        Console.step(
            "RefreshingAuthPlugin: 3 calls at once, no token yet; a 401 triggers ONE refresh, shared by all calls")
        let store = TokenStore()
        let auth = RefreshingAuthPlugin<String>(
            credential: { await store.token },
            refresh: { _ in try await store.refresh() },
            apply: { token, request in request.headers[.authorization] = "Bearer \(token)" }
        )
        let configuration = with([auth])
        async let first: Authenticated = Guarded.$bearer.request(using: configuration)
        async let second: Authenticated = Guarded.$bearer.request(using: configuration)
        async let third: Authenticated = Guarded.$bearer.request(using: configuration)
        let results = try await [first, second, third]
        Console.result("refreshes: \(await store.refreshes); authenticated: \(results.map(\.authenticated))")
    }

    static func envelope() async throws {
        Console.step(
            "`decoder: .at(\"data\")` decodes the payload of {\"code\": 0, \"data\": …}; a plugin checks the code")
        let server = StubExecutor().stub(Guarded.$legacyUser) { request in
            request.url.lastPathComponent == "7"
                ? .json(#"{"code": 0, "msg": "ok", "data": {"id": 7, "name": "Ann"}}"#)
                : .json(#"{"code": 1001, "msg": "user not found", "data": null}"#)
        }
        var configuration = with([])
        configuration.executor = LoggingExecutor(wrapping: server, label: "stub")
        let user: LegacyUser = try await Guarded.$legacyUser.request(with: 7, using: configuration)
        Console.result("LegacyUser(id: \(user.id), name: \(user.name))")
        do {
            let _: LegacyUser = try await Guarded.$legacyUser.request(with: 8, using: configuration)
        } catch {
            Console.caught(error)
        }
    }
}
