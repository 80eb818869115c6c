import Courier
import Foundation

#if canImport(Testing)
    import Testing
#endif

// The one answer to "are the test servers up?" for every test target of Courier's packages: Courier's scripts
// (scripts/test, scripts/test-ahc, scripts/test-combine) start the servers and export their addresses; a suite
// that needs them carries `.testEnvironment(…, setBy:)`. Without them it is skipped locally, so plain `swift test`
// runs the rest, and it fails under CI, which must never pass by skipping.

extension ExecutorConformance.Servers {
    /// The URL that the environment variable `variable` holds (Courier's test scripts export `COURIER_HTTPBIN_URL`,
    /// `COURIER_FAULT_URL`, … with no trailing slash); `nil` when it is unset, empty or not a URL.
    public static func url(
        _ variable: String, in environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL? {
        guard let text = environment[variable], !text.isEmpty else { return nil }
        return URL(string: text)
    }
}

/// The condition behind the trait `.testEnvironment(_:setBy:)`.
enum TestEnvironment {
    /// Whether the tests run under CI: `CI` is `true` or `1`, as most CI services and `.ci/run`'s callers set it.
    static func isCI(_ environment: [String: String]) -> Bool {
        let value = environment["CI"]?.lowercased()
        return value == "true" || value == "1"
    }

    /// `true` when every variable is set (not empty); `false` when one is missing and this is not CI.
    /// - Throws: ``ExecutorConformance/ServerError/notConfigured`` when one is missing under CI.
    static func isSet(
        _ variables: [String], setBy script: String,
        in environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ExecutorConformance.ServerError) -> Bool {
        let missing = variables.filter { environment[$0]?.isEmpty ?? true }
        if missing.isEmpty { return true }
        guard isCI(environment) else { return false }
        throw .notConfigured("CI is set but \(missing.joined(separator: ", ")) not: run \(script), which sets them")
    }
}

#if canImport(Testing)
    extension Trait where Self == ConditionTrait {
        /// Runs the test or suite where the script that starts its servers has exported `variables`, for example
        /// `@Suite(.testEnvironment("COURIER_HTTPBIN_URL", setBy: "scripts/test"))`: without one of them it is
        /// skipped, or, when `CI` is set (`CI=true` or `CI=1`), it fails with
        /// ``ExecutorConformance/ServerError/notConfigured`` naming the missing variables and `script`, so that CI
        /// never passes by skipping.
        public static func testEnvironment(_ variables: String..., setBy script: String) -> Self {
            .enabled(
                if: try TestEnvironment.isSet(variables, setBy: script),
                "needs \(variables.joined(separator: ", ")): \(script) starts the servers and sets them")
        }
    }
#endif
