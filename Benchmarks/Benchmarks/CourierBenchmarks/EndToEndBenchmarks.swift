import Benchmark
import Courier
import CourierBenchmarkSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Calls over loopback to a local nginx serving a fixed 2 KB JSON file, decoded into `[Repository]`:
/// Courier's `request(with:using:)` over `URLSessionExecutor`, Courier with three no-op plugins, and the same
/// call written with `URLSession.data(for:)` and `JSONDecoder`, all on one session.
/// Run at concurrency 1 (one call per sample) and 32 (32 tasks making 4 calls each per sample).
///
/// Needs `COURIER_BENCH_SERVER` (the server's base URL) and `COURIER_BENCH_DOCROOT` (the directory it serves);
/// `scripts/bench` sets both. Without them these benchmarks are not registered.
func registerEndToEndBenchmarks() {
    let environment = ProcessInfo.processInfo.environment
    guard let server = environment["COURIER_BENCH_SERVER"].flatMap(URL.init(string:)),
        let docroot = environment["COURIER_BENCH_DOCROOT"]
    else {
        return
    }
    let session = EndToEnd.makeSession()
    let url = server.appendingPathComponent("users/octocat/repos.json")
    let plain = APIConfiguration(baseURL: server, executor: URLSessionExecutor(session: session))
    var withPlugins = plain
    withPlugins.plugins = [NoOpPlugin(), NoOpPlugin(), NoOpPlugin()]

    for (concurrency, callsPerTask) in [(1, 1), (32, 4)] {
        let settings = Benchmark.Configuration(
            metrics: [.wallClock],
            warmupIterations: concurrency == 1 ? 200 : 10,
            maxDuration: .milliseconds(1500),
            maxIterations: 100_000
        )
        let group = "e2e.c\(concurrency)"

        // Each side's setup returns the call it measures, so the harness does the same work around all three.
        for variant in ["baseline", "courier", "courier-3-plugins"] {
            Benchmark("\(group).\(variant)", configuration: settings) {
                (benchmark: Benchmark, call: EndToEnd.Call) async in
                await EndToEnd.run(benchmark, concurrency, callsPerTask, call)
            } setup: { () async throws -> EndToEnd.Call in
                try EndToEnd.writeFixture(into: docroot)
                let expected = try await EndToEnd.raw(session, url)
                guard variant != "baseline" else { return EndToEnd.Call { try await EndToEnd.raw(session, url) } }
                let repos = await Endpoints().repos
                let configuration = variant == "courier" ? plain : withPlugins
                let viaCourier: [Repository] = try await repos.request(with: "octocat", using: configuration)
                guard viaCourier == expected else {
                    throw BenchmarkSetupError("\(group).\(variant): Courier and URLSession disagree")
                }
                return EndToEnd.Call { try await repos.request(with: "octocat", using: configuration) }
            }
        }
    }
}

enum EndToEnd {
    /// One call; a struct so that the benchmark closure can hand it on to task group tasks.
    struct Call: Sendable {
        let run: @Sendable () async throws -> [Repository]
    }

    static func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 32
        return URLSession(configuration: configuration)
    }

    static func writeFixture(into docroot: String) throws {
        let directory = URL(fileURLWithPath: docroot).appendingPathComponent("users/octocat")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Fixtures.small.write(to: directory.appendingPathComponent("repos.json"))
    }

    /// The call as written without Courier.
    static func raw(_ session: URLSession, _ url: URL) async throws -> [Repository] {
        let (data, response) = try await session.data(for: URLRequest(url: url))
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
            throw URLError(.badServerResponse)
        }
        return try JSONDecoder().decode([Repository].self, from: data)
    }

    /// One sample: `concurrency` tasks making `callsPerTask` calls each.
    static func run(
        _ benchmark: Benchmark,
        _ concurrency: Int,
        _ callsPerTask: Int,
        _ call: Call
    ) async {
        do {
            if concurrency == 1 {
                for _ in 0..<callsPerTask { blackHole(try await call.run()) }
                return
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        for _ in 0..<callsPerTask { blackHole(try await call.run()) }
                    }
                }
                try await group.waitForAll()
            }
        } catch {
            benchmark.error("\(error)")
        }
    }
}

/// A plugin that does nothing: every hook keeps its default implementation.
struct NoOpPlugin: APIPlugin {}
