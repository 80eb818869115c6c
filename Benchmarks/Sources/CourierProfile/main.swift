import Courier
import CourierBenchmarkSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Runs one side of one benchmark in a loop, without the benchmark harness, for profilers:
//
//   swift build --package-path Benchmarks -c release --product CourierProfile
//   valgrind --tool=callgrind Benchmarks/.build/release/CourierProfile build.query-get.courier 20000
//
// Cases: build.<shape>.{courier,baseline} (the shapes of BuildFixture.cases), decode.{2kb,200kb}.{courier,baseline},
// pipeline (a whole call on an executor that answers at once, the body returned as Data: Courier's own cost),
// pipeline-3-plugins (the same with three plugins that do nothing), pipeline-retry and pipeline-retry-governor (the
// same through `.retry()`, and through `.retry()` and a `TrafficGovernor` at its defaults: what the governor costs),
// json.{2kb,200kb,nested}.{courier,jsondecoder} (the decode alone: Courier's JSON decoder against JSONDecoder),
// download.URL (GETs of URL with URLSessionExecutor.shared, the body in memory).
//
//   Benchmarks/.build/release/CourierProfile compare build.path-header-query [rounds]
//
// times both sides of a build shape in alternating blocks of 1,000 calls and prints the median time per call
// of each and their ratio: a quick A/B check that noise from other processes affects both sides alike.
//
// End-to-end calls (and their callgrind recipe) are in CourierE2E: `scripts/bench e2e`, `scripts/bench callgrind`.

/// The plugins of each `pipeline` case, made only for the case that runs (a governor changes what `.retry()`
/// does in the whole process).
let pipelinePlugins: [String: @Sendable () -> [any APIPlugin]] = [
    "pipeline": { [] },
    "pipeline-3-plugins": { [NoOpPlugin(), NoOpPlugin(), NoOpPlugin()] },
    "pipeline-retry": { [.retry()] },
    "pipeline-retry-governor": { [.retry(), TrafficGovernor()] },
]

/// Runs `calls` in a task, with the main thread waiting on a semaphore (a top-level `await` would make this an
/// async main, whose `dispatch_main()` valgrind 3.19 crashes in); prints the iterations and checksum it returns
/// and exits.
func runCalls(_ label: String, _ calls: @escaping @Sendable () async throws -> (count: Int, checksum: Int)) -> Never {
    Task.detached {
        do {
            let (count, checksum) = try await calls()
            print("\(label): \(count) iterations, checksum \(checksum)")
            exit(0)
        } catch {
            print("\(label): \(error)")
            exit(1)
        }
    }
    DispatchSemaphore(value: 0).wait()
    exit(0)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: CourierProfile <benchmark name> [iterations]")
    exit(2)
}
let name = arguments[1]
let iterations = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000
let endpoints = Endpoints()
var checksum = 0

if name == "compare", arguments.count > 2,
    let shape = BuildFixture.cases(endpoints).first(where: { $0.name == arguments[2] })
{
    let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 200 : 200
    var courierTimes: [Double] = []
    var baselineTimes: [Double] = []
    let clock = ContinuousClock()
    func time(_ body: () throws -> URLRequest) rethrows -> Double {
        let start = clock.now
        for _ in 0..<1_000 { checksum &+= try body().timeoutInterval > 0 ? 1 : 0 }
        let elapsed = clock.now - start
        return Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6
    }
    for _ in 0..<rounds {
        courierTimes.append(try time(shape.courier))
        baselineTimes.append(try time(shape.baseline))
    }
    let courier = courierTimes.sorted()[rounds / 2]
    let baseline = baselineTimes.sorted()[rounds / 2]
    print(
        "\(shape.name): Courier \(Int(courier)) ns, hand-written \(Int(baseline)) ns per call (medians of \(rounds)),"
            + " ratio \(Double(Int(courier / baseline * 1000)) / 1000)"
    )
    exit(0)
}

if let shape = BuildFixture.cases(endpoints).first(where: { name.hasPrefix($0.name + ".") }) {
    let courier = name.hasSuffix(".courier")
    // Both sides must build the same request, or counting their instructions compares nothing.
    try BuildFixture.expectSame(try shape.courier(), try shape.baseline(), shape.name)
    for _ in 0..<iterations {
        let request = try courier ? shape.courier() : shape.baseline()
        checksum &+= request.url?.absoluteString.utf8.count ?? 0
    }
} else if name.hasPrefix("json.") {
    // `json.{2kb,200kb,nested}.{courier,jsondecoder}`: the decode alone, Courier's JSON decoder (through
    // JSONResponseDecoder, as every call uses it) against JSONDecoder with the same settings on the same bytes.
    let parts = name.split(separator: ".")
    let decoder = APIConfiguration.makeDefaultDecoder()
    decoder.keyDecodingStrategy = parts[1] == "nested" ? .convertFromSnakeCase : .useDefaultKeys
    let courier = JSONResponseDecoder.json(decoder)
    func decode<T: Decodable & Equatable>(_ type: T.Type, _ body: Data) throws -> Int {
        let expected = try decoder.decode(type, from: body)
        guard try courier.decode(type, from: body) == expected else {
            throw BenchmarkSetupError("\(name): Courier and JSONDecoder disagree")
        }
        var sum = 0
        for _ in 0..<iterations {
            let value = try parts[2] == "courier" ? courier.decode(type, from: body) : decoder.decode(type, from: body)
            sum &+= withExtendedLifetime(value) { 1 }
        }
        return sum
    }
    switch parts[1] {
    case "2kb": checksum = try decode([Repository].self, Fixtures.small)
    case "200kb": checksum = try decode([Repository].self, Fixtures.large)
    default: checksum = try decode([Discussion].self, Fixtures.nested)
    }
} else if name.hasPrefix("decode.") {
    let body = name.hasPrefix("decode.2kb.") ? Fixtures.small : Fixtures.large
    let configuration = APIConfiguration(
        baseURL: URL(string: "https://api.example.com"), executor: ConstantExecutor(body: body))
    let (count, courier, repos) = (iterations, name.hasSuffix(".courier"), endpoints.repos)
    runCalls(name) {
        var sum = 0
        for _ in 0..<count {
            let repositories: [Repository]
            if courier {
                repositories = try await repos.request(with: "octocat", using: configuration)
            } else {
                repositories = try JSONDecoder().decode([Repository].self, from: body)
            }
            sum &+= repositories.count
        }
        return (count, sum)
    }
} else if let plugins = pipelinePlugins[name]?() {
    // The whole call pipeline on an executor that answers at once, with the body returned as `Data` (no JSON
    // decoding): what Courier adds to every call, build to result; then the same through plugins.
    let configuration = APIConfiguration(
        baseURL: URL(string: "https://api.example.com"), executor: ConstantExecutor(body: Fixtures.small),
        plugins: plugins)
    let (count, repos) = (iterations, endpoints.repos)
    runCalls(name) {
        var sum = 0
        for _ in 0..<count {
            let data: Data = try await repos.request(with: "octocat", using: configuration)
            sum &+= data.count
        }
        return (count, sum)
    }
} else if name.hasPrefix("download.") {
    // `download.URL`: a GET of URL with URLSessionExecutor.shared, the body kept in memory (for a large body: what
    // gathering the chunks costs).
    guard let url = URL(string: String(name.dropFirst("download.".count))) else {
        print("usage: CourierProfile download.URL [iterations]")
        exit(2)
    }
    let request = APIRequest(method: .get, url: url, endpoint: GET<Void>("/").endpoint)
    let count = iterations
    runCalls("download") {
        var sum = 0
        for _ in 0..<count { sum &+= try await URLSessionExecutor.shared.execute(request).data.count }
        return (count, sum)
    }
} else {
    print("unknown benchmark \(name)")
    exit(2)
}
print("\(name): \(iterations) iterations, checksum \(checksum)")
