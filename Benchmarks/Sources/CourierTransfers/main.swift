// CourierTransfers: a large download over loopback from nginx, three ways in one process, alternating in rounds:
// Courier (`$endpoint.download(with:to:)` over URLSessionExecutor.shared), raw URLSession (a download task with
// a completion handler, its file moved into place) and curl (`curl -s -o FILE URL`, a child process). Every
// round runs the three back to back, in forward order in even rounds and in reverse order in odd ones, and gives
// the ratios of Courier's throughput to each baseline's; the figures are the medians of those per-round ratios.
// Memory: before each Courier and raw download the process's peak-RSS mark is reset (`/proc/self/clear_refs`,
// 5), so the peak after it minus the resident size before it is that download's growth.
//
//   CourierTransfers --url http://127.0.0.1:P/big.bin [--rounds 7] [--warmup 1] [--json FILE]
//   CourierTransfers --url … --only courier|raw|curl [--rounds N]   one side in a loop, for a profiler
//
// `scripts/bench transfers` starts nginx with the generated file (scripts/transfers.sh) and runs it.
import Courier
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
    case courier, raw, curl
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
    case .courier:
        let endpoint = GET<Void>(url.absoluteString)
        let configuration = APIConfiguration(timeout: .seconds(600), executor: URLSessionExecutor.shared)
        try await endpoint.download(to: destination, resume: false, using: configuration)
    case .raw:
        try await rawDownload(url, to: destination)
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
    var courierOverCurl: [Double]
    var courierOverRaw: [Double]
    var cpuCourierOverRaw: [Double]
}

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

var measures: [Side: [Measure]] = [:]
var overCurl: [Double] = []
var overRaw: [Double] = []
var cpuOverRaw: [Double] = []
for round in 0..<(options.warmup + options.rounds) {
    let order = round % 2 == 0 ? Side.allCases : Side.allCases.reversed()
    var times: [Side: Measure] = [:]
    for side in order { times[side] = try await run(side, url: url, folder: folder) }
    guard round >= options.warmup, let courier = times[.courier], let raw = times[.raw], let curl = times[.curl] else {
        print("warm-up round \(round + 1) done")
        continue
    }
    for (side, measure) in times { measures[side, default: []].append(measure) }
    // Throughput ratio: the baseline's time over Courier's.
    overCurl.append(curl.seconds / courier.seconds)
    overRaw.append(raw.seconds / courier.seconds)
    cpuOverRaw.append(courier.cpuSeconds / raw.cpuSeconds)
    let mb = Double(courier.bytes) / 1_048_576
    let line = String(
        format: "round %d: courier %.2f s (%.0f MiB/s, +%d MiB RSS, CPU %.2f s), raw %.2f s (CPU %.2f s), "
            + "curl %.2f s (CPU %.2f s); ×curl %.3f, ×raw %.3f",
        round + 1 - options.warmup, courier.seconds, mb / courier.seconds, (courier.rssGrowthBytes ?? 0) >> 20,
        courier.cpuSeconds, raw.seconds, raw.cpuSeconds, curl.seconds, curl.cpuSeconds, overCurl.last ?? 0,
        overRaw.last ?? 0)
    print(line)
}

let bytes = measures[.courier]?.first?.bytes ?? 0
func summary(_ side: Side, _ all: [Measure], bytes: Int) -> String {
    let time = Measuring.median(all.map(\.seconds))
    let peak = all.compactMap(\.rssGrowthBytes).max().map { "\($0 >> 20) MiB" } ?? "-"
    return String(
        format: "%@: median %.2f s, %.0f MiB/s, median CPU %.2f s, max RSS growth %@", side.rawValue, time,
        Double(bytes) / 1_048_576 / time, Measuring.median(all.map(\.cpuSeconds)), peak)
}
print("\n\(bytes) bytes, \(options.rounds) rounds after \(options.warmup) warm-up")
for side in Side.allCases { print(summary(side, measures[side] ?? [], bytes: bytes)) }
print(
    String(
        format: "Courier / curl throughput: median %.3f× (%.3f–%.3f)", Measuring.median(overCurl), overCurl.min() ?? 0,
        overCurl.max() ?? 0))
print(
    String(
        format: "Courier / raw URLSession download task: median %.3f× (%.3f–%.3f)", Measuring.median(overRaw),
        overRaw.min() ?? 0,
        overRaw.max() ?? 0))
print(
    String(
        format: "CPU time, Courier / raw: median %.3f× (%.3f–%.3f)", Measuring.median(cpuOverRaw),
        cpuOverRaw.min() ?? 0,
        cpuOverRaw.max() ?? 0))
if let json = options.json {
    let report = Report(
        bytes: bytes, rounds: options.rounds,
        measures: Dictionary(uniqueKeysWithValues: measures.map { ($0.key.rawValue, $0.value) }),
        courierOverCurl: overCurl, courierOverRaw: overRaw, cpuCourierOverRaw: cpuOverRaw)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(report).write(to: URL(fileURLWithPath: json))
}
