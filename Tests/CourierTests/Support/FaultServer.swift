import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The misbehaving server that the fault integration tests talk to (`Sources/CourierTesting/Resources/faultserver.py`,
/// run by `scripts/servers.sh`).
///
/// `scripts/test` starts it beside httpbin and exports three origins of it:
/// - `COURIER_FAULT_URL`: `http://127.0.0.1:P`;
/// - `COURIER_FAULT_URL_OTHER_HOST`: `http://127.0.0.2:P`, the same server under another host;
/// - `COURIER_FAULT_URL_OTHER_PORT`: `http://127.0.0.1:Q`, the same server on another port.
///
/// Suites carry ``Testing/Trait/faultServer`` (CourierTesting's `.testEnvironment`): skipped locally without the
/// variables, failed under `CI=true`. By hand: `scripts/servers.sh serve fault` prints the `export` lines to paste
/// into the shell that runs `swift test`.
enum FaultServer {
    static let environmentKey = "COURIER_FAULT_URL"
    static let otherHostKey = "COURIER_FAULT_URL_OTHER_HOST"
    static let otherPortKey = "COURIER_FAULT_URL_OTHER_PORT"

    /// The main origin, `http://127.0.0.1:P`.
    static let main: URL? = ExecutorConformance.Servers.url(environmentKey)
    /// The same server under another host, `http://127.0.0.2:P`.
    static let otherHost: URL? = ExecutorConformance.Servers.url(otherHostKey)
    /// The same server on another port, `http://127.0.0.1:Q`.
    static let otherPort: URL? = ExecutorConformance.Servers.url(otherPortKey)

    /// `url`, or a failed requirement saying how to start the server.
    static func required(_ url: URL?, _ key: String) throws -> URL {
        try #require(url, "\(key) is not set: run scripts/test, which starts the fault server")
    }

    /// One of the server's three origins.
    enum Origin: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case main = "same origin"
        case otherHost = "other host"
        case otherPort = "other port"

        var testDescription: String { rawValue }

        /// The origin's base URL, as text without a trailing slash.
        func baseText() throws -> String {
            let url: URL? =
                switch self {
                case .main: FaultServer.main
                case .otherHost: FaultServer.otherHost
                case .otherPort: FaultServer.otherPort
                }
            var text = try FaultServer.required(url, "the fault server's \(rawValue) URL").absoluteString
            while text.hasSuffix("/") { text.removeLast() }
            return text
        }
    }

    /// The real `URLSessionExecutor` of the fault tests: a session of its own that opens up to 64 connections to a
    /// host, not URLSession's default 6. A whole suite runs in parallel against the one fault server, and many of its
    /// routes hold a connection for seconds (drips, stalls): with 6, the other calls queued behind them past their
    /// timeouts (a redirect loop made 3 hops in 10 s).
    static let executor: URLSessionExecutor = {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 64
        return URLSessionExecutor(configuration: configuration)
    }()

    /// A configuration whose base URL is the main origin, with the real `URLSessionExecutor` (``executor``).
    static func configuration(
        timeout: Duration = .seconds(10),
        headers: HTTPHeaders = [:],
        redirectPolicy: RedirectPolicy = .follow,
        maxResponseBytes: Int = APIConfiguration.defaultMaxResponseBytes,
        sensitiveNames: Set<HTTPHeaderName> = [],
        plugins: [any APIPlugin] = []
    ) throws -> APIConfiguration {
        APIConfiguration(
            baseURL: try required(main, environmentKey),
            headers: headers,
            timeout: timeout,
            redirectPolicy: redirectPolicy,
            maxResponseBytes: maxResponseBytes,
            sensitiveNames: sensitiveNames,
            executor: executor,
            plugins: plugins
        )
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite against the fault server named by `COURIER_FAULT_URL` (and its two other origins).
    static var faultServer: Self {
        .testEnvironment(
            FaultServer.environmentKey, FaultServer.otherHostKey, FaultServer.otherPortKey, setBy: "scripts/test")
    }

    /// Runs a suite that starts the test tools of `Tests/Tools` (`CourierProbe`, `CourierCacheWriter`) as child
    /// processes: `scripts/test` builds them and exports their folder as `COURIER_TOOLS_BIN`.
    static var testTools: Self { .testEnvironment(Probe.toolsKey, setBy: "scripts/test") }
}

// MARK: - Calls that must end

/// How a call bounded by ``bounded(within:_:)`` ended.
enum BoundedOutcome<Value: Sendable>: Sendable {
    case returned(Value)
    case failed(APIError)
    /// Still running at the hard limit; it was cancelled.
    case didNotEnd

    var error: APIError? {
        if case .failed(let error) = self { return error }
        return nil
    }

    var value: Value? {
        if case .returned(let value) = self { return value }
        return nil
    }
}

/// Runs `call`, but cancels it after `limit`, so that a test of a hang fails instead of hanging the run.
///
/// Returns the outcome and how long the call took (up to its end after the cancellation).
func bounded<Value: Sendable>(
    within limit: Duration,
    _ call: @escaping @Sendable () async throws(APIError) -> Value
) async -> (outcome: BoundedOutcome<Value>, elapsed: Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let finished = LockedBox(false)
    let cutOff = LockedBox(false)
    let task = Task { () async -> BoundedOutcome<Value> in
        let outcome: BoundedOutcome<Value>
        do throws(APIError) {
            outcome = .returned(try await call())
        } catch {
            outcome = .failed(error)
        }
        finished.withLock { $0 = true }
        return outcome
    }
    let watchdog = Task {
        try? await Task.sleep(for: limit)
        guard !Task.isCancelled, !finished.value else { return }
        cutOff.withLock { $0 = true }
        task.cancel()
    }
    let outcome = await task.value
    watchdog.cancel()
    return (cutOff.value ? .didNotEnd : outcome, clock.now - start)
}

// MARK: - The peak-memory probe

/// Runs the `CourierProbe` executable (`Tests/Tools/Sources/CourierProbe`) as a child process: one call with the default
/// `URLSessionExecutor`, reported as JSON with the child's peak resident memory.
enum Probe {
    /// The probe's report line.
    struct Report: Decodable, Sendable, CustomStringConvertible {
        var outcome: String
        var reason: String?
        var bytes: Int
        var seconds: Double
        var peakRSSBytes: Int?
        var status: Int?
        var sanitizer: String?
        var baselineRSSBytes: Int?
        /// The response body, for uploads.
        var responseText: String?

        var description: String {
            "\(outcome) \(reason ?? "-") bytes=\(bytes) seconds=\(seconds) "
                + "peakRSS=\((peakRSSBytes ?? 0) / 1_048_576) MiB status=\(status.map(String.init) ?? "-")"
                + (sanitizer.map { " sanitizer=\($0)" } ?? "")
        }
    }

    struct ProbeFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The environment variable that names the folder of the test tools' binaries (`scripts/test` sets it to
    /// `swift build --package-path Tests/Tools --show-bin-path`).
    static let toolsKey = "COURIER_TOOLS_BIN"

    /// The binary of the test tool `name` (`CourierProbe`, `CourierCacheWriter`), in the folder `COURIER_TOOLS_BIN`
    /// names.
    static func tool(_ name: String) throws -> URL {
        let folder = try #require(
            ProcessInfo.processInfo.environment[toolsKey].flatMap { $0.isEmpty ? nil : $0 },
            "\(toolsKey) is not set: run scripts/test, or build Tests/Tools and export its --show-bin-path")
        let binary = URL(fileURLWithPath: folder).appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ProbeFailure(
                description: "\(binary.path) is not an executable: build it with "
                    + "`swift build --package-path Tests/Tools` (scripts/test does)")
        }
        return binary
    }

    /// The probe's binary.
    static func executable() throws -> URL { try tool("CourierProbe") }

    /// Runs the probe on `url` and returns its report; kills it after `limit`.
    static func run(
        _ url: String,
        maxResponseBytes: Int? = nil,
        timeout: Duration? = nil,
        extraArguments: [String] = [],
        killAfter limit: Duration = .seconds(60)
    ) async throws -> Report {
        let executable = try executable()
        var arguments = [url] + extraArguments
        if let maxResponseBytes { arguments += ["--max-response-bytes", String(maxResponseBytes)] }
        if let timeout {
            let parts = timeout.components
            let seconds = Double(parts.seconds) + Double(parts.attoseconds) / 1e18
            arguments += ["--timeout", String(seconds)]
        }
        let limitSeconds = Double(limit.components.seconds)
        let probeArguments = arguments

        let result: Result<(Data, Data, Int32, Bool), any Error> = await onOwnThread {
            let process = Process()
            process.executableURL = executable
            process.arguments = probeArguments
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            let killed = LockedBox<Bool>(false)
            do {
                try process.run()
            } catch {
                return .failure(error)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + limitSeconds) {
                if process.isRunning {
                    killed.withLock { $0 = true }
                    process.terminate()
                }
            }
            // Both pipes are read to their ends at once, so a child that fills one never waits on the other.
            let errorData = LockedBox(Data())
            let errorsRead = DispatchSemaphore(value: 0)
            Thread {
                let data = errors.fileHandleForReading.readDataToEndOfFile()
                errorData.withLock { $0 = data }
                errorsRead.signal()
            }.start()
            let outputData = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            errorsRead.wait()
            return .success((outputData, errorData.value, process.terminationStatus, killed.value))
        }
        let (output, errorOutput, status, killed) = try result.get()
        let errorText = String(decoding: errorOutput, as: UTF8.self)
        if killed {
            throw ProbeFailure(description: "the probe did not end within \(limit) and was killed: \(url)")
        }
        guard status == 0 else {
            throw ProbeFailure(description: "the probe exited with \(status) for \(url): \(errorText)")
        }
        do {
            return try JSONDecoder().decode(Report.self, from: output)
        } catch {
            throw ProbeFailure(
                description: "unreadable probe output for \(url): \(String(decoding: output, as: UTF8.self)) "
                    + errorText
            )
        }
    }
}
