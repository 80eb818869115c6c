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
// Cases: build.<shape>.{courier,baseline} (the shapes of BuildFixture.cases), decode.{2kb,200kb}.{courier,baseline}.
//
//   Benchmarks/.build/release/CourierProfile compare build.path-header-query [rounds]
//
// times both sides of a build shape in alternating blocks of 1,000 calls and prints the median time per call
// of each and their ratio: a quick A/B check that noise from other processes affects both sides alike.

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: CourierProfile <benchmark name> [iterations]")
    exit(2)
}
let name = arguments[1]
let iterations = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000
let endpoints = Endpoints()
var checksum = 0

// CourierProfile compare-e2e http://127.0.0.1:PORT [concurrency] [rounds]: the end-to-end calls (nginx serving
// users/octocat/repos.json, as scripts/bench sets up) in alternating blocks: raw URLSession, Courier, Courier with
// three no-op plugins. With COURIER_BENCH_DOCROOT set, it first writes the fixture there.
if name == "compare-e2e", arguments.count > 2, let server = URL(string: arguments[2]) {
    let concurrency = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1
    let rounds = arguments.count > 4 ? Int(arguments[4]) ?? 30 : 30
    let sessionConfiguration = URLSessionConfiguration.default
    sessionConfiguration.urlCache = nil
    sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
    sessionConfiguration.httpMaximumConnectionsPerHost = 32
    let session = URLSession(configuration: sessionConfiguration)
    let url = server.appendingPathComponent("users/octocat/repos.json")
    if let docroot = ProcessInfo.processInfo.environment["COURIER_BENCH_DOCROOT"] {
        let directory = URL(fileURLWithPath: docroot).appendingPathComponent("users/octocat")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Fixtures.small.write(to: directory.appendingPathComponent("repos.json"))
    }
    let plain = APIConfiguration(baseURL: server, executor: URLSessionExecutor(session: session))
    let withPlugins = plain.with(plugins: [NoOpPlugin(), NoOpPlugin(), NoOpPlugin()])
    let dataFor = plain.with(executor: DataForExecutor(session: session, copyHeaders: false))
    let dataForHeaders = plain.with(executor: DataForExecutor(session: session, copyHeaders: true))
    let completion = plain.with(executor: CompletionExecutor(session: session, timer: false))
    let completionTimer = plain.with(executor: CompletionExecutor(session: session, timer: true))
    let repos = endpoints.repos
    let calls: [(String, @Sendable () async throws -> [Repository])] = [
        (
            "raw",
            {
                let (data, _) = try await session.data(for: URLRequest(url: url))
                return try JSONDecoder().decode([Repository].self, from: data)
            }
        ),
        ("courier", { try await repos.request(with: "octocat", using: plain) }),
        ("courier-3-plugins", { try await repos.request(with: "octocat", using: withPlugins) }),
        // Diagnostics: Courier over an executor that is only `session.data(for:)`, without and with the
        // response headers copied into HTTPHeaders.
        ("courier-data-for", { try await repos.request(with: "octocat", using: dataFor) }),
        ("courier-data-for-headers", { try await repos.request(with: "octocat", using: dataForHeaders) }),
        // ... over `dataTask(with:completionHandler:)` and a continuation, without and with a 60 s
        // `DispatchQueue.global().asyncAfter` timeout per call (what URLSessionExecutor does on Linux).
        ("courier-completion", { try await repos.request(with: "octocat", using: completion) }),
        ("courier-completion-timer", { try await repos.request(with: "octocat", using: completionTimer) }),
    ]
    if let only = ProcessInfo.processInfo.environment["COURIER_PROFILE_ONLY"] {
        // One kind of call only, sequentially, for callgrind: COURIER_PROFILE_ONLY=raw|courier|courier-3-plugins.
        guard let call = calls.first(where: { $0.0 == only })?.1 else { exit(2) }
        for _ in 0..<rounds { _ = try await call() }
        print("\(only): \(rounds) calls")
        exit(0)
    }
    var times = [[Double]](repeating: [], count: calls.count)
    let clock = ContinuousClock()
    for round in 0..<(rounds + 1) {
        // Rotate the order every round so that no kind of call always runs first.
        for offset in 0..<calls.count {
            let index = (offset + round) % calls.count
            let call = calls[index].1
            let start = clock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<concurrency {
                    group.addTask { for _ in 0..<(concurrency == 1 ? 50 : 4) { _ = try await call() } }
                }
                try await group.waitForAll()
            }
            let elapsed = clock.now - start
            if round > 0 {  // the first round warms up
                times[index].append(
                    Double(elapsed.components.attoseconds) / 1e9 + Double(elapsed.components.seconds) * 1e9)
            }
        }
    }
    let medians = times.map { $0.sorted()[$0.count / 2] }
    for (index, (label, _)) in calls.enumerated() {
        print(
            "\(label): median block \(Int(medians[index] / 1000)) µs, throughput vs raw \(Double(Int(medians[0] / medians[index] * 1000)) / 1000)"
        )
    }
    exit(0)
}

/// A plugin that does nothing.
struct NoOpPlugin: APIPlugin {}

/// An executor over `dataTask(with:completionHandler:)`, optionally with a timeout timer per call.
struct CompletionExecutor: APIExecutor {
    let session: URLSession
    let timer: Bool

    final class Flag: Sendable {}

    func execute(_ request: APIRequest) async throws -> APIResponse {
        let urlRequest = request.urlRequest
        let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: urlRequest) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let response {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                }
            }
            if timer {
                let flag = Flag()
                DispatchQueue.global().asyncAfter(deadline: .now() + 60) { [weak flag] in _ = flag }
            }
            task.resume()
        }
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return APIResponse(statusCode: http.statusCode, body: .data(data), request: request)
    }
}

/// The smallest executor over URLSession: `data(for:)`, and optionally the response headers.
struct DataForExecutor: APIExecutor {
    let session: URLSession
    let copyHeaders: Bool

    func execute(_ request: APIRequest) async throws -> APIResponse {
        let (data, response) = try await session.data(for: request.urlRequest)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers = HTTPHeaders()
        if copyHeaders {
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String {
                    headers.add(HTTPHeaderName(rawValue: name), value)
                }
            }
        }
        return APIResponse(statusCode: http.statusCode, headers: headers, body: .data(data), request: request)
    }
}

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
    for _ in 0..<iterations {
        let request = try courier ? shape.courier() : shape.baseline()
        checksum &+= request.url?.absoluteString.utf8.count ?? 0
    }
} else if name.hasPrefix("decode.") {
    let body = name.hasPrefix("decode.2kb.") ? Fixtures.small : Fixtures.large
    let configuration = APIConfiguration(
        baseURL: URL(string: "https://api.example.com"), executor: ConstantExecutor(body: body))
    for _ in 0..<iterations {
        let repositories: [Repository]
        if name.hasSuffix(".courier") {
            repositories = try await endpoints.repos.request(with: "octocat", using: configuration)
        } else {
            repositories = try JSONDecoder().decode([Repository].self, from: body)
        }
        checksum &+= repositories.count
    }
} else {
    print("unknown benchmark \(name)")
    exit(2)
}
print("\(name): \(iterations) iterations, checksum \(checksum)")
