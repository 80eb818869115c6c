import CourierTesting
import Foundation
import Testing

/// The real servers the integration tests talk to: httpbin and the fault server, which `scripts/test-ahc`
/// starts and names in `COURIER_HTTPBIN_URL` and `COURIER_FAULT_URL*`.
///
/// Without them the integration suites are skipped locally (plain `swift test`), but fail under `CI=true`:
/// CI must never pass by silently skipping them.
enum Servers {
    /// Thrown (so the test fails) when integration tests must run but no server is configured.
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "CI=true but COURIER_HTTPBIN_URL / COURIER_FAULT_URL* are not set: run scripts/test-ahc, which starts "
                + "httpbin and the fault server"
        }
    }

    /// The servers, `nil` when the variables are not set.
    static let all = ExecutorConformance.Servers.fromEnvironment()

    /// Whether the tests run under CI (`CI=true`).
    static var isCI: Bool {
        let value = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        return value == "true" || value == "1"
    }

    /// The condition behind ``Testing/Trait/servers``.
    static func isAvailable() throws -> Bool {
        if all != nil { return true }
        if isCI { throw Missing() }
        return false
    }

    /// The servers, or a thrown error that fails the test.
    static func required() throws -> ExecutorConformance.Servers {
        guard let all else { throw Missing() }
        return all
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite against the real httpbin and fault server: skipped locally without them, failed under CI.
    static var servers: Self {
        .enabled(if: try Servers.isAvailable(), "needs httpbin and the fault server (scripts/test-ahc starts them)")
    }
}
