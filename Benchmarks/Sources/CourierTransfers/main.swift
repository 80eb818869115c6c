// CourierTransfers: a large download over loopback from nginx, five ways in one process, alternating in rounds:
// Courier (`$endpoint.download(with:to:)`) over URLSessionExecutor.shared and over AsyncHTTPClientExecutor(), raw
// URLSession (a download task with a completion handler, its file moved into place), raw AsyncHTTPClient
// (`HTTPClient.shared` with its `FileDownloadDelegate`) and curl (`curl -s -o FILE URL`, a child process). Every
// round runs the five back to back, in forward order in even rounds and in reverse order in odd ones, and gives
// the ratios of each Courier side's throughput to the baselines'; the figures are the medians of those per-round
// ratios. Memory: before each in-process download the process's peak-RSS mark is reset
// (`/proc/self/clear_refs`, 5), so the peak after it minus the resident size before it is that download's growth.
//
//   CourierTransfers --url http://127.0.0.1:P/big.bin [--rounds 7] [--warmup 1] [--json FILE]
//   CourierTransfers --url … --only courier|courier-ahc|raw|raw-ahc|curl [--rounds N]   one side in a loop
//
// `scripts/bench transfers` starts nginx with the generated file (scripts/servers.sh) and runs it.
import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierBenchmarkSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Options {
    var url: URL?
    var rounds = 7
    var warmup = 1
    var json: String?
    var only: Side?
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        switch argument {
        case "--url": options.url = arguments.popFirst().flatMap(URL.init(string:))
        case "--rounds": options.rounds = arguments.popFirst().flatMap { Int($0) } ?? options.rounds
        case "--warmup": options.warmup = arguments.popFirst().flatMap { Int($0) } ?? options.warmup
        case "--json": options.json = arguments.popFirst()
        case "--only": options.only = arguments.popFirst().flatMap(Side.init(rawValue:))
        default:
            FileHandle.standardError.write(
                Data("usage: CourierTransfers --url URL [--rounds N] [--warmup N] [--json FILE]\n".utf8))
            exit(2)
        }
    }
    return options
}

enum Side: String, CaseIterable, Codable {
    case courier
    case courierAHC = "courier-ahc"
    case raw
    case rawAHC = "raw-ahc"
    case curl
}

struct Measure: Codable {
    var seconds: Double
    var bytes: Int
    var rssGrowthBytes: Int?
    /// User + system CPU time: this process's for Courier and raw (libcurl's threads included), the child's for
    /// curl. Less sensitive than wall time to other work on a shared machine.
    var cpuSeconds: Double
}

/// User + system CPU seconds of this process (`RUSAGE_SELF`) or of its waited-for children.
func cpuTime(children: Bool) -> Double {
    var usage = rusage()
    #if os(Linux)
        let who = children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue
        _ = getrusage(__rusage_who_t(who), &usage)
    #else
        _ = getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func size(of path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0
}

let rawSession = URLSession(configuration: .default)

func rawDownload(_ url: URL, to destination: URL) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let task = rawSession.downloadTask(with: url) { file, response, error in
            if let error { return continuation.resume(throwing: error) }
            guard let file, (response as? HTTPURLResponse)?.statusCode == 200 else {
                return continuation.resume(throwing: URLError(.badServerResponse))
            }
            do {
                try FileManager.default.moveItem(at: file, to: destination)
                continuation.resume()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        task.resume()
    }
}

/// The download written with AsyncHTTPClient alone: its own file-writing delegate, a status check.
func rawAHCDownload(_ url: URL, to destination: URL) async throws {
    let request = try HTTPClient.Request(url: url)
    let delegate = try FileDownloadDelegate(path: destination.path)
    let progress = try await HTTPClient.shared.execute(request: request, delegate: delegate).futureResult.get()
    guard progress.head.status.code == 200 else { throw URLError(.badServerResponse) }
}

func curlDownload(_ url: URL, to destination: URL) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["curl", "-s", "-f", "-o", destination.path, url.absoluteString]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw URLError(.badServerResponse) }
}

func run(_ side: Side, url: URL, folder: URL) async throws -> Measure {
    let destination = folder.appendingPathComponent("\(side.rawValue).bin")
    try? FileManager.default.removeItem(at: destination)
    defer { try? FileManager.default.removeItem(at: destination) }
    Measuring.resetPeak()
    let before = Measuring.memory("VmRSS")
    let clock = ContinuousClock()
    let cpuBefore = cpuTime(children: side == .curl)
    let start = clock.now
    switch side {
    case .courier, .courierAHC:
        let executor: any APIExecutor = side == .courier ? URLSessionExecutor.shared : AsyncHTTPClientExecutor()
        let configuration = APIConfiguration(timeout: .seconds(600), executor: executor)
        try await GET<Void>(url.absoluteString).download(to: destination, resume: false, using: configuration)
    case .raw:
        try await rawDownload(url, to: destination)
    case .rawAHC:
        try await rawAHCDownload(url, to: destination)
    case .curl:
        try curlDownload(url, to: destination)
    }
    let elapsed = Measuring.seconds(clock.now - start)
    let cpu = cpuTime(children: side == .curl) - cpuBefore
    var growth: Int?
    if side != .curl, let peak = Measuring.memory("VmHWM"), let before { growth = peak - before }
    return Measure(seconds: elapsed, bytes: size(of: destination.path), rssGrowthBytes: growth, cpuSeconds: cpu)
}

struct Report: Codable {
    var bytes: Int
    var rounds: Int
    var measures: [String: [Measure]]
    /// For each comparison ("courier/curl", "courier-ahc/raw-ahc", …), the per-round throughput ratios.
    var throughput: [String: [Double]]
    /// For each comparison, the per-round ratios of the baseline's CPU time to the side's (above 1: the side
    /// uses less).
    var cpuEfficiency: [String: [Double]]
}

/// (side, baseline) pairs reported.
let comparisons: [(Side, Side)] = [
    (.courier, .curl), (.courier, .raw), (.courierAHC, .curl), (.courierAHC, .raw), (.courierAHC, .rawAHC),
    (.rawAHC, .curl),
]

let options = parseOptions()
guard let url = options.url else {
    FileHandle.standardError.write(Data("CourierTransfers: --url is required\n".utf8))
    exit(2)
}
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-transfers-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

if let side = options.only {
    for _ in 0..<options.rounds {
        let measure = try await run(side, url: url, folder: folder)
        print(String(format: "%@: %.2f s, %d bytes", side.rawValue, measure.seconds, measure.bytes))
    }
    exit(0)
}

func label(_ pair: (Side, Side)) -> String { "\(pair.0.rawValue)/\(pair.1.rawValue)" }

var measures: [Side: [Measure]] = [:]
var throughput: [String: [Double]] = [:]
var cpuEfficiency: [String: [Double]] = [:]
for round in 0..<(options.warmup + options.rounds) {
    let order = round % 2 == 0 ? Side.allCases : Side.allCases.reversed()
    var times: [Side: Measure] = [:]
    for side in order { times[side] = try await run(side, url: url, folder: folder) }
    guard round >= options.warmup else {
        print("warm-up round \(round + 1) done")
        continue
    }
    for (side, measure) in times { measures[side, default: []].append(measure) }
    var line = "round \(round + 1 - options.warmup):"
    for side in Side.allCases {
        guard let measure = times[side] else { continue }
        let rss = measure.rssGrowthBytes.map { String(format: ", +%d MiB RSS", max(0, $0) >> 20) } ?? ""
        line += String(format: " %@ %.2f s (CPU %.2f s%@);", side.rawValue, measure.seconds, measure.cpuSeconds, rss)
    }
    for pair in comparisons {
        guard let side = times[pair.0], let baseline = times[pair.1] else { continue }
        // Throughput ratio: the baseline's time over the side's.
        throughput[label(pair), default: []].append(baseline.seconds / side.seconds)
        cpuEfficiency[label(pair), default: []].append(baseline.cpuSeconds / side.cpuSeconds)
    }
    print(line)
}

let bytes = measures[.courier]?.first?.bytes ?? 0
func summary(_ side: Side, _ all: [Measure], bytes: Int) -> String {
    let time = Measuring.median(all.map(\.seconds))
    let peak = all.compactMap(\.rssGrowthBytes).max().map { "\(max(0, $0) >> 20) MiB" } ?? "-"
    return String(
        format: "%@: median %.2f s, %.0f MiB/s, median CPU %.2f s, max RSS growth %@", side.rawValue, time,
        Double(bytes) / 1_048_576 / time, Measuring.median(all.map(\.cpuSeconds)), peak)
}
print("\n\(bytes) bytes, \(options.rounds) rounds after \(options.warmup) warm-up")
for side in Side.allCases { print(summary(side, measures[side] ?? [], bytes: bytes)) }
for pair in comparisons {
    let ratios = throughput[label(pair)] ?? []
    let cpu = cpuEfficiency[label(pair)] ?? []
    print(
        String(
            format: "%@: throughput median %.3f× (%.3f–%.3f), CPU efficiency median %.3f×", label(pair),
            Measuring.median(ratios), ratios.min() ?? 0, ratios.max() ?? 0, Measuring.median(cpu)))
}
if let json = options.json {
    let report = Report(
        bytes: bytes, rounds: options.rounds,
        measures: Dictionary(uniqueKeysWithValues: measures.map { ($0.key.rawValue, $0.value) }),
        throughput: throughput, cpuEfficiency: cpuEfficiency)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(report).write(to: URL(fileURLWithPath: json))
}
