import Courier
import Foundation
import Testing

/// The servers of the transfer tests, started by `scripts/test` through `scripts/transfers.sh`: the Server-Sent
/// Events server (`scripts/sseserver.py`, `COURIER_SSE_URL`) and a private nginx serving one large generated file
/// (`COURIER_NGINX_URL`, `/big.bin`, with `COURIER_BIG_FILE_BYTES` and `COURIER_BIG_FILE_SHA256`).
///
/// Like httpbin: skipped locally when the variables are missing, failed under `CI=true`.
enum TransferServers {
    static func value(_ key: String) -> String? {
        guard let text = ProcessInfo.processInfo.environment[key], !text.isEmpty else { return nil }
        return text
    }

    static var sse: URL? { value("COURIER_SSE_URL").flatMap(URL.init(string:)) }
    static var nginx: URL? { value("COURIER_NGINX_URL").flatMap(URL.init(string:)) }
    static var bigFileBytes: Int? { value("COURIER_BIG_FILE_BYTES").flatMap { Int($0) } }
    static var bigFileSHA256: String? { value("COURIER_BIG_FILE_SHA256") }

    struct MissingServer: Error, CustomStringConvertible {
        let description: String
    }

    static func isAvailable(_ keys: [String]) throws -> Bool {
        let missing = keys.filter { value($0) == nil }
        if missing.isEmpty { return true }
        if HTTPBin.isCI {
            throw MissingServer(
                description: "CI=true but \(missing.joined(separator: ", ")) not set: run scripts/test, which "
                    + "starts the transfer servers (scripts/transfers.sh)")
        }
        return false
    }

    /// A configuration for `base` with the real `URLSessionExecutor`.
    static func configuration(_ base: URL?, timeout: Duration = .seconds(30)) throws -> APIConfiguration {
        guard let base else { throw MissingServer(description: "the transfer servers are not running") }
        return APIConfiguration(baseURL: base, timeout: timeout, executor: URLSessionExecutor.shared)
    }

    /// The SHA-256 of the file at `url` in hex, from `sha256sum` (or `shasum -a 256` where it is missing).
    static func sha256(of url: URL) throws -> String {
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
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite against the SSE server of `scripts/transfers.sh`.
    static var sseServer: Self {
        .enabled(
            if: try TransferServers.isAvailable(["COURIER_SSE_URL"]),
            "needs the SSE server: COURIER_SSE_URL is not set (scripts/test starts it)")
    }

    /// Runs a suite against the nginx of `scripts/transfers.sh`.
    static var nginx: Self {
        .enabled(
            if: try TransferServers.isAvailable([
                "COURIER_NGINX_URL", "COURIER_BIG_FILE_BYTES", "COURIER_BIG_FILE_SHA256",
            ]),
            "needs nginx and the large file: COURIER_NGINX_URL is not set (scripts/test starts it)")
    }
}
