import Courier
import CourierTesting
import Foundation
import Testing

/// A stub that answers like httpbin's `/get`: it echoes the query arguments, tagged with `stub`.
private func echoingStub(_ name: String) -> StubExecutor {
    StubExecutor().stub(where: { _ in true }) { request in
        var arguments: [String: String] = [:]
        for item in request.queryItems { arguments[item.name] = item.value ?? "" }
        let echo = StubEcho(args: arguments, headers: ["X-Stub": name], url: request.url.absoluteString)
        let body = try JSONEncoder().encode(echo)
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        return StubResponse(statusCode: 200, headers: headers, body: body)
    }
}

private struct StubEcho: Encodable {
    var args: [String: String]
    var headers: [String: String]
    var url: String
}

/// The executor is chosen per call (`using:`) and per task (`withCurrent`), and a real server and stubs
/// can be mixed freely without touching a declaration.
@Suite("Integration: swapping the executor", .httpbin)
struct ExecutorSwapIntegrationTests {
    @Test("Per call: using: picks the executor for that call only")
    func perCall() async throws {
        // GIVEN one configuration for the real server and the same one with a stub
        let real = try HTTPBin.configuration()
        let stub = echoingStub("per-call")

        // WHEN the same endpoint is called with each
        let fromServer: HTTPBinEcho = try await HTTPBinAPI.$get.request(with: (a: "real", b: 1), using: real)
        let fromStub: HTTPBinEcho = try await HTTPBinAPI.$get.request(
            with: (a: "stub", b: 2),
            using: real.with { $0.executor = stub }
        )

        // THEN only the stubbed call reached the stub
        #expect(fromServer.header("X-Stub") == nil)
        #expect(fromServer.args == ["a": .one("real"), "b": .one("1")])
        #expect(fromStub.header("X-Stub") == "per-call")
        #expect(
            stub.requests.map(\.queryItems) == [
                [URLQueryItem(name: "a", value: "stub"), URLQueryItem(name: "b", value: "2")]
            ])
    }

    @Test("Per task: parallel withCurrent scopes each see only their own executor")
    func perTask() async throws {
        // GIVEN two stubs and the real server, each the current configuration of its own task
        let base = try HTTPBin.configuration()
        let stubs = [echoingStub("first"), echoingStub("second")]
        let callsPerTask = 6

        // WHEN the three tasks call the same endpoint at the same time
        let serverArguments = try await withThrowingTaskGroup(of: [String].self) { group in
            for (index, stub) in stubs.enumerated() {
                group.addTask {
                    try await APIConfiguration.withCurrent(base.with { $0.executor = stub }) {
                        for call in 0..<callsPerTask {
                            let _: HTTPBinEcho = try await HTTPBinAPI.$get.request(with: (a: "task\(index)", b: call))
                            await Task.yield()
                        }
                    }
                    return []
                }
            }
            group.addTask {
                try await APIConfiguration.withCurrent(base) {
                    var seen: [String] = []
                    for call in 0..<3 {
                        let echo: HTTPBinEcho = try await HTTPBinAPI.$get.request(with: (a: "server", b: call))
                        #expect(echo.header("X-Stub") == nil)
                        if case .one(let value) = echo.args?["a"] { seen.append(value) }
                    }
                    return seen
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }

        // THEN each stub saw exactly its own task's calls, in order, and the server saw the third task's
        for (index, stub) in stubs.enumerated() {
            let values = stub.requests.map { request in request.queryItems.map { "\($0.name)=\($0.value ?? "")" } }
            #expect(values == (0..<callsPerTask).map { ["a=task\(index)", "b=\($0)"] })
        }
        #expect(serverArguments == ["server", "server", "server"])
    }

    @Test("using: wins over the task's configuration")
    func usingBeatsTask() async throws {
        let real = try HTTPBin.configuration()
        let taskStub = echoingStub("task")
        let callStub = echoingStub("call")

        try await APIConfiguration.withCurrent(real.with { $0.executor = taskStub }) {
            let echo: HTTPBinEcho = try await HTTPBinAPI.$get.request(
                with: (a: "x", b: 1),
                using: real.with { $0.executor = callStub }
            )
            #expect(echo.header("X-Stub") == "call")
            let direct: HTTPBinEcho = try await HTTPBinAPI.$get.request(with: (a: "x", b: 1), using: real)
            #expect(direct.header("X-Stub") == nil)
        }

        #expect(taskStub.requests.isEmpty)
        #expect(callStub.requests.count == 1)
    }
}

/// `APIConfiguration.default`, the process-wide fallback. The suite is serialized; its
/// `.changesDefaultConfiguration` trait also keeps it apart from tests in other suites that change the default
/// and restores the default after each test. Every other integration suite passes `using:` or
/// `withCurrent`, so none of them depends on the default and a temporary change here cannot affect them.
@Suite("Integration: the process-wide default configuration", .httpbin, .serialized, .changesDefaultConfiguration)
struct DefaultConfigurationIntegrationTests {
    @Test("A call with neither using: nor a task scope uses APIConfiguration.default; task and call override it")
    func globalDefault() async throws {
        // GIVEN a default that points at a stub, restored afterwards
        let saved = APIConfiguration.default
        defer { APIConfiguration.default = saved }
        let globalStub = echoingStub("global")
        let taskStub = echoingStub("task")
        let real = try HTTPBin.configuration()
        APIConfiguration.default = real.with { $0.executor = globalStub }

        // WHEN calls are made without using:, inside a task scope, and with using:
        let global: HTTPBinEcho = try await HTTPBinAPI.$get.request(with: (a: "global", b: 1))
        let scoped: HTTPBinEcho = try await APIConfiguration.withCurrent(real.with { $0.executor = taskStub }) {
            try await HTTPBinAPI.$get.request(with: (a: "task", b: 2))
        }
        let explicit: HTTPBinEcho = try await HTTPBinAPI.$get.request(with: (a: "call", b: 3), using: real)

        // THEN each went to the executor of the most specific configuration
        #expect(global.header("X-Stub") == "global")
        #expect(scoped.header("X-Stub") == "task")
        #expect(explicit.header("X-Stub") == nil)
        #expect(explicit.args == ["a": .one("call"), "b": .one("3")])
        #expect(globalStub.requests.count == 1)
        #expect(taskStub.requests.count == 1)
    }

    @Test("A default that points at the real server serves calls made without a configuration")
    func restoredDefault() async throws {
        // GIVEN the default is changed to a real-server configuration and then restored
        let saved = APIConfiguration.default
        defer { APIConfiguration.default = saved }
        APIConfiguration.default = try HTTPBin.configuration()

        // WHEN a call relies on the default alone
        let echo: HTTPBinEcho = try await HTTPBinAPI.$get.request(with: (a: "default", b: 4))

        // THEN it reached the server through URLSessionExecutor
        #expect(echo.args == ["a": .one("default"), "b": .one("4")])
        #expect(APIConfiguration.default.executor is URLSessionExecutor)
    }
}
