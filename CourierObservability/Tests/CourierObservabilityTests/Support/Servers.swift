import CourierTesting
import Foundation
import Testing

/// The real servers the integration tests talk to: httpbin and the fault server, which `scripts/test-observability`
/// starts and names in `COURIER_HTTPBIN_URL` and `COURIER_FAULT_URL*`.
///
/// Suites with ``Testing/Trait/servers`` (CourierTesting's `.testEnvironment`) are skipped locally without them
/// (plain `swift test`) and fail under `CI=true`: CI must never pass by silently skipping them.
enum Servers {
    /// The servers, or a failed requirement saying how to start them.
    static func required() throws -> ExecutorConformance.Servers {
        try #require(
            ExecutorConformance.Servers.fromEnvironment(),
            "COURIER_HTTPBIN_URL / COURIER_FAULT_URL* are not set: run scripts/test-observability, which starts the servers"
        )
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite against the real httpbin and fault server.
    static var servers: Self {
        .testEnvironment(
            "COURIER_HTTPBIN_URL", "COURIER_FAULT_URL", "COURIER_FAULT_URL_OTHER_HOST", "COURIER_FAULT_URL_OTHER_PORT",
            setBy: "scripts/test-observability")
    }
}
