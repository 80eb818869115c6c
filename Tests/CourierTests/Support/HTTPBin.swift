import Courier
import Foundation
import Testing

/// The real httpbin server that the integration tests talk to.
///
/// `scripts/test` starts httpbin (PyPI `httpbin` + `gunicorn`) on 127.0.0.1 and exports its address as
/// `COURIER_HTTPBIN_URL`. Every integration suite carries the ``Testing/Trait/httpbin`` trait, which decides
/// what happens when that variable is missing:
/// - locally (no `CI=true`) the suites are skipped, so `swift test` works without Python;
/// - under `CI=true` they fail with a message saying how to start the server: CI must never pass by
///   silently skipping its integration tests.
enum HTTPBin {
    /// The environment variable that holds the server's base URL, for example `http://127.0.0.1:41234`.
    static let environmentKey = "COURIER_HTTPBIN_URL"

    /// Thrown (so the test fails) when integration tests must run but no server is configured.
    struct MissingServer: Error, CustomStringConvertible {
        let detail: String

        var description: String {
            "\(detail). Integration tests need a real httpbin: run `scripts/test` (it starts one and exports "
                + "\(HTTPBin.environmentKey)), or `source scripts/httpbin.sh; courier_httpbin_install; "
                + "courier_httpbin_start` and run `swift test` from that shell."
        }
    }

    /// The server's base URL, `nil` when the variable is unset or empty.
    static let url: URL? = {
        guard let text = ProcessInfo.processInfo.environment[environmentKey], !text.isEmpty else { return nil }
        return URL(string: text)
    }()

    /// Whether the tests run under CI (`CI=true`, as set by most CI services and by `.ci/run`'s callers).
    static var isCI: Bool {
        let value = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        return value == "true" || value == "1"
    }

    /// The condition behind ``Testing/Trait/httpbin``: `true` when a server is configured, `false` (skip)
    /// when it is not and this is not CI.
    /// - Throws: ``MissingServer`` under `CI=true` without a usable server, which fails the test instead of
    ///   skipping it.
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

    /// A configuration that sends requests to the httpbin server with the real `URLSessionExecutor`
    /// unless told otherwise. Integration tests always pass it explicitly (`using:` or
    /// `APIConfiguration.withCurrent`), so they never depend on `APIConfiguration.default`.
    /// - Throws: when no server is configured (the test then fails with a clear message).
    static func configuration(
        timeout: Duration = .seconds(10),
        headers: HTTPHeaders = [:],
        executor: any APIExecutor = URLSessionExecutor.shared
    ) throws -> APIConfiguration {
        guard let url else {
            throw MissingServer(detail: "\(environmentKey) is not set")
        }
        return APIConfiguration(baseURL: url, headers: headers, timeout: timeout, executor: executor)
    }

    /// The server's base URL as text, without a trailing slash, as httpbin writes it in its `url` field.
    static func baseText() throws -> String {
        var text = try configuration().baseURL?.absoluteString ?? ""
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs an integration suite against the httpbin server named by `COURIER_HTTPBIN_URL`.
    ///
    /// Without the variable the suite is *skipped* locally, because plain `swift test` has no server and
    /// the unit tests should still run; under `CI=true` the condition throws instead, so the suite *fails*
    /// with instructions rather than being skipped in silence.
    static var httpbin: Self {
        .enabled(
            if: try HTTPBin.isAvailable(),
            "needs a real httpbin: COURIER_HTTPBIN_URL is not set (scripts/test starts one and sets it)"
        )
    }
}

// MARK: - The process-wide default configuration

/// Runs each test it applies to alone among all tests that carry it, and restores
/// `APIConfiguration.default` afterwards.
///
/// `.serialized` orders the tests of one suite only; tests in different suites that change the process-wide
/// default would still race. Every test that sets `APIConfiguration.default`, in any suite, should carry
/// `.changesDefaultConfiguration`; every other test should pass `using:` or use `withCurrent`.
struct DefaultConfigurationIsolation: TestTrait, SuiteTrait, TestScoping {
    /// Set while the current task holds the lock, so that nested scopes do not wait for themselves.
    @TaskLocal private static var isHeld = false
    private static let lock = AsyncLock()

    var isRecursive: Bool { true }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        if test.isSuite || Self.isHeld { return try await function() }
        await Self.lock.lock()
        let saved = APIConfiguration.default
        do {
            try await Self.$isHeld.withValue(true) { try await function() }
        } catch {
            APIConfiguration.default = saved
            await Self.lock.unlock()
            throw error
        }
        APIConfiguration.default = saved
        await Self.lock.unlock()
    }
}

extension Trait where Self == DefaultConfigurationIsolation {
    /// The test changes `APIConfiguration.default`: run it alone among such tests, and restore the default.
    static var changesDefaultConfiguration: Self { Self() }
}

/// A mutual-exclusion lock for async code that hands the lock to waiters in arrival order.
private actor AsyncLock {
    private var isLocked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func lock() async {
        guard isLocked else {
            isLocked = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func unlock() {
        if waiters.isEmpty {
            isLocked = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
