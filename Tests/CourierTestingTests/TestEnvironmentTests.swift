import Foundation
import Testing

@testable import CourierTesting

/// `.testEnvironment(_:setBy:)`, the one "are the test servers up?" condition of every Courier test target: a
/// suite runs where its variables are set, is skipped without them, and fails under CI instead of skipping.
@Suite("The test-environment condition")
struct TestEnvironmentTests {
    static let variables = ["COURIER_HTTPBIN_URL", "COURIER_FAULT_URL"]

    @Test("Every variable set: the suite runs, under CI or not", arguments: [[:], ["CI": "true"]])
    func set(_ extra: [String: String]) throws {
        let servers = ["COURIER_HTTPBIN_URL": "http://127.0.0.1:1", "COURIER_FAULT_URL": "x"]
        let environment = servers.merging(extra) { server, _ in server }
        #expect(try TestEnvironment.isSet(Self.variables, setBy: "scripts/test", in: environment))
    }

    @Test(
        "A variable missing or empty, not CI: the suite is skipped",
        arguments: [
            ["COURIER_HTTPBIN_URL": "http://127.0.0.1:1"], ["COURIER_HTTPBIN_URL": "", "COURIER_FAULT_URL": ""],
            ["CI": "false", "COURIER_FAULT_URL": "x"],
        ])
    func skipped(_ environment: [String: String]) throws {
        #expect(try !TestEnvironment.isSet(Self.variables, setBy: "scripts/test", in: environment))
    }

    @Test(
        "A variable missing under CI: the suite fails, naming the variable and the script",
        arguments: ["true", "1", "TRUE"])
    func failsUnderCI(_ ci: String) throws {
        let environment = ["CI": ci, "COURIER_HTTPBIN_URL": "http://127.0.0.1:1"]
        let error = try #require(throws: ExecutorConformance.ServerError.self) {
            try TestEnvironment.isSet(Self.variables, setBy: "scripts/test-ahc", in: environment)
        }
        #expect(error == .notConfigured)
        #expect(error.description.contains("COURIER_FAULT_URL"))
        #expect(!error.description.contains("COURIER_HTTPBIN_URL"))
        #expect(error.description.contains("scripts/test-ahc"))
    }

    @Test("A variable's URL: nil when unset, empty or not a URL")
    func url() {
        #expect(ExecutorConformance.Servers.url("A", in: ["A": "http://127.0.0.1:8080"])?.port == 8080)
        #expect(ExecutorConformance.Servers.url("A", in: [:]) == nil)
        #expect(ExecutorConformance.Servers.url("A", in: ["A": ""]) == nil)
    }
}
