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

    // The decode alone: Courier's JSON decoder (through JSONResponseDecoder, as calls use it) against JSONDecoder
    // with the same settings, on the 2 KB and 200 KB fixtures and the nested, string-heavy one (snake-case keys).
    let settings = Benchmark.Configuration(
        metrics: [.wallClock, .instructions, .mallocCountTotal], warmupIterations: 20,
        maxDuration: .milliseconds(700), maxIterations: 100_000)
    func register<T: Decodable & Equatable & Sendable>(_ name: String, _ type: T.Type, _ body: Data, snake: Bool) {
        for side in ["courier", "jsondecoder"] {
            Benchmark("json.\(name).\(side)", configuration: settings) { benchmark in
                let decoder = APIConfiguration.makeDefaultDecoder()
                if snake { decoder.keyDecodingStrategy = .convertFromSnakeCase }
                let courier = JSONResponseDecoder.json(decoder)
                for _ in benchmark.scaledIterations {
                    do {
                        blackHole(
                            try side == "courier" ? courier.decode(type, from: body) : decoder.decode(type, from: body))
                    } catch {
                        benchmark.error("\(error)")
                    }
                }
            }
        }
    }
    register("2kb", [Repository].self, Fixtures.small, snake: false)
    register("200kb", [Repository].self, Fixtures.large, snake: false)
    register("nested", [Discussion].self, Fixtures.nested, snake: true)
}
