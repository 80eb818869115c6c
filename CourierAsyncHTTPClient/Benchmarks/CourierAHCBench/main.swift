// CourierAHCBench — Courier on AsyncHTTPClientExecutor against raw HTTPClient and raw URLSession, end to end
// over loopback nginx, alternating in one process. Run by `Benchmarks/scripts/bench-ahc`, which starts nginx and passes
// its URL and document root:
//
//     CourierAHCBench SERVER_URL DOCROOT [--rounds N] [--warmup N] [--calls N] [--calls-per-task N]
//     CourierAHCBench SERVER_URL DOCROOT --only SIDE N [--tasks T]     N calls of one side, untimed (for callgrind)
//
// COURIER_AHC_BENCH_POOL=N adds two sides on clients of their own keeping N connections per host (`courier-poolN`,
// `raw-ahc-poolN`), to compare pool sizes in the same rounds.
//
// COURIER_AHC_BENCH_H2_URL and COURIER_AHC_BENCH_H1_TLS_URL (the same file over TLS: HTTP/2 by ALPN, and HTTP/1.1
// only), with COURIER_AHC_BENCH_CA (the PEM root their certificate chains to), add `courier-h2` and
// `courier-h1-tls`: Courier over each, on clients of their own, to compare HTTP/2's one connection with HTTP/1.1's
// pool in the same rounds; and `raw-ahc-h2`, `raw-ahc-h1-tls`, the raw call over each. COURIER_AHC_BENCH_H2_CLIENTS=N
// adds `courier-h2xN` (see `tlsSides`).
//
// The server serves a 2 KB JSON array of repositories (written to DOCROOT first); every side GETs it and decodes
// it into [Repository]:
// - courier: `$repos.request(using:)` with `AsyncHTTPClientExecutor()` (the shared client);
// - raw-ahc: the call written without Courier: `HTTPClient.shared.execute(_:timeout:)`, a status check,
//   `body.collect(upTo:)`, `JSONDecoder().decode(_:from: ByteBuffer)`;
// - raw-ahc-again: raw-ahc once more (a control: its distance from 1× is the noise of the run);
// - raw-urlsession: `URLSession(configuration: .default).data(for:)`, a status check, `JSONDecoder().decode`.
// Every side must decode the same value before anything is timed. For each concurrency, after warm-up rounds,
// every round times one block of each side back to back, in an order drawn at random for each round (over
// the rounds every side follows every other side about equally often, so what one side leaves behind — libcurl's threads
// after raw-urlsession, say — does not always weigh on the same neighbour); a
// block is `calls` sequential calls at concurrency 1, or 32 tasks of `calls-per-task` calls. Ratios are taken
// round by round (baseline block time / side block time: throughput relative to the baseline); the figure is
// their median, with their range.
import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOSSL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Repository: Codable, Equatable, Sendable {
    var id: Int
    var name: String
    var fullName: String
    var isPrivate: Bool
    var stars: Int
    var url: String
    var description: String?

    enum CodingKeys: String, CodingKey {
        case id, name, description, url = "html_url", fullName = "full_name", isPrivate = "private"
        case stars = "stargazers_count"
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
}

/// The 2 KB fixture: eight repositories.
let fixture: [Repository] = (1...8).map { number in
    Repository(
        id: 1_000 + number, name: "project-\(number)", fullName: "octocat/project-\(number)",
        isPrivate: number % 3 == 0,
        stars: number * 37, url: "https://github.com/octocat/project-\(number)",
        description: number % 4 == 0 ? nil : "Example repository number \(number)")
}

struct Side: Sendable {
    let name: String
    let call: @Sendable () async throws -> [Repository]
}

func options() throws -> (server: URL, docroot: String, rounds: Int, warmup: Int, calls: Int, callsPerTask: Int) {
    var arguments = Array(CommandLine.arguments.dropFirst())
    func value(_ name: String, _ defaultValue: Int) throws -> Int {
        guard let index = arguments.firstIndex(of: name) else { return defaultValue }
        guard index + 1 < arguments.count, let number = Int(arguments[index + 1]) else {
            throw Failure(description: "\(name) needs a number")
        }
        arguments.removeSubrange(index...(index + 1))
        return number
    }
    let rounds = try value("--rounds", 41)
    let warmup = try value("--warmup", 3)
    let calls = try value("--calls", 300)
    let callsPerTask = try value("--calls-per-task", 64)
    if let index = arguments.firstIndex(of: "--only"), index + 2 < arguments.count {
        arguments.removeSubrange(index...(index + 2))
    }
    _ = try value("--tasks", 1)
    guard arguments.count == 2, let server = URL(string: arguments[0]) else {
        throw Failure(
            description:
                "usage: CourierAHCBench SERVER_URL DOCROOT [--rounds N] [--warmup N] [--calls N] [--calls-per-task N]")
    }
    return (server, arguments[1], rounds, warmup, calls, callsPerTask)
}

@MainActor
enum Book {
    @GET("/users/octocat/repos.json")
    static var repos: APIParameterBuilder<Void>? = nil
}

func sides(_ server: URL, endpoint: GET<Void>) -> [Side] {
    let url = server.appendingPathComponent("users/octocat/repos.json")
    let configuration = APIConfiguration(baseURL: server, executor: AsyncHTTPClientExecutor())
    let courier = Side(name: "courier") {
        try await endpoint.request(using: configuration)
    }
    // The executor alone, on a request built once: `courier` / `executor` is the cost of the rest of Courier.
    let prebuilt = APIRequest(method: .get, url: url, endpoint: endpoint.endpoint)
    let executor = AsyncHTTPClientExecutor()
    let executorOnly = Side(name: "executor") {
        let response = try await executor.execute(prebuilt)
        guard response.statusCode == 200 else { throw Failure(description: "status \(response.statusCode)") }
        return try JSONDecoder().decode([Repository].self, from: response.data)
    }
    func rawAHC(_ name: String) -> Side {
        Side(name: name) {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
            guard response.status == .ok else { throw Failure(description: "status \(response.status)") }
            let body = try await response.body.collect(upTo: 1 << 20)
            return try JSONDecoder().decode([Repository].self, from: body)
        }
    }
    let session = URLSession(configuration: .default)
    let rawURLSession = Side(name: "raw-urlsession") {
        let (data, response) = try await session.data(for: URLRequest(url: url))
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw Failure(description: "status") }
        return try JSONDecoder().decode([Repository].self, from: data)
    }
    var all = [courier, executorOnly, rawAHC("raw-ahc"), rawAHC("raw-ahc-again"), rawURLSession]
    // COURIER_AHC_BENCH_POOL=N: two more sides on clients of their own with at most N connections per host
    // (AsyncHTTPClient's default is 8): Courier (`courier-poolN`) and the raw call (`raw-ahc-poolN`).
    if let pool = ProcessInfo.processInfo.environment["COURIER_AHC_BENCH_POOL"].flatMap({ Int($0) }) {
        var settings = HTTPClient.Configuration.singletonConfiguration
        settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = pool
        var rawSettings = HTTPClient.Configuration.singletonConfiguration
        rawSettings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = pool
        let rawClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: rawSettings)
        let pooled = APIConfiguration(baseURL: server, executor: AsyncHTTPClientExecutor(configuration: settings))
        all.append(Side(name: "courier-pool\(pool)") { try await endpoint.request(using: pooled) })
        all.append(
            Side(name: "raw-ahc-pool\(pool)") {
                let response = try await rawClient.execute(
                    HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
                guard response.status == .ok else { throw Failure(description: "status \(response.status)") }
                let body = try await response.body.collect(upTo: 1 << 20)
                return try JSONDecoder().decode([Repository].self, from: body)
            })
    }
    all += tlsSides(endpoint: endpoint)
    return all
}

/// `courier-h2` and `courier-h1-tls`, when the environment names their servers and root (see the top of the file).
func tlsSides(endpoint: GET<Void>) -> [Side] {
    let environment = ProcessInfo.processInfo.environment
    guard let h2 = environment["COURIER_AHC_BENCH_H2_URL"].flatMap(URL.init(string:)),
        let h1 = environment["COURIER_AHC_BENCH_H1_TLS_URL"].flatMap(URL.init(string:)),
        let path = environment["COURIER_AHC_BENCH_CA"],
        let pem = try? String(contentsOfFile: path, encoding: .utf8), let root = TLSCertificate(pem: pem)
    else { return [] }
    let trust = TLSTrust([TLSTrust.Host("127.0.0.1", roots: [root])])
    // The shared client's settings: up to 32 HTTP/1.1 connections per host; HTTP/2 multiplexes over one.
    var settings = HTTPClient.Configuration.singletonConfiguration
    settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 32
    var sides: [Side] = []
    for (name, server) in [("h2", h2), ("h1-tls", h1)] {
        let executor = AsyncHTTPClientExecutor(configuration: settings, trust: trust, cookies: nil)
        let configuration = APIConfiguration(baseURL: server, executor: executor)
        sides.append(Side(name: "courier-" + name) { try await endpoint.request(using: configuration) })
        // The same call without Courier, on a client of its own that trusts the root.
        var raw = settings
        raw.tlsConfiguration = .makeClientConfiguration()
        raw.tlsConfiguration?.trustRoots = .certificates((try? NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))) ?? [])
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: raw)
        let url = server.appendingPathComponent("users/octocat/repos.json").absoluteString
        sides.append(
            Side(name: "raw-ahc-" + name) {
                let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                guard response.status == .ok else { throw Failure(description: "status \(response.status)") }
                let body = try await response.body.collect(upTo: 1 << 20)
                return try JSONDecoder().decode([Repository].self, from: body)
            })
    }
    // COURIER_AHC_BENCH_H2_CLIENTS=N: `courier-h2xN`, Courier over h2 spread round-robin over N executors, each with a
    // client on an event loop of its own, so N connections on N loops.
    if let count = environment["COURIER_AHC_BENCH_H2_CLIENTS"].flatMap({ Int($0) }), count > 1 {
        let configurations = (0..<count).map { _ in
            APIConfiguration(
                baseURL: h2,
                executor: AsyncHTTPClientExecutor(
                    configuration: settings, eventLoopGroup: HTTPClient.defaultEventLoopGroup.next(), trust: trust,
                    cookies: nil))
        }
        let next = RoundRobin()
        sides.append(
            Side(name: "courier-h2x\(count)") {
                try await endpoint.request(using: configurations[next.take() % count])
            })
    }
    return sides
}

/// A counter that many tasks take turns from.
// @unchecked Sendable: the count is read and written under the lock only.
private final class RoundRobin: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func take() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count &+= 1
        return count
    }
}

/// The CPU time the process has used so far (all threads, user and system), in seconds.
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The wall time and the process's CPU time of one block, in seconds.
func block(_ side: Side, concurrency: Int, callsPerTask: Int) async throws -> (wall: Double, cpu: Double) {
    let clock = ContinuousClock()
    let startCPU = processCPUSeconds()
    let start = clock.now
    let count = try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var count = 0
                for _ in 0..<callsPerTask { count &+= try await side.call().count }
                return count
            }
        }
        return try await group.reduce(0, &+)
    }
    guard count == concurrency * callsPerTask * fixture.count else {
        throw Failure(description: "\(side.name): wrong count")
    }
    let (seconds, attoseconds) = (clock.now - start).components
    return (Double(seconds) + Double(attoseconds) / 1e18, processCPUSeconds() - startCPU)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func format(_ seconds: Double) -> String {
    seconds >= 1e-3 ? String(format: "%.3g ms", seconds * 1e3) : String(format: "%.3g µs", seconds * 1e6)
}

/// The whole run, in a task (see the end of the file).
func run(endpoint: GET<Void>) async throws {
    let settings = try options()
    let directory = URL(fileURLWithPath: settings.docroot).appendingPathComponent("users/octocat")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let fixtureData = try encoder.encode(fixture)
    try fixtureData.write(to: directory.appendingPathComponent("repos.json"))

    let all = sides(settings.server, endpoint: endpoint)
    for side in all {
        let value = try await side.call()
        guard value == fixture else { throw Failure(description: "\(side.name) decoded another value") }
    }
    // `--only SIDE N [--tasks T]`: no timing, N calls of one side (T tasks of N / T calls, sequential by default) after
    // warm-up calls (50 sequential ones, or T tasks of 4 calls), for callgrind: the difference between two counts of
    // instructions, one with N = 0, is the cost of N calls.
    if let index = CommandLine.arguments.firstIndex(of: "--only"), index + 2 < CommandLine.arguments.count,
        let side = all.first(where: { $0.name == CommandLine.arguments[index + 1] }),
        let count = Int(CommandLine.arguments[index + 2])
    {
        let tasks =
            CommandLine.arguments.firstIndex(of: "--tasks").flatMap { index in
                index + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[index + 1]) : nil
            } ?? 1
        if tasks <= 1 {
            for _ in 0..<(50 + count) { _ = try await side.call() }
        } else {
            _ = try await block(side, concurrency: tasks, callsPerTask: 4)
            if count > 0 { _ = try await block(side, concurrency: tasks, callsPerTask: count / tasks) }
        }
        print("\(side.name): \(count) calls in \(max(tasks, 1)) task(s) after warm-up calls")
        return
    }
    print(
        "GET \(settings.server)/users/octocat/repos.json: \(fixtureData.count) bytes of JSON, decoded into [Repository]"
    )
    print(
        "alternating in one process, \(settings.rounds) rounds after \(settings.warmup) warm-up (a random order in each round)"
    )

    /// (side, baseline) pairs reported.
    var comparisons: [(String, String)] = [
        ("courier", "raw-ahc"), ("executor", "raw-ahc"), ("courier", "executor"), ("raw-ahc-again", "raw-ahc"),
        ("courier", "raw-urlsession"), ("raw-ahc", "raw-urlsession"),
    ]
    if all.contains(where: { $0.name == "courier-h2" }) {
        comparisons += [
            ("courier-h2", "courier-h1-tls"), ("raw-ahc-h2", "raw-ahc-h1-tls"), ("courier-h2", "raw-ahc-h2"),
            ("courier-h1-tls", "raw-ahc-h1-tls"),
        ]
    }
    for side in all.map(\.name) {
        if side.hasPrefix("courier-h2x") { comparisons += [(side, "courier-h1-tls"), (side, "courier-h2")] }
        if side.hasPrefix("courier-pool") {
            comparisons += [(side, "courier"), (side, "raw-ahc"), (side, "raw-urlsession")]
        }
        if side.hasPrefix("raw-ahc-pool") { comparisons.append((side, "raw-ahc")) }
    }
    var report: [String: Any] = ["bytes": fixtureData.count, "rounds": settings.rounds]
    for concurrency in [1, 32] {
        let callsPerTask = concurrency == 1 ? settings.calls : settings.callsPerTask
        let calls = concurrency * callsPerTask
        var times: [String: [Double]] = [:]
        var cpuTimes: [String: [Double]] = [:]
        for round in -settings.warmup..<settings.rounds {
            let order = all.shuffled()
            var roundTimes: [String: (wall: Double, cpu: Double)] = [:]
            for side in order {
                roundTimes[side.name] = try await block(side, concurrency: concurrency, callsPerTask: callsPerTask)
            }
            guard round >= 0 else { continue }
            for (name, time) in roundTimes {
                times[name, default: []].append(time.wall)
                cpuTimes[name, default: []].append(time.cpu)
            }
        }
        print("\nconcurrency \(concurrency): \(calls) calls per block")
        for side in all {
            let perCall = median(times[side.name] ?? []) / Double(calls)
            let cpuPerCall = median(cpuTimes[side.name] ?? []) / Double(calls)
            report["c\(concurrency).\(side.name).cpuPerCall"] = cpuPerCall
            print(
                "  \(side.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(format(perCall))/call, \(Int((1 / perCall).rounded())) calls/s (median block), CPU \(format(cpuPerCall))/call"
            )
            report["c\(concurrency).\(side.name).perCall"] = perCall
        }
        for (side, baseline) in comparisons {
            let cpuRatios = zip(cpuTimes[baseline] ?? [], cpuTimes[side] ?? []).map { $0 / $1 }
            print(
                String(
                    format: "  %@ / %@: %.3f× CPU efficiency (median of %d rounds; range %.2f–%.2f)", side, baseline,
                    median(cpuRatios), cpuRatios.count, cpuRatios.min() ?? .nan, cpuRatios.max() ?? .nan))
            report["c\(concurrency).\(side)/\(baseline).cpu"] = [
                "median": median(cpuRatios), "min": cpuRatios.min() ?? .nan, "max": cpuRatios.max() ?? .nan,
            ]
            let ratios = zip(times[baseline] ?? [], times[side] ?? []).map { $0 / $1 }
            let line = String(
                format: "  %@ / %@: %.3f× throughput (median of %d rounds; range %.2f–%.2f)", side, baseline,
                median(ratios),
                ratios.count, ratios.min() ?? .nan, ratios.max() ?? .nan)
            print(line)
            report["c\(concurrency).\(side)/\(baseline)"] = [
                "median": median(ratios), "min": ratios.min() ?? .nan, "max": ratios.max() ?? .nan,
            ]
        }
    }
    if let path = ProcessInfo.processInfo.environment["COURIER_AHC_BENCH_JSON"] {
        let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }
}

// No top-level `await`: that would make this an async main, which parks the main thread in `dispatch_main()`, and
// valgrind 3.19 crashes there (as for CourierE2E), which would rule out callgrind (`--only`). The main thread reads
// the `@MainActor` address book, starts the run in a task and waits on a semaphore.
let endpoint = Book.$repos
Task.detached {
    do {
        try await run(endpoint: endpoint)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("CourierAHCBench: \(error)\n".utf8))
        exit(1)
    }
}
DispatchSemaphore(value: 0).wait()
