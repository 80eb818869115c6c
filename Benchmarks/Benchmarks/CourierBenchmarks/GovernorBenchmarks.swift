import Benchmark
import Courier
import CourierBenchmarkSupport
import Foundation

/// A call that a `TrafficGovernor` refuses because its origin's circuit is open, against the same call answered at
/// once by an executor without a governor.
///
/// - `governor.open-circuit`: `$repos.request(with:)` through a governor whose breaker a 503 opened in the set-up
///   (its cool-down an hour), refused with `governorRefused(.circuitOpen)` before the executor; the baseline is the
///   call without a governor on an executor that answers 200 with 2 KB of JSON at once, the body returned as
///   `Data`. Target: ≤ 1 ms for the refusal.
func registerGovernorBenchmarks() {
    let settings = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 50,
        maxDuration: .milliseconds(700),
        maxIterations: 200_000
    )
    typealias Call = @Sendable () async -> Int

    for side in ["courier", "baseline"] {
        Benchmark("governor.open-circuit.\(side)", configuration: settings) { (benchmark: Benchmark, call: Call) in
            for _ in benchmark.scaledIterations { blackHole(await call()) }
        } setup: { () async throws -> Call in
            let repos = await Endpoints().repos
            let base = URL(string: "https://api.example.com")
            guard side == "courier" else {
                let configuration = APIConfiguration(baseURL: base, executor: ConstantExecutor(body: Fixtures.small))
                return {
                    let data = try? await repos.request(with: "octocat", using: configuration) as Data
                    return data?.count ?? -1
                }
            }
            let governor = TrafficGovernor(
                circuitBreaker: .init(minimumCalls: 1, coolDown: .seconds(3600)), retryBudget: nil)
            let configuration = APIConfiguration(
                baseURL: base, executor: UnavailableExecutor(), plugins: [governor])
            let opening = try? await repos.request(with: "octocat", using: configuration) as Data
            guard opening == nil else { throw BenchmarkSetupError("the 503 did not fail the call") }
            return {
                do {
                    return try await (repos.request(with: "octocat", using: configuration) as Data).count
                } catch {
                    return (error as? APIError)?.reason == .governorRefused(.circuitOpen) ? 0 : -1
                }
            }
        }
    }
}

/// Answers every request with a 503 at once.
struct UnavailableExecutor: APIExecutor {
    func execute(_ request: APIRequest) async throws -> APIResponse {
        APIResponse(statusCode: 503, request: request)
    }
}
