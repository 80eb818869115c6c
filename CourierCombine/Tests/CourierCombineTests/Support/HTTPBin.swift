import Courier
import CourierTesting
import Foundation
import Testing

/// The real httpbin server of the integration tests.
///
/// `scripts/test-combine` starts httpbin on 127.0.0.1 and exports its address as `COURIER_HTTPBIN_URL`.
/// Suites with the ``Testing/Trait/httpbin`` trait (CourierTesting's `.testEnvironment`) are skipped locally
/// without it and fail under `CI=true`.
enum HTTPBin {
    /// The environment variable that holds the server's base URL, for example `http://127.0.0.1:41234`.
    static let environmentKey = "COURIER_HTTPBIN_URL"

    /// A configuration that sends requests to the httpbin server with `executor` (the real one by default).
    static func configuration(
        timeout: Duration = .seconds(10),
        executor: any APIExecutor = URLSessionExecutor.shared
    ) throws -> APIConfiguration {
        let url = try #require(
            ExecutorConformance.Servers.url(environmentKey),
            "\(environmentKey) is not set: run scripts/test-combine, which starts httpbin")
        return APIConfiguration(baseURL: url, timeout: timeout, executor: executor)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite against the httpbin server named by `COURIER_HTTPBIN_URL`.
    static var httpbin: Self { .testEnvironment(HTTPBin.environmentKey, setBy: "scripts/test-combine") }
}
