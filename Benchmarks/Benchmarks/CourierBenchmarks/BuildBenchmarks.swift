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
        metrics: metrics, warmupIterations: 1_000, maxDuration: .seconds(1), maxIterations: 1_000_000)

    for (name, courier, baseline) in BuildFixture.cases {
        Benchmark("\(name).courier", configuration: settings) { benchmark, endpoints in
            for _ in benchmark.scaledIterations {
                do {
                    blackHole(try courier(endpoints))
                } catch {
                    benchmark.error("\(error)")
                }
            }
        } setup: {
            let endpoints = await Endpoints()
            // Both sides must build the same request, or the comparison means nothing.
            try BuildFixture.expectSame(try courier(endpoints), try baseline(), name)
            return endpoints
        }

        Benchmark("\(name).baseline", configuration: settings) { benchmark in
            for _ in benchmark.scaledIterations {
                do {
                    blackHole(try baseline())
                } catch {
                    benchmark.error("\(error)")
                }
            }
        }
    }
}
