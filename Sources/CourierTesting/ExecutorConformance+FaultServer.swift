import Courier
import Foundation

extension ExecutorConformance {
    /// Why the test servers are not there: ``Servers/startingFaultServer(httpbin:)`` could not start the fault
    /// server, or a test that needs servers a script starts runs without them under CI
    /// (the trait `.testEnvironment(_:setBy:)`). Compare with the static members (`error == .pythonNotFound`);
    /// the description says what happened.
    public struct ServerError: Error, Equatable, CustomStringConvertible {
        private enum Code { case pythonNotFound, didNotStart, notConfigured }

        private let code: Code
        /// What happened: the interpreter looked for, or the server's last log lines.
        public let description: String

        private init(_ code: Code, _ description: String) {
            self.code = code
            self.description = description
        }

        /// No Python 3 interpreter: neither the one `COURIER_PYTHON` names nor `python3` on `PATH`.
        public static let pythonNotFound = ServerError(
            .pythonNotFound, "the fault server needs Python 3: no python3 on PATH (or set COURIER_PYTHON)")
        /// The server exited, or did not listen within 30 seconds.
        public static let didNotStart = ServerError(.didNotStart, "the fault server did not start")

        /// The environment lacks a variable that the script starting the test servers exports, and `CI` is set.
        public static let notConfigured = ServerError(.notConfigured, "the test servers are not configured")

        static func notConfigured(_ detail: String) -> ServerError {
            ServerError(.notConfigured, "the test servers are not configured: \(detail)")
        }

        static func pythonNotFound(_ detail: String) -> ServerError {
            ServerError(.pythonNotFound, "the fault server needs Python 3: \(detail)")
        }

        static func didNotStart(_ detail: String) -> ServerError {
            ServerError(.didNotStart, "the fault server did not start: \(detail)")
        }

        /// Whether both are the same kind of failure (the descriptions may differ).
        public static func == (lhs: ServerError, rhs: ServerError) -> Bool { lhs.code == rhs.code }
    }
}

#if os(macOS) || os(Linux)
    extension ExecutorConformance.Servers {
        /// The suite's servers, with Courier's fault server started from the copy CourierTesting ships, so the suite
        /// runs from any package; `httpbin` is a real httpbin that you run (see the article "Writing an executor" in Courier's documentation).
        ///
        /// The first call starts the server with `python3` from `PATH` (or the interpreter `COURIER_PYTHON` names;
        /// Python's standard library only) on free ports of `127.0.0.1` and `127.0.0.2`, and returns once it listens;
        /// later calls in the process return the same server. It stops when the process ends, however it ends.
        /// Fails with ``ExecutorConformance/ServerError`` (``ExecutorConformance/ServerError/pythonNotFound``,
        /// ``ExecutorConformance/ServerError/didNotStart``); a later call tries again.
        public static func startingFaultServer(httpbin: URL) async throws -> Self {
            let origins = try await FaultServerProcess.origins()
            return Self(
                httpbin: httpbin, faultServer: origins.main, faultServerOtherHost: origins.otherHost,
                faultServerOtherPort: origins.otherPort)
        }
    }

    /// The fault server of this process, started once from CourierTesting's resources.
    enum FaultServerProcess {
        struct Origins: Sendable {
            let main: URL
            let otherHost: URL
            let otherPort: URL
        }

        private static let starting = LockedBox<Task<Origins, any Error>?>(nil)
        /// The running server and the pipe into its standard input, held until the process ends: the server exits
        /// when the pipe closes.
        private static let running = LockedBox<[(Process, Pipe)]>([])

        static func origins() async throws -> Origins {
            let task = starting.withLock { task in
                if let task { return task }
                let started = Task { try await launch(python: try python(in: ProcessInfo.processInfo.environment)) }
                task = started
                return started
            }
            do {
                return try await task.value
            } catch {
                starting.withLock { if $0 == task { $0 = nil } }
                throw error
            }
        }

        /// The interpreter that `environment` names: `COURIER_PYTHON` (a path, or a name looked up on `PATH`), else
        /// `python3` on `PATH`.
        static func python(in environment: [String: String]) throws -> URL {
            let files = FileManager.default
            let name = environment["COURIER_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "python3"
            if name.contains("/") {
                guard files.isExecutableFile(atPath: name) else {
                    throw ExecutorConformance.ServerError.pythonNotFound("COURIER_PYTHON=\(name) is not an executable")
                }
                return URL(fileURLWithPath: name)
            }
            let path = environment["PATH"] ?? ""
            for folder in path.split(separator: ":") where !folder.isEmpty {
                let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
                if files.isExecutableFile(atPath: candidate.path) { return candidate }
            }
            throw ExecutorConformance.ServerError.pythonNotFound("no \(name) on PATH (\(path)); set COURIER_PYTHON")
        }

        /// Starts the server with `interpreter` and returns its origins once it listens.
        static func launch(python interpreter: URL) async throws -> Origins {
            guard let script = Bundle.module.url(forResource: "faultserver", withExtension: "py") else {
                throw ExecutorConformance.ServerError.didNotStart("faultserver.py is missing from CourierTesting")
            }
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("courier-faultserver-\(UUID().uuidString)")
            let ready = folder.appendingPathComponent("ready.env")
            let log = folder.appendingPathComponent("faultserver.log")
            let process = Process()
            let input = Pipe()
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path])
                }
                process.executableURL = interpreter
                process.arguments = [
                    script.path, "--env-file", ready.path, "--log", log.path, "--no-warm", "--exit-with-stdin",
                ]
                process.standardInput = input
                process.standardOutput = FileHandle.nullDevice
                process.standardError = try FileHandle(forWritingTo: log)
                try process.run()
            } catch {
                throw ExecutorConformance.ServerError.didNotStart("\(interpreter.path) \(script.path): \(error)")
            }
            running.withLock { $0.append((process, input)) }

            let deadline = ContinuousClock.now + .seconds(30)
            while !FileManager.default.fileExists(atPath: ready.path) {
                guard process.isRunning, ContinuousClock.now < deadline else {
                    if process.isRunning { process.terminate() }
                    let tail = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").suffix(20)
                    throw ExecutorConformance.ServerError.didNotStart(
                        "\(interpreter.path) \(script.path) (log \(log.path)):\n"
                            + (tail?.joined(separator: "\n") ?? "no log"))
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            let lines = (try? String(contentsOf: ready, encoding: .utf8)) ?? ""
            var urls: [String: URL] = [:]
            for line in lines.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { urls[String(parts[0])] = URL(string: String(parts[1])) }
            }
            guard let main = urls["COURIER_FAULT_URL"], let otherHost = urls["COURIER_FAULT_URL_OTHER_HOST"],
                let otherPort = urls["COURIER_FAULT_URL_OTHER_PORT"]
            else {
                process.terminate()
                throw ExecutorConformance.ServerError.didNotStart("it wrote no URLs: \(lines)")
            }
            return Origins(main: main, otherHost: otherHost, otherPort: otherPort)
        }
    }
#endif
