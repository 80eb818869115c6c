import Courier
import Foundation
import Testing

/// Many calls at once through the whole pipeline and the real executor: nothing lost, nothing mixed up.
@Suite("Integration: stress", .httpbin)
struct StressIntegrationTests {
    private struct Echo: Decodable, Sendable {
        let args: [String: String]
        let headers: [String: String]
    }

    private static let echo = GET<Int>("/anything") { ["id": $0] }

    @Test("2,000 calls, 256 at a time, through retry, refreshing auth and logging: each gets its own answer")
    func manyCallsAtOnce() async throws {
        // GIVEN a token that the first wave finds expired (exactly one refresh must follow), and a log
        let token = LockedBox("expired")
        let refreshes = LockedBox(0)
        let lines = LockedBox(0)
        let auth = RefreshingAuthPlugin<String>(
            credential: { token.value },
            refresh: { _ in
                refreshes.withLock { $0 += 1 }
                try await Task.sleep(for: .milliseconds(50))
                token.withLock { $0 = "fresh" }
                return "fresh"
            },
            apply: { credential, request in request.headers[.authorization] = "Bearer \(credential)" },
            isAuthFailure: { $0.request.headers[.authorization] == "Bearer expired" }
        )
        let configuration = try HTTPBin.configuration(timeout: .seconds(60))
            .with { $0.plugins = [.retry(), auth, .logging(sink: { _ in lines.withLock { $0 += 1 } })] }
        let total = 2_000
        let width = 256

        // WHEN every call runs, at most 256 in flight
        let mismatches = await withTaskGroup(of: String?.self) { group in
            var next = 0
            func start() {
                let id = next
                next += 1
                group.addTask {
                    do {
                        let echo: Echo = try await Self.echo.request(with: id, using: configuration)
                        guard echo.args["id"] == String(id) else { return "call \(id) got \(echo.args)" }
                        guard echo.headers["Authorization"] == "Bearer fresh" else { return "call \(id): old token" }
                        return nil
                    } catch {
                        return "call \(id) failed: \(error)"
                    }
                }
            }
            for _ in 0..<width { start() }
            var problems: [String] = []
            while let result = await group.next() {
                if let result { problems.append(result) }
                if next < total { start() }
            }
            return problems
        }

        // THEN every call got its own answer with the fresh token, after one refresh, and every send was logged
        #expect(mismatches.isEmpty, "\(mismatches.count) problems, first: \(mismatches.prefix(3))")
        #expect(refreshes.value == 1)
        #expect(lines.value >= 2 * total, "a request or response line is missing")
    }
}
