import Benchmark
import Courier
import CourierBenchmarkSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Building the `URLRequest` of four endpoint shapes: Courier (`makeRequest(with:using:)` then
/// `urlRequest`) against the same request written by hand with `URLComponents` and `JSONEncoder`.
func registerBuildBenchmarks() {
    let metrics: [BenchmarkMetric] = [.wallClock, .mallocCountTotal]
    let settings = Benchmark.Configuration(
        metrics: metrics, warmupIterations: 1_000, maxDuration: .milliseconds(500), maxIterations: 1_000_000)

    // Each side's setup returns the closure it measures, so the harness does the same work around both.
    for name in BuildFixture.names {
        for side in ["courier", "baseline"] {
            Benchmark("\(name).\(side)", configuration: settings) { benchmark, build in
                for _ in benchmark.scaledIterations {
                    do {
                        blackHole(try build())
                    } catch {
                        benchmark.error("\(error)")
                    }
                }
            } setup: { () async throws -> BuildFixture.Build in
                let found = try await BuildFixture.checkedCase(name)
                return side == "courier" ? found.courier : found.baseline
            }
        }
    }
}
