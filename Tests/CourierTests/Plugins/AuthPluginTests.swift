import Courier
import CourierTesting
import Foundation
import Testing

@Suite struct AuthPluginTests {
    static let me = GET<Void>(wrappedValue: .init { ["fields": "all"] }, "/me")

    func send(with plugin: any APIPlugin) async throws -> APIRequest {
        let stub = StubExecutor().stubEverything(with: .status(200))
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [plugin]
        try await Self.me.request(using: configuration)
        return try #require(stub.requests.first)
    }

    @Test func bearerToken() async throws {
        let request = try await send(with: .bearer("t0k"))
        #expect(request.headers[.authorization] == "Bearer t0k")
    }

    @Test func bearerTokenReadForEveryRequest() async throws {
        let request = try await send(with: .bearer { "fresh" })
        #expect(request.headers[.authorization] == "Bearer fresh")
        let none = try await send(with: .bearer { nil })
        #expect(none.headers[.authorization] == nil)
    }

    @Test func basicAuth() async throws {
        let request = try await send(with: .basicAuth(username: "user", password: "p:ss"))
        #expect(request.headers[.authorization] == "Basic " + Data("user:p:ss".utf8).base64EncodedString())
    }

    @Test func apiKeyInAHeader() async throws {
        let request = try await send(with: .apiKey("k1", header: "X-API-Key"))
        #expect(request.headers["x-api-key"] == "k1")
    }

    @Test func apiKeyInTheQueryIsAppendedAndEscaped() async throws {
        let request = try await send(with: .apiKey("a b&c", queryItem: "api_key"))
        #expect(request.url.absoluteString == "https://api.example.com/v2/me?fields=all&api_key=a%20b%26c")
    }

    @Test func aTokenWithCRLFIsRejectedBeforeSending() async throws {
        let stub = StubExecutor().stubEverything(with: .status(200))
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [.bearer("x\r\nInjected: 1")]
        let error = try await #require(throws: APIError.self) { try await Self.me.request(using: configuration) }
        #expect(error.reason == .invalidRequest(.invalidHeader(name: "Authorization")))
        #expect(stub.requests.isEmpty)
    }
}

@Suite struct RefreshingAuthPluginTests {
    static let me = GET<Int>(wrappedValue: .init { ["n": $0] }, "/me")

    /// A server that accepts only the newest token, and a token store that counts refreshes.
    final class Server: Sendable {
        let valid = LockedBox("token-0")
        let refreshes = LockedBox(0)
        let answered = LockedBox<[Int]>([])

        func executor() -> StubExecutor {
            StubExecutor().stub(where: { _ in true }) { request in
                try await Task.sleep(for: .milliseconds(2))
                guard request.headers[.authorization] == "Bearer \(self.valid.value)" else {
                    return StubResponse(statusCode: 401)
                }
                let n = request.queryItems.first?.value.flatMap(Int.init) ?? -1
                self.answered.withLock { $0.append(n) }
                return StubResponse(statusCode: 200, body: Data("\(n)".utf8))
            }
        }
    }

    final class TokenStore: Sendable {
        let token = LockedBox("expired")
    }

    func plugin(
        store: TokenStore,
        server: Server,
        refresh: @escaping @Sendable (String?) async throws -> String
    ) -> RefreshingAuthPlugin<String> {
        RefreshingAuthPlugin<String>(
            credential: { store.token.value },
            refresh: refresh,
            apply: { token, request in request.headers[.authorization] = "Bearer \(token)" }
        )
    }

    @Test func twoHundredConcurrentFailuresShareExactlyOneRefresh() async throws {
        // GIVEN a server that rejects the stored token until one refresh completes
        let server = Server()
        let store = TokenStore()
        let auth = plugin(store: store, server: server) { _ in
            server.refreshes.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(50))
            store.token.withLock { $0 = "token-1" }
            server.valid.withLock { $0 = "token-1" }
            return "token-1"
        }
        var configuration = testConfiguration.with { $0.executor = server.executor() }
        configuration.plugins = [auth]
        let shared = configuration
        // WHEN 200 calls start at once
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<200 {
                group.addTask { Int(try await Self.me.request(with: n, using: shared) as String) ?? -1 }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        // THEN exactly one refresh ran and every call got its own answer exactly once
        #expect(server.refreshes.value == 1)
        #expect(results.sorted() == Array(0..<200))
        #expect(server.answered.value.sorted() == Array(0..<200))
    }

    @Test func aFailedRefreshFailsEveryWaitingCall() async throws {
        struct RefreshDenied: Error {}
        let server = Server()
        server.valid.withLock { $0 = "unreachable" }
        let store = TokenStore()
        let auth = plugin(store: store, server: server) { _ in
            server.refreshes.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(50))
            throw RefreshDenied()
        }
        var configuration = testConfiguration.with { $0.executor = server.executor() }
        configuration.plugins = [auth]
        let shared = configuration
        let errors = await withTaskGroup(of: APIError?.self) { group in
            for n in 0..<20 {
                group.addTask {
                    do {
                        try await Self.me.request(with: n, using: shared)
                        return nil
                    } catch { return error as? APIError }
                }
            }
            return await group.reduce(into: [APIError?]()) { $0.append($1) }
        }
        #expect(errors.count == 20)
        #expect(errors.allSatisfy { $0?.underlyingError is RefreshDenied })
        #expect(server.refreshes.value >= 1)
        #expect(server.refreshes.value <= 20)
    }

    @Test func aCredentialThatKeepsFailingDoesNotLoop() async throws {
        let server = Server()
        server.valid.withLock { $0 = "never" }
        let store = TokenStore()
        let auth = plugin(store: store, server: server) { _ in
            server.refreshes.withLock { $0 += 1 }
            return "still-wrong"
        }
        let stub = server.executor()
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [auth]
        let error = try await #require(throws: APIError.self) {
            try await Self.me.request(with: 1, using: configuration)
        }
        #expect(error.reason == .unacceptableStatus(.unauthorized))
        #expect(server.refreshes.value == 1)
        #expect(stub.requests.count == 2)
        #expect(stub.requests.map { $0.headers[.authorization] } == ["Bearer expired", "Bearer still-wrong"])
    }

    @Test func aCustomAuthFailureRule() async throws {
        let refreshed = LockedBox(false)
        let auth = RefreshingAuthPlugin<String>(
            credential: { refreshed.value ? "new" : "old" },
            refresh: { _ in
                refreshed.withLock { $0 = true }
                return "new"
            },
            apply: { token, request in request.headers["X-Token"] = token },
            isAuthFailure: { $0.statusCode == 419 }
        )
        let stub = StubExecutor().stub(where: { _ in true }) { request in
            StubResponse(statusCode: request.headers["X-Token"] == "new" ? 200 : 419)
        }
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [auth]
        try await Self.me.request(with: 1, using: configuration)
        #expect(stub.requests.map { $0.headers["X-Token"] } == ["old", "new"])
        try await Self.me.request(with: 2, using: configuration)
        #expect(stub.requests.count == 3)
    }

    @Test func aRefreshMayCallThroughTheSameConfiguration() async throws {
        // GIVEN a refresh that calls a token endpoint through the configuration that holds the plugin
        let token = POST<Void>("/oauth/token")
        let stub = StubExecutor().stub(where: { _ in true }) { request in
            if request.url.path.hasSuffix("/oauth/token") {
                return StubResponse(statusCode: 200, body: Data("fresh".utf8))
            }
            let ok = request.headers[.authorization] == "Bearer fresh"
            return StubResponse(statusCode: ok ? 200 : 401)
        }
        let configuration = LockedBox<APIConfiguration?>(nil)
        let auth = RefreshingAuthPlugin<String>(
            credential: { "stale" },
            refresh: { _ in try await token.request(using: configuration.value) as String },
            apply: { value, request in request.headers[.authorization] = "Bearer \(value)" }
        )
        configuration.withLock { $0 = testConfiguration.with { $0.executor = stub }.with { $0.plugins = [auth] } }
        // WHEN a call fails with 401 and triggers the refresh
        try await Self.me.request(with: 1, using: configuration.value)
        // THEN the refresh's own call went through untouched and the retry used the fresh token
        #expect(stub.requests.map(\.url.path) == ["/v2/me", "/v2/oauth/token", "/v2/me"])
        #expect(stub.requests[1].headers[.authorization] == nil)
    }

    @Test func aCallWaitingForARefreshStopsWhenCancelled() async throws {
        // GIVEN a refresh that runs until the test lets it end (or 60 s pass, so that a broken wait fails, not hangs)
        let server = Server()
        let store = TokenStore()
        let refreshEnds = Gate()
        let auth = plugin(store: store, server: server) { _ in
            await refreshEnds.wait()
            store.token.withLock { $0 = "token-1" }
            server.valid.withLock { $0 = "token-1" }
            return "token-1"
        }
        let configuration = testConfiguration.with { $0.executor = server.executor() }.with { $0.plugins = [auth] }
        // WHEN two calls wait for it and one of them is cancelled
        let patient = Task { try await Self.me.request(with: 1, using: configuration) as String }
        let impatient = Task { try await Self.me.request(with: 2, using: configuration) as String }
        try await Task.sleep(for: .milliseconds(200))
        impatient.cancel()
        let error = try await #require(throws: APIError.self) { try await impatient.value }
        let endedWhileTheRefreshRan = !refreshEnds.openedOnItsOwn
        refreshEnds.open()
        // THEN the cancelled call ends at once, while the refresh still runs, and the other still gets its answer
        // after the refresh
        #expect(endedWhileTheRefreshRan)
        #expect(error.reason == .transport(.cancelled))
        #expect(try await patient.value == "1")
    }
}
