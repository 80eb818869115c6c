import Courier
import Foundation
import Testing

/// The real httpbin server of the integration tests: a small copy of the root package's helper
/// (`Tests/CourierTests/Support/HTTPBin.swift`), with the same rule.
///
/// `scripts/test-combine` starts httpbin on 127.0.0.1 and exports its address as `COURIER_HTTPBIN_URL`.
/// Without it, suites with the ``Testing/Trait/httpbin`` trait are skipped locally and fail under `CI=true`.
enum HTTPBin {
    /// The environment variable that holds the server's base URL, for example `http://127.0.0.1:41234`.
    static let environmentKey = "COURIER_HTTPBIN_URL"

    /// Thrown (so the test fails) when integration tests must run but no server is configured.
    struct MissingServer: Error, CustomStringConvertible {
        let detail: String

        var description: String {
            "\(detail). Integration tests need a real httpbin: run `scripts/test-combine` (it starts one and "
                + "exports \(HTTPBin.environmentKey))."
        }
    }

    /// The server's base URL, `nil` when the variable is unset or empty.
    static let url: URL? = {
        guard let text = ProcessInfo.processInfo.environment[environmentKey], !text.isEmpty else { return nil }
        return URL(string: text)
    }()

    /// Whether the tests run under CI (`CI=true` or `CI=1`).
    static var isCI: Bool {
        let value = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        return value == "true" || value == "1"
    }

    /// `true` when a server is configured, `false` (skip) when it is not and this is not CI.
    /// - Throws: ``MissingServer`` under CI without a usable server, which fails the test instead of skipping it.
    static func isAvailable() throws -> Bool {
        if url != nil { return true }
        if isCI {
            let raw = ProcessInfo.processInfo.environment[environmentKey] ?? ""
            throw MissingServer(
                detail: raw.isEmpty
                    ? "CI=true but \(environmentKey) is not set"
                    : "CI=true but \(environmentKey)=\(raw) is not a URL"
            )
        }
        return false
    }

    /// A configuration that sends requests to the httpbin server with `executor` (the real one by default).
    static func configuration(
        timeout: Duration = .seconds(10),
        executor: any APIExecutor = URLSessionExecutor.shared
    ) throws -> APIConfiguration {
        guard let url else { throw MissingServer(detail: "\(environmentKey) is not set") }
        return APIConfiguration(baseURL: url, timeout: timeout, executor: executor)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite against the httpbin server named by `COURIER_HTTPBIN_URL`: skipped locally without it,
    /// failed under `CI=true`.
    static var httpbin: Self {
        .enabled(
            if: try HTTPBin.isAvailable(),
            "needs a real httpbin: COURIER_HTTPBIN_URL is not set (scripts/test-combine starts one and sets it)"
        )
    }
}
