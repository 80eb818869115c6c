import Courier
import CourierTesting
import Foundation
import Testing

/// Records the order in which plugins are entered and left.
final class Trail: Sendable {
    private let lines = LockedBox<[String]>([])

    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

struct Recorder: APIPlugin {
    let name: String
    let trail: Trail

    func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        trail.add("enter \(name)")
        defer { trail.add("exit \(name)") }
        var request = request
        request.headers.add("X-Trail", name)
        return try await next(request)
    }
}

@Suite struct PluginChainTests {
    static let ping = GET<Void>("/ping")

    @Test func firstPluginIsOutermostAndEndpointPluginsRunInside() async throws {
        // GIVEN two configuration plugins and one endpoint plugin, each recording entry and exit
        let trail = Trail()
        let stub = StubExecutor().stub(where: { _ in true }) { request in
            trail.add("executor sees \(request.headers.values(for: "X-Trail").joined(separator: ","))")
            return StubResponse(statusCode: 200)
        }
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [Recorder(name: "a", trail: trail), Recorder(name: "b", trail: trail)]
        let endpoint = GET<Void>("/ping", plugins: [Recorder(name: "c", trail: trail)])
        // WHEN the endpoint is called
        try await endpoint.request(using: configuration)
        // THEN plugins run in order on the way out and in reverse on the way back
        #expect(
            trail.all == [
                "enter a", "enter b", "enter c", "executor sees a,b,c", "exit c", "exit b", "exit a",
            ]
        )
    }

    @Test("A plugin sees every status; validation comes after the chain and sees what it returns")
    func pluginsSeeEveryStatus() async throws {
        // GIVEN a plugin that records the status and turns a 404 into a 200
        struct NotFoundIsEmpty: APIPlugin {
            let trail: Trail
            func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
                var response = try await next(request)
                trail.add("process \(response.statusCode)")
                if response.statusCode == 404 { response.statusCode = 200 }
                return response
            }
        }
        let trail = Trail()
        var configuration = testConfiguration.with { $0.plugins = [NotFoundIsEmpty(trail: trail)] }
        // WHEN a 404 and a 500 come back
        let notFound: String? = try await Self.ping.request(
            using: configuration.with { $0.executor = StubExecutor().stubEverything(with: .status(404)) })
        configuration.executor = StubExecutor().stubEverything(with: .status(500))
        let error = try await #require(throws: APIError.self) { try await Self.ping.request(using: configuration) }
        // THEN process saw both, and only the 500 failed validation
        #expect(notFound == nil)
        #expect(error.statusCode == 500)
        #expect(trail.all == ["process 404", "process 500"])
    }

    @Test func pluginsSeeFailures() async throws {
        struct Watches: APIPlugin {
            let trail: Trail
            func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
                do {
                    return try await next(request)
                } catch {
                    trail.add("failed: \(APIError.wrapping(error, request: request).reason)")
                    throw error
                }
            }
        }
        let trail = Trail()
        var configuration = testConfiguration.with {
            $0.executor = StubExecutor().stubEverything(with: .error(URLError(.timedOut)))
        }
        configuration.plugins = [Watches(trail: trail)]
        let error = try await #require(throws: APIError.self) { try await Self.ping.request(using: configuration) }
        #expect(error.reason == .transport(.timedOut))
        #expect(trail.all == ["failed: transport failure: the request timed out"])
    }

    struct ShortCircuit: APIPlugin {
        func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
            APIResponse(statusCode: 200, body: .data(Data("cached".utf8)), request: request)
        }
    }

    @Test func aPluginMayAnswerWithoutCallingNext() async throws {
        let stub = StubExecutor().stubEverything(with: .status(500))
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [ShortCircuit()]
        let text: String = try await Self.ping.request(using: configuration)
        #expect(text == "cached")
        #expect(stub.requests.isEmpty)
    }

    struct Twice: APIPlugin {
        func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
            _ = try await next(request)
            return try await next(request)
        }
    }

    @Test func aPluginMayCallNextManyTimes() async throws {
        let stub = StubExecutor().stubEverything(with: .status(200))
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [Twice()]
        try await Self.ping.request(using: configuration)
        #expect(stub.requests.count == 2)
    }

    struct Refuses: APIPlugin {
        struct Refusal: Error {}
        func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse { throw Refusal() }
    }

    @Test func aPluginErrorBecomesAnAPIErrorAndNothingIsSent() async throws {
        let stub = StubExecutor().stubEverything(with: .status(200))
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [Refuses()]
        let error = try await #require(throws: APIError.self) { try await Self.ping.request(using: configuration) }
        #expect(error.reason == .other)
        #expect(error.underlyingError is Refuses.Refusal)
        #expect(stub.requests.isEmpty)
    }

    @Test func pluginsSeeTheEndpointMetadata() async throws {
        enum Audience: APITagKey { static let defaultValue = "public" }
        struct Reads: APIPlugin {
            let trail: Trail
            func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
                let endpoint = request.endpoint
                trail.add("\(endpoint) host=\(endpoint.host?.rawValue ?? "-") audience=\(endpoint.tags[Audience.self])")
                return try await next(request)
            }
        }
        let trail = Trail()
        var configuration = testConfiguration.with { $0.executor = StubExecutor().stubEverything(with: .status(200)) }
        configuration.hosts["admin"] = URL(string: "https://admin.example.com")
        configuration.plugins = [Reads(trail: trail)]
        let endpoint = DELETE<Int>(
            wrappedValue: .init { ["id": $0] },
            "/users/{id}",
            host: "admin",
            tags: [APITag(Audience.self, "staff")]
        )
        try await endpoint.request(with: 3, using: configuration)
        #expect(trail.all == ["DELETE /users/{id} host=admin audience=staff"])
    }

    struct AddsBadHeader: APIPlugin {
        func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
            var request = request
            request.headers["X-Injected"] = "a\r\nEvil: 1"
            return try await next(request)
        }
    }

    @Test func headersAddedByPluginsAreCheckedBeforeSending() async throws {
        let stub = StubExecutor().stubEverything(with: .status(200))
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [AddsBadHeader()]
        let error = try await #require(throws: APIError.self) { try await Self.ping.request(using: configuration) }
        #expect(error.reason == .invalidRequest(.invalidHeader(name: "X-Injected")))
        #expect(stub.requests.isEmpty)
    }
}
