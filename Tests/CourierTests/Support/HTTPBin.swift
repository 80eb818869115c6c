import Courier
import CourierTesting
import Foundation
import Testing

/// The real httpbin server that the integration tests talk to.
///
/// `scripts/test` starts httpbin (PyPI `httpbin` + `gunicorn`) on 127.0.0.1 and exports its address as
/// `COURIER_HTTPBIN_URL`. Every integration suite carries the ``Testing/Trait/httpbin`` trait
/// (CourierTesting's `.testEnvironment`): without the variable the suites are skipped locally, so `swift test`
/// works without Python, and fail under `CI=true`, which must never pass by silently skipping them.
/// By hand: `scripts/servers.sh serve httpbin` prints the `export` line.
enum HTTPBin {
    /// The environment variable that holds the server's base URL, for example `http://127.0.0.1:41234`.
    static let environmentKey = "COURIER_HTTPBIN_URL"

    /// The server's base URL, `nil` when the variable is unset or empty.
    static let url: URL? = ExecutorConformance.Servers.url(environmentKey)

    /// A configuration that sends requests to the httpbin server with the real `URLSessionExecutor`
    /// unless told otherwise. Integration tests always pass it explicitly (`using:` or
    /// `APIConfiguration.withCurrent`), so they never depend on `APIConfiguration.default`.
    /// - Throws: when no server is configured (the test then fails with a clear message).
    static func configuration(
        timeout: Duration = .seconds(10),
        headers: HTTPHeaders = [:],
        executor: any APIExecutor = URLSessionExecutor.shared
    ) throws -> APIConfiguration {
        let url = try #require(url, "\(environmentKey) is not set: run scripts/test, which starts httpbin")
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
    static var httpbin: Self { .testEnvironment(HTTPBin.environmentKey, setBy: "scripts/test") }
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
