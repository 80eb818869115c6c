// CourierUploads: a large multipart upload over loopback to the upload sink (scripts/servers/sinkserver.py), three ways in
// one process, alternating in rounds: Courier (`encoding: .multipart` with a file part, over
// URLSessionExecutor.shared), raw URLSession (an upload task of the same form, written to a file beforehand, outside
// the timing) and curl (`curl -F file=@… URL`, a child process). Every round runs the three back to back, in forward
// order in even rounds and reverse order in odd ones, and gives the ratios of Courier's throughput to each
// baseline's; the figures are the medians of those per-round ratios. Each side's upload is checked by the sink's
// SHA-256 of the file part. Memory: before each Courier and raw upload the peak-RSS mark is reset
// (`/proc/self/clear_refs`, 5), so the peak after it minus the resident size before it is that upload's growth.
//
//   CourierUploads --url http://127.0.0.1:P [--megabytes 1024] [--rounds 5] [--warmup 1] [--json FILE]
//
// `scripts/bench uploads` starts the sink and runs it.
import Courier
import CourierBenchmarkSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Options {
    var url: URL?
    var megabytes = 1024
    var rounds = 5
    var warmup = 1
    var json: String?
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        switch argument {
        case "--url": options.url = arguments.popFirst().flatMap(URL.init(string:))
        case "--megabytes": options.megabytes = arguments.popFirst().flatMap { Int($0) } ?? options.megabytes
        case "--rounds": options.rounds = arguments.popFirst().flatMap { Int($0) } ?? options.rounds
        case "--warmup": options.warmup = arguments.popFirst().flatMap { Int($0) } ?? options.warmup
        case "--json": options.json = arguments.popFirst()
        default:
            FileHandle.standardError.write(
                Data("usage: CourierUploads --url URL [--megabytes N] [--rounds N] [--warmup N] [--json FILE]\n".utf8))
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
    var rssGrowthBytes: Int?
}

/// What the sink says about a multipart upload.
struct SinkReport: Decodable {
    struct Part: Decodable {
        var name: String
        var bytes: Int
        var sha256: String
    }
    var parts: [Part]?
}

struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// Runs a command and returns its standard output.
func run(_ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw Failure(description: "\(arguments[0]) failed") }
    return data
}

/// A file of `megabytes` MiB of random bytes (each MiB differs) and its SHA-256.
func makeFile(in folder: URL, megabytes: Int) throws -> (URL, String) {
    let url = folder.appendingPathComponent("upload.bin")
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw Failure(description: "create") }
    let handle = try FileHandle(forWritingTo: url)
    var block = (0..<1_048_576).map { _ in UInt8.random(in: 0...255) }
    for mebibyte in 0..<megabytes {
        withUnsafeBytes(of: UInt64(mebibyte).bigEndian) { block.replaceSubrange(0..<8, with: $0) }
        try handle.write(contentsOf: block)
    }
    try handle.close()
    let digest = String(decoding: try run(["sha256sum", url.path]), as: UTF8.self).prefix(64)
    return (url, String(digest))
}

/// The same form Courier sends (a `note` field and the file), written to a file for the raw upload task.
func writeForm(file: URL, boundary: String, to destination: URL) throws {
    guard FileManager.default.createFile(atPath: destination.path, contents: nil) else {
        throw Failure(description: "create form")
    }
    let output = try FileHandle(forWritingTo: destination)
    let head =
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nbench\r\n"
        + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"upload.bin\"\r\n"
        + "Content-Type: application/octet-stream\r\n\r\n"
    try output.write(contentsOf: Data(head.utf8))
    let input = try FileHandle(forReadingFrom: file)
    while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
    try input.close()
    try output.write(contentsOf: Data("\r\n--\(boundary)--\r\n".utf8))
    try output.close()
}

let rawSession = URLSession(configuration: .default)

func rawUpload(_ url: URL, form: URL, boundary: String) async throws -> Data {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
    request.timeoutInterval = 600
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
        let task = rawSession.uploadTask(with: request, fromFile: form) { data, response, error in
            if let error { return continuation.resume(throwing: error) }
            guard let data, (response as? HTTPURLResponse)?.statusCode == 200 else {
                return continuation.resume(throwing: URLError(.badServerResponse))
            }
            continuation.resume(returning: data)
        }
        task.resume()
    }
}

func check(_ answer: Data, digest: String, side: Side) throws {
    let report = try JSONDecoder().decode(SinkReport.self, from: answer)
    guard let part = report.parts?.first(where: { $0.name == "file" }), part.sha256 == digest else {
        throw Failure(description: "\(side.rawValue): the sink did not receive the file intact")
    }
}

let options = parseOptions()
guard let base = options.url else {
    FileHandle.standardError.write(Data("CourierUploads: --url is required\n".utf8))
    exit(2)
}
let target = base.appendingPathComponent("sink-multipart")
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-uploads-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let (file, digest) = try makeFile(in: folder, megabytes: options.megabytes)
let boundary = "courier-bench-\(UUID().uuidString)"
let form = folder.appendingPathComponent("form.bin")
try writeForm(file: file, boundary: boundary, to: form)
let upload = POST<URL>(target.absoluteString, encoding: .multipart) { ["note": "bench", "file": .file($0)] }
let configuration = APIConfiguration(timeout: .seconds(600), executor: URLSessionExecutor.shared)

func measure(_ side: Side) async throws -> Measure {
    Measuring.resetPeak()
    let before = Measuring.memory("VmRSS")
    let clock = ContinuousClock()
    let start = clock.now
    let answer: Data
    switch side {
    case .courier: answer = try await upload.request(with: file, using: configuration)
    case .raw: answer = try await rawUpload(target, form: form, boundary: boundary)
    case .curl:
        answer = try run(["curl", "-s", "-f", "-F", "note=bench", "-F", "file=@\(file.path)", target.absoluteString])
    }
    let elapsed = Measuring.seconds(clock.now - start)
    try check(answer, digest: digest, side: side)
    var growth: Int?
    if side != .curl, let peak = Measuring.memory("VmHWM"), let before { growth = peak - before }
    return Measure(seconds: elapsed, rssGrowthBytes: growth)
}

var measures: [Side: [Measure]] = [:]
var overCurl: [Double] = []
var overRaw: [Double] = []
let idle = Measuring.memory("VmRSS") ?? 0
for round in 0..<(options.warmup + options.rounds) {
    let order = round % 2 == 0 ? Side.allCases : Side.allCases.reversed()
    var times: [Side: Measure] = [:]
    for side in order { times[side] = try await measure(side) }
    guard round >= options.warmup, let courier = times[.courier], let raw = times[.raw], let curl = times[.curl] else {
        print("warm-up round \(round + 1) done")
        continue
    }
    for (side, value) in times { measures[side, default: []].append(value) }
    overCurl.append(curl.seconds / courier.seconds)
    overRaw.append(raw.seconds / courier.seconds)
    print(
        String(
            format: "round %d: courier %.2f s (+%d MiB RSS), raw %.2f s, curl %.2f s; ×curl %.3f, ×raw %.3f",
            round + 1 - options.warmup, courier.seconds, (courier.rssGrowthBytes ?? 0) >> 20, raw.seconds,
            curl.seconds, overCurl.last ?? 0, overRaw.last ?? 0))
}

let bytes = options.megabytes * 1_048_576
print("\n\(bytes)-byte file in a multipart form, \(options.rounds) rounds after \(options.warmup) warm-up")
for side in Side.allCases {
    let all = measures[side] ?? []
    let time = Measuring.median(all.map(\.seconds))
    let peak = all.compactMap(\.rssGrowthBytes).max().map { "\($0 >> 20) MiB" } ?? "-"
    print(
        String(
            format: "%@: median %.2f s, %.0f MiB/s, max RSS growth %@", side.rawValue, time,
            Double(bytes) / 1_048_576 / time, peak))
}
print(
    String(
        format: "Courier / curl throughput: median %.3f× (%.3f–%.3f)", Measuring.median(overCurl), overCurl.min() ?? 0,
        overCurl.max() ?? 0))
print(
    String(
        format: "Courier / raw URLSession upload task: median %.3f× (%.3f–%.3f)", Measuring.median(overRaw),
        overRaw.min() ?? 0,
        overRaw.max() ?? 0))
print("idle RSS before the first upload: \(idle >> 20) MiB")
if let json = options.json {
    struct Report: Codable {
        var bytes: Int
        var rounds: Int
        var measures: [String: [Measure]]
        var courierOverCurl: [Double]
        var courierOverRaw: [Double]
    }
    let report = Report(
        bytes: bytes, rounds: options.rounds,
        measures: Dictionary(uniqueKeysWithValues: measures.map { ($0.key.rawValue, $0.value) }),
        courierOverCurl: overCurl, courierOverRaw: overRaw)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(report).write(to: URL(fileURLWithPath: json))
}
