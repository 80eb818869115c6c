import Courier
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes one call with Courier's default `URLSessionExecutor` and prints one line of JSON about it, including
/// the process's peak resident memory. The fault integration tests run it as a child process to bound the
/// memory a call may use (a gzip bomb, a huge body) without the test process's own allocations in the way.
///
/// With `--upload-file PATH` it POSTs that file instead (streamed from disk); with `--multipart` too, as the
/// `file` part of a multipart form after a `note` field; `responseText` then holds the answer's body.
///
/// ```
/// CourierProbe <url> [--max-response-bytes N] [--timeout SECONDS] [--download-to PATH | --stream]
///     [--upload-file PATH [--multipart]]
/// {"bytes":0,"outcome":"error","peakRSSBytes":38273024,"reason":"transport failure: the response body is larger
///  than the limit for this call","sanitizer":null,"seconds":0.41,"status":null}
/// ```
///
/// `--download-to PATH` downloads the body to a file (`$endpoint.download(with:to:)`), `--stream` reads it as a
/// stream and counts its bytes (`$endpoint.stream(with:)`); `bytes` is then the file's size or the count, and
/// `baselineRSSBytes` the resident memory just before the call.
///
/// Exits 0 whatever the call's outcome; 2 for a bad command line, 1 when the probe itself breaks.
@main
struct CourierProbe {
    struct Options {
        var url: String
        var maxResponseBytes = APIConfiguration.defaultMaxResponseBytes
        var timeout: Duration = .seconds(60)
        var downloadTo: String?
        var stream = false
        var uploadFile: String?
        var multipart = false
    }

    /// The printed line.
    struct Report: Encodable {
        var outcome: String
        var reason: String?
        var bytes: Int
        var seconds: Double
        var peakRSSBytes: Int?
        var status: Int?
        /// `"thread"` when the probe runs under ThreadSanitizer, whose shadow memory inflates the peak.
        var sanitizer: String?
        /// The resident memory just before the call.
        var baselineRSSBytes: Int?
        /// The response body as text, for uploads (the sink's report).
        var responseText: String?

        private enum CodingKeys: String, CodingKey {
            case outcome, reason, bytes, seconds, peakRSSBytes, status, sanitizer, baselineRSSBytes, responseText
        }

        /// Writes every key, `null` for a missing value, so readers need not guess.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(outcome, forKey: .outcome)
            try container.encode(reason, forKey: .reason)
            try container.encode(bytes, forKey: .bytes)
            try container.encode(seconds, forKey: .seconds)
            try container.encode(peakRSSBytes, forKey: .peakRSSBytes)
            try container.encode(status, forKey: .status)
            try container.encode(sanitizer, forKey: .sanitizer)
            try container.encode(baselineRSSBytes, forKey: .baselineRSSBytes)
            try container.encode(responseText, forKey: .responseText)
        }
    }

    static let usage =
        "usage: CourierProbe <url> [--max-response-bytes N] [--timeout SECONDS] [--download-to PATH | --stream]"
        + " [--upload-file PATH [--multipart]]"

    static func main() async {
        let options: Options
        do {
            options = try parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("CourierProbe: \(error)\n\(usage)\n".utf8))
            exit(2)
        }

        let endpoint = GET<Void>(options.url)
        let configuration = APIConfiguration(
            timeout: options.timeout,
            maxResponseBytes: options.maxResponseBytes,
            executor: URLSessionExecutor.shared
        )
        let clock = ContinuousClock()
        let baseline = residentBytes()
        let start = clock.now
        var report: Report
        do {
            if let path = options.uploadFile {
                let file = URL(fileURLWithPath: path)
                let response: APIResponse
                if options.multipart {
                    let upload = POST<URL>(options.url, encoding: .multipart) { ["note": "probe", "file": .file($0)] }
                    response = try await upload.request(with: file, using: configuration)
                } else {
                    response = try await POST<URL>(wrappedValue: .init { $0 }, options.url).request(
                        with: file, using: configuration)
                }
                report = Report(outcome: "ok", bytes: response.data.count, seconds: 0, status: response.statusCode)
                report.responseText = String(decoding: response.data, as: UTF8.self)
            } else if let path = options.downloadTo {
                let response = try await endpoint.download(
                    to: URL(fileURLWithPath: path), resume: false, using: configuration)
                let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
                report = Report(outcome: "ok", bytes: size?.intValue ?? 0, seconds: 0, status: response.statusCode)
            } else if options.stream {
                var count = 0
                for try await chunk in try await endpoint.stream(using: configuration) { count += chunk.count }
                report = Report(outcome: "ok", bytes: count, seconds: 0, status: 200)
            } else {
                let response: APIResponse = try await endpoint.request(using: configuration)
                report = Report(outcome: "ok", bytes: response.data.count, seconds: 0, status: response.statusCode)
            }
        } catch {
            let apiError = error as? APIError
            report = Report(
                outcome: "error",
                reason: apiError.map { String(describing: $0.reason) } ?? String(describing: error),
                bytes: apiError?.response?.data.count ?? 0,
                seconds: 0,
                status: apiError?.statusCode
            )
        }
        let elapsed = (clock.now - start).components
        report.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        report.peakRSSBytes = peakResidentBytes()
        report.baselineRSSBytes = baseline
        report.sanitizer = runsUnderThreadSanitizer() ? "thread" : nil

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let line = try? encoder.encode(report) else {
            FileHandle.standardError.write(Data("CourierProbe: cannot encode the report\n".utf8))
            exit(1)
        }
        FileHandle.standardOutput.write(line + Data("\n".utf8))
        exit(0)
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var url: String?
        var maxResponseBytes: Int?
        var timeout: Duration?
        var downloadTo: String?
        var stream = false
        var uploadFile: String?
        var multipart = false
        var index = 0
        func value(after flag: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--max-response-bytes":
                let text = try value(after: argument)
                guard let number = Int(text), number >= 0 else {
                    throw UsageError(description: "--max-response-bytes \(text) is not a byte count")
                }
                maxResponseBytes = number
            case "--timeout":
                let text = try value(after: argument)
                guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds < 86_400 else {
                    throw UsageError(description: "--timeout \(text) is not a number of seconds")
                }
                timeout = .milliseconds(Int((seconds * 1000).rounded()))
            case "--download-to":
                downloadTo = try value(after: argument)
            case "--stream":
                stream = true
            case "--upload-file":
                uploadFile = try value(after: argument)
            case "--multipart":
                multipart = true
            default:
                guard url == nil, !argument.hasPrefix("-") else {
                    throw UsageError(description: "unexpected argument \(argument)")
                }
                url = argument
            }
            index += 1
        }
        guard let url, URL(string: url)?.scheme != nil else {
            throw UsageError(description: "an absolute URL is needed")
        }
        var options = Options(url: url)
        if let maxResponseBytes { options.maxResponseBytes = maxResponseBytes }
        if let timeout { options.timeout = timeout }
        options.downloadTo = downloadTo
        options.stream = stream
        options.uploadFile = uploadFile
        options.multipart = multipart
        return options
    }

    /// The peak resident set size: `VmHWM` from `/proc/self/status` on Linux, `ru_maxrss` elsewhere.
    static func peakResidentBytes() -> Int? {
        #if os(Linux)
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
            for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                // "VmHWM:	   12345 kB"
                let fields = line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard let kilobytes = fields.first.flatMap({ Int($0) }) else { return nil }
                return kilobytes * 1024
            }
            return nil
        #else
            var usage = rusage()
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
            return Int(usage.ru_maxrss)  // bytes on Darwin
        #endif
    }

    /// The resident memory now: `VmRSS` from `/proc/self/status` on Linux; `nil` elsewhere.
    static func residentBytes() -> Int? {
        #if os(Linux)
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
            for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
                let fields = line.dropFirst("VmRSS:".count).split(whereSeparator: { $0 == " " || $0 == "\t" })
                return fields.first.flatMap { Int($0) }.map { $0 * 1024 }
            }
            return nil
        #else
            return nil
        #endif
    }

    /// Whether the ThreadSanitizer runtime is linked into this process.
    static func runsUnderThreadSanitizer() -> Bool {
        #if canImport(Darwin)
            let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
            let handle: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT on glibc
        #endif
        return dlsym(handle, "__tsan_init") != nil
    }
}
