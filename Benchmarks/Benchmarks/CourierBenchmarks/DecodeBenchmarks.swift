import Benchmark
import Courier
import CourierBenchmarkSupport
import Foundation

/// A call that decodes a 2 KB and a 200 KB JSON body: Courier (`request(with:using:)` through an executor
/// that answers at once) against `JSONDecoder().decode` on the same bytes.
func registerDecodeBenchmarks() {
    for (size, body) in [("2kb", Fixtures.small), ("200kb", Fixtures.large)] {
        let configuration = APIConfiguration(
            baseURL: URL(string: "https://api.example.com"),
            executor: ConstantExecutor(body: body)
        )
        let settings = Benchmark.Configuration(
            metrics: [.wallClock, .mallocCountTotal],
            warmupIterations: 20,
            maxDuration: .milliseconds(700),
            maxIterations: 100_000
        )

        // Each side's setup returns the closure it measures, so the harness does the same work around both.
        typealias Decode = @Sendable () async throws -> [Repository]
        for side in ["courier", "baseline"] {
            Benchmark("decode.\(size).\(side)", configuration: settings) {
                (benchmark: Benchmark, decode: Decode) async in
                for _ in benchmark.scaledIterations {
                    do {
                        blackHole(try await decode())
                    } catch {
                        benchmark.error("\(error)")
                    }
                }
            } setup: { () async throws -> Decode in
                let repos = await Endpoints().repos
                let viaCourier: [Repository] = try await repos.request(with: "octocat", using: configuration)
                guard viaCourier == (try JSONDecoder().decode([Repository].self, from: body)) else {
                    throw BenchmarkSetupError("decode.\(size): Courier and JSONDecoder disagree")
                }
                if side == "courier" {
                    return { try await repos.request(with: "octocat", using: configuration) }
                }
                return { try JSONDecoder().decode([Repository].self, from: body) }
            }
        }
    }
}
