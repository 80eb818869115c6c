import Courier
import CourierTesting
import Foundation
import Testing

/// The servers of the transfer tests, started by `scripts/test` through `scripts/servers.sh`: the Server-Sent
/// Events server (`scripts/servers/sseserver.py`, `COURIER_SSE_URL`) and a private nginx serving one large generated file
/// (`COURIER_NGINX_URL`, `/big.bin`, with `COURIER_BIG_FILE_BYTES` and `COURIER_BIG_FILE_SHA256`).
///
/// Like httpbin: skipped locally when the variables are missing, failed under `CI=true`.
enum TransferServers {
    static func value(_ key: String) -> String? {
        guard let text = ProcessInfo.processInfo.environment[key], !text.isEmpty else { return nil }
        return text
    }

    static var sse: URL? { ExecutorConformance.Servers.url("COURIER_SSE_URL") }
    static var nginx: URL? { ExecutorConformance.Servers.url("COURIER_NGINX_URL") }
    static var bigFileBytes: Int? { value("COURIER_BIG_FILE_BYTES").flatMap { Int($0) } }
    static var bigFileSHA256: String? { value("COURIER_BIG_FILE_SHA256") }

    /// A configuration for `base` with the real `URLSessionExecutor`.
    static func configuration(_ base: URL?, timeout: Duration = .seconds(30)) throws -> APIConfiguration {
        let base = try #require(base, "the transfer servers are not running: run scripts/test")
        return APIConfiguration(baseURL: base, timeout: timeout, executor: URLSessionExecutor.shared)
    }

    /// The SHA-256 of the file at `url` in hex, from `sha256sum` (or `shasum -a 256` where it is missing).
    static func sha256(of url: URL) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        #if os(Linux)
            process.arguments = ["sha256sum", url.path]
        #else
            process.arguments = ["shasum", "-a", "256", url.path]
        #endif
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = await onOwnThread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite against the SSE server of `scripts/servers.sh`.
    static var sseServer: Self { .testEnvironment("COURIER_SSE_URL", setBy: "scripts/test") }

    /// Runs a suite against the nginx of `scripts/servers.sh` and its large file, which `scripts/test` starts
    /// and makes in a heavy run only (`COURIER_HEAVY=1`, or `CI` set).
    static var nginx: Self {
        .testEnvironment(
            "COURIER_NGINX_URL", "COURIER_BIG_FILE_BYTES", "COURIER_BIG_FILE_SHA256",
            setBy: "COURIER_HEAVY=1 scripts/test")
    }
}
