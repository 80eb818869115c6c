import Courier
import CourierBenchmarkSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Courier against raw `URLSession.data(for:)`, end to end over loopback, measured by alternation in one process.
///
/// The server (nginx, started by `scripts/bench`) serves a 2 KB JSON array of repositories; every side GETs it
/// and decodes it into `[Repository]`. The baseline, `raw`, is the call written without Courier: a
/// `URLSession(configuration: .default)`, `data(for: URLRequest(url:))`, a status check and
/// `JSONDecoder().decode`. The other sides are Courier's `$repos.request(with:using:)`:
///
/// - `courier`: the default configuration's executor, `URLSessionExecutor.shared`;
/// - `courier-3-plugins`: the same with three plugins that do nothing;
/// - `courier-data-for`: over `DataForExecutor`, which only calls `data(for:)` on a session of its own
///   (`courier` / `courier-data-for` is the executor's cost, `courier-data-for` / `raw` the pipeline's);
/// - `raw-again`: raw again, on a session of its own: a control that should come out at 1×, and whose spread is
///   the noise of the machine;
/// - `courier-given-session` (not run unless asked for): `URLSessionExecutor(session:)` over a default session.
/// - `courier-retry` and `courier-retry-governor` (not run unless asked for): through `.retry()`, and through
///   `.retry()` and a `TrafficGovernor` at its defaults (`courier-retry-governor` / `courier-retry` is what the
///   governor costs a call);
/// - `executor` (not run unless asked for): `URLSessionExecutor.shared` alone, sending a request built once and
///   decoding with `JSONDecoder().decode` like raw (`executor` / `raw` is the executor's cost without the pipeline).
///
/// Each side has its own session, configured alike (the default configuration). Before measuring, every side
/// must decode the same value as `raw`, and that value must be the fixture. Then, for each concurrency, after
/// warm-up rounds that are not recorded, every round times one block of `raw` and one block of each side
/// back to back, raw first in even rounds and last in odd ones (ABBA, so that a slow drift of the machine
/// favours neither), the sides in an order that rotates each round. A block is `calls` sequential calls at
/// concurrency 1, or `concurrency` tasks of `callsPerTask` calls each. A round's ratio is raw's block time over
/// the side's: throughput relative to raw, above 1 when the side is faster. The figure is the median of the
/// per-round ratios, with their minimum and maximum: noise from other processes hits a block of each side
/// within the same fraction of a second, and a burst that spoils one round moves the median little.
enum EndToEnd {
    struct Options {
        var server: URL?
        var docroot: String?
        var concurrencies = [1, 32]
        var rounds = 31
        var warmupRounds = 3
        var sides = ["courier", "courier-3-plugins", "courier-data-for", "raw-again"]
        var calls = 50
        var callsPerTask = 4
        var json: String?
        var only: String?
        var onlyCalls = 1_000
        var onlyWarmup = 50
    }

    static let usage = """
        usage: CourierE2E [SERVER URL] [options]

          --concurrency 1,32        concurrencies to measure, in order (default 1,32)
          --rounds N                recorded rounds per concurrency (default 31), after
          --warmup N                warm-up rounds that are not recorded (default 3)
          --sides a,b,...           sides compared with raw, in this order (default
                                    courier,courier-3-plugins,courier-data-for,raw-again; also courier-given-session,
                                    courier-retry, courier-retry-governor, executor)
          --calls N                 calls per block at concurrency 1 (default 50)
          --calls-per-task N        calls per task per block at higher concurrency (default 4)
          --json FILE               also write every block's time to FILE (read by Benchmarks/scripts/bench_report.py)

          --only SIDE [--only-calls N] [--only-warmup N]
                                    no timing: N (default 1,000) sequential calls of one side (raw or any side)
                                    after the warm-up calls (default 50), for valgrind --tool=callgrind

        SERVER URL defaults to $COURIER_BENCH_SERVER; with $COURIER_BENCH_DOCROOT set, the fixture is first
        written there as users/octocat/repos.json.
        """

    /// One kind of call.
    struct Side: Sendable {
        let name: String
        let call: @Sendable () async throws -> [Repository]
    }

    static func main(_ arguments: [String], endpoints: Endpoints) async throws {
        let options = try parse(arguments)
        guard let server = options.server else { throw Failure("no server URL\n\n\(usage)") }
        if let docroot = options.docroot {
            let directory = URL(fileURLWithPath: docroot).appendingPathComponent("users/octocat")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Fixtures.small.write(to: directory.appendingPathComponent("repos.json"))
        }
        let url = server.appendingPathComponent("users/octocat/repos.json")
        let raw = rawSide(url)
        let all = try courierSides(server, endpoints.repos) + [rawSide(url, name: "raw-again")]

        if let only = options.only {
            guard let side = ([raw] + all).first(where: { $0.name == only }) else {
                throw Failure("unknown side \(only); sides: raw, \(all.map(\.name).joined(separator: ", "))")
            }
            var checksum = 0
            for _ in 0..<options.onlyWarmup { checksum &+= try await side.call().count }
            for _ in 0..<options.onlyCalls { checksum &+= try await side.call().count }
            print("\(only): \(options.onlyWarmup) warm-up calls, \(options.onlyCalls) calls, checksum \(checksum)")
            return
        }

        let sides = try options.sides.map { name in
            guard let side = all.first(where: { $0.name == name }) else {
                throw Failure("unknown side \(name); sides: \(all.map(\.name).joined(separator: ", "))")
            }
            return side
        }
        try await checkSameValues(raw: raw, sides: sides)

        print(
            """
            Courier vs raw URLSession.data(for:) + JSONDecoder, end to end: GET \(url.absoluteString) \
            (\(Fixtures.small.count) bytes of JSON, decoded into [Repository]).
            Alternating in one process: each round times a block of raw and a block of the side back to back \
            (ABBA order), \(options.rounds) rounds after \(options.warmupRounds) warm-up; ratio = raw time / side \
            time (throughput vs raw, > 1 = faster), the median of the per-round ratios (min–max).
            """
        )
        var results: [Result] = []
        for concurrency in options.concurrencies {
            let calls = concurrency == 1 ? options.calls : concurrency * options.callsPerTask
            let measured = try await alternate(
                raw: raw, sides: sides, concurrency: concurrency,
                callsPerTask: concurrency == 1 ? calls : options.callsPerTask,
                rounds: options.rounds, warmupRounds: options.warmupRounds)
            print("")
            print("concurrency \(concurrency), \(calls) calls per block:")
            for result in measured {
                print(result.line)
            }
            results += measured
        }
        if let path = options.json {
            try write(results, options: options, url: url, to: path)
        }
    }

    // MARK: - The sides

    static func rawSide(_ url: URL, name: String = "raw") -> Side {
        let session = URLSession(configuration: .default)
        return Side(name: name) {
            let (data, response) = try await session.data(for: URLRequest(url: url))
            guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
                throw URLError(.badServerResponse)
            }
            return try JSONDecoder().decode([Repository].self, from: data)
        }
    }

    static func courierSides(_ server: URL, _ repos: GET<String>) throws -> [Side] {
        let plain = APIConfiguration(baseURL: server)  // executor: URLSessionExecutor.shared
        let plugins = plain.with { $0.plugins = [NoOpPlugin(), NoOpPlugin(), NoOpPlugin()] }
        let dataFor = plain.with { $0.executor = DataForExecutor(session: URLSession(configuration: .default)) }
        let givenSession = plain.with { $0.executor = URLSessionExecutor(session: URLSession(configuration: .default)) }
        let retry = plain.with { $0.plugins = [.retry()] }
        // Made at the side's first call: once a governor exists, `.retry()` binds its gate in every call.
        let governed = Lazy { plain.with { $0.plugins = [.retry(), TrafficGovernor()] } }
        let request = try repos.makeRequest(with: "octocat", using: plain)
        return [
            Side(name: "courier") { try await repos.request(with: "octocat", using: plain) },
            Side(name: "courier-3-plugins") { try await repos.request(with: "octocat", using: plugins) },
            Side(name: "courier-data-for") { try await repos.request(with: "octocat", using: dataFor) },
            Side(name: "courier-given-session") { try await repos.request(with: "octocat", using: givenSession) },
            Side(name: "courier-retry") { try await repos.request(with: "octocat", using: retry) },
            Side(name: "courier-retry-governor") { try await repos.request(with: "octocat", using: governed.value) },
            Side(name: "executor") {
                let response = try await URLSessionExecutor.shared.execute(request)
                guard (200..<300).contains(response.statusCode) else { throw URLError(.badServerResponse) }
                return try JSONDecoder().decode([Repository].self, from: response.data)
            },
        ]
    }

    /// Comparing the sides means nothing unless they do the same work: each must decode the fixture.
    static func checkSameValues(raw: Side, sides: [Side]) async throws {
        let expected = try JSONDecoder().decode([Repository].self, from: Fixtures.small)
        let viaRaw = try await raw.call()
        guard viaRaw == expected, !expected.isEmpty else {
            throw Failure("raw URLSession did not decode the fixture: is the server serving it?")
        }
        for side in sides {
            guard try await side.call() == viaRaw else {
                throw Failure("\(side.name) and raw URLSession decoded different values")
            }
        }
    }

    // MARK: - Measuring

    struct Result {
        let concurrency: Int
        let side: String
        let calls: Int
        var rawSeconds: [Double] = []
        var sideSeconds: [Double] = []
        var rawCPUSeconds: [Double] = []
        var sideCPUSeconds: [Double] = []

        var ratios: [Double] { zip(rawSeconds, sideSeconds).map { $0 / $1 } }
        var cpuRatios: [Double] { zip(rawCPUSeconds, sideCPUSeconds).map { $0 / $1 } }

        var line: String {
            let ratios = ratios
            let perCall = { (seconds: [Double]) in "\(Int((median(seconds) / Double(calls) * 1e6).rounded())) µs/call" }
            return "  e2e.c\(concurrency) \(side.padding(toLength: 22, withPad: " ", startingAt: 0)) "
                + "\(format(median(ratios), 3))×  (\(format(ratios.min() ?? 0, 2))–\(format(ratios.max() ?? 0, 2)), "
                + "\(ratios.count) rounds)  raw \(perCall(rawSeconds)), \(side) \(perCall(sideSeconds)); "
                + "CPU time \(format(median(cpuRatios), 3))× (\(format(cpuRatios.min() ?? 0, 2))–"
                + "\(format(cpuRatios.max() ?? 0, 2)))"
        }
    }

    static func alternate(
        raw: Side,
        sides: [Side],
        concurrency: Int,
        callsPerTask: Int,
        rounds: Int,
        warmupRounds: Int
    ) async throws -> [Result] {
        let calls = concurrency == 1 ? callsPerTask : concurrency * callsPerTask
        var results = sides.map { Result(concurrency: concurrency, side: $0.name, calls: calls) }
        for round in -warmupRounds..<rounds {
            let rawFirst = round % 2 == 0
            for offset in sides.indices {
                let index = (offset + max(0, round)) % sides.count
                let first = try await block(rawFirst ? raw : sides[index], concurrency, callsPerTask)
                let second = try await block(rawFirst ? sides[index] : raw, concurrency, callsPerTask)
                guard round >= 0 else { continue }
                let (rawTimes, sideTimes) = rawFirst ? (first, second) : (second, first)
                results[index].rawSeconds.append(rawTimes.wall)
                results[index].sideSeconds.append(sideTimes.wall)
                results[index].rawCPUSeconds.append(rawTimes.cpu)
                results[index].sideCPUSeconds.append(sideTimes.cpu)
            }
        }
        return results
    }

    /// The wall-clock time and the CPU time of the whole process (every thread, libcurl's too) of one block:
    /// `callsPerTask` sequential calls, in `concurrency` tasks at once above 1.
    static func block(
        _ side: Side,
        _ concurrency: Int,
        _ callsPerTask: Int
    ) async throws -> (wall: Double, cpu: Double) {
        let clock = ContinuousClock()
        let startCPU = processCPUSeconds()
        let start = clock.now
        var checksum = 0
        if concurrency == 1 {
            for _ in 0..<callsPerTask { checksum &+= try await side.call().count }
        } else {
            checksum = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        var count = 0
                        for _ in 0..<callsPerTask { count &+= try await side.call().count }
                        return count
                    }
                }
                return try await group.reduce(0, &+)
            }
        }
        let elapsed = clock.now - start
        let cpu = processCPUSeconds() - startCPU
        guard checksum > 0 else { throw Failure("\(side.name) returned nothing") }
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, cpu)
    }

    /// The CPU time the process has used so far, user and system, all threads.
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    // MARK: - Output

    static func write(_ results: [Result], options: Options, url: URL, to path: String) throws {
        let object: [String: Any] = [
            "method": "alternating blocks in one process, ABBA order; ratio = raw block time / side block time",
            "url": url.absoluteString,
            "bytes": Fixtures.small.count,
            "rounds": options.rounds,
            "warmup_rounds": options.warmupRounds,
            "results": results.map { result -> [String: Any] in
                [
                    "group": "e2e.c\(result.concurrency)",
                    "side": result.side,
                    "concurrency": result.concurrency,
                    "calls_per_block": result.calls,
                    "raw_seconds": result.rawSeconds,
                    "side_seconds": result.sideSeconds,
                    "raw_cpu_seconds": result.rawCPUSeconds,
                    "side_cpu_seconds": result.sideCPUSeconds,
                ]
            },
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    static func format(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    // MARK: - Arguments

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func parse(_ arguments: [String]) throws -> Options {
        let environment = ProcessInfo.processInfo.environment
        var options = Options()
        options.server = environment["COURIER_BENCH_SERVER"].flatMap(URL.init(string:))
        options.docroot = environment["COURIER_BENCH_DOCROOT"]
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let value = rest.popFirst() else { throw Failure("\(flag) needs a value\n\n\(usage)") }
            return value
        }
        func number(_ flag: String) throws -> Int {
            guard let number = Int(try value(flag)), number >= 0 else { throw Failure("\(flag) needs a number") }
            return number
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--concurrency":
                options.concurrencies = try value(argument).split(separator: ",").map {
                    guard let number = Int($0), number > 0 else { throw Failure("bad concurrency \($0)") }
                    return number
                }
            case "--rounds": options.rounds = max(1, try number(argument))
            case "--warmup": options.warmupRounds = try number(argument)
            case "--sides": options.sides = try value(argument).split(separator: ",").map(String.init)
            case "--calls": options.calls = max(1, try number(argument))
            case "--calls-per-task": options.callsPerTask = max(1, try number(argument))
            case "--json": options.json = try value(argument)
            case "--only": options.only = try value(argument)
            case "--only-calls": options.onlyCalls = try number(argument)
            case "--only-warmup": options.onlyWarmup = try number(argument)
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                guard !argument.hasPrefix("-"), let url = URL(string: argument) else {
                    throw Failure("unknown argument \(argument)\n\n\(usage)")
                }
                options.server = url
            }
        }
        return options
    }
}

/// A value made at its first use.
// @unchecked: `made` is read and written under `lock` only.
final class Lazy<Value: Sendable>: @unchecked Sendable {
    private let make: @Sendable () -> Value
    private let lock = NSLock()
    private var made: Value?

    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    var value: Value {
        lock.withLock {
            if let made { return made }
            let value = make()
            made = value
            return value
        }
    }
}
