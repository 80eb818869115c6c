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
            maxDuration: .seconds(1),
            maxIterations: 100_000
        )

        Benchmark("decode.\(size).courier", configuration: settings) {
            (benchmark: Benchmark, endpoints: Endpoints) async in
            for _ in benchmark.scaledIterations {
                do {
                    let repositories: [Repository] = try await endpoints.repos.request(
                        with: "octocat", using: configuration)
                    blackHole(repositories)
                } catch {
                    benchmark.error("\(error)")
                }
            }
        } setup: {
            let endpoints = await Endpoints()
            let viaCourier: [Repository] = try await endpoints.repos.request(with: "octocat", using: configuration)
            guard viaCourier == (try JSONDecoder().decode([Repository].self, from: body)) else {
                throw BenchmarkSetupError("decode.\(size): Courier and JSONDecoder disagree")
            }
            return endpoints
        }

        // Async like Courier's, so both go through the same harness path.
        Benchmark("decode.\(size).baseline", configuration: settings) { (benchmark: Benchmark) async in
            for _ in benchmark.scaledIterations {
                do {
                    blackHole(try JSONDecoder().decode([Repository].self, from: body))
                } catch {
                    benchmark.error("\(error)")
                }
            }
        }
    }
}
