import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `RefreshingAuthPlugin` against the fault server: a wave of calls rejected with 401 shares one refresh, whether
/// the token endpoint fails or succeeds, and each new wave (sent after the last refresh ended) starts one of its own.
@Suite("Integration: a wave of 401s shares one refresh", .faultServer)
struct AuthRefreshIntegrationTests {
    /// Calls in a wave.
    static let width = 64
    /// Waves in a row, through one plugin.
    static let waves = 10

    /// An executor of this suite's own that opens a connection for every call of a wave, so that the server can
    /// hold the whole wave before it answers (the fault suites' shared executor is busy with their slow routes).
    static let executor: URLSessionExecutor = {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = width
        return URLSessionExecutor(configuration: configuration)
    }()

    /// How the token endpoint answers, after 0.3 s.
    enum TokenAnswer: Int, CaseIterable, Sendable, CustomTestStringConvertible {
        case fails = 400
        case succeeds = 200

        var testDescription: String { self == .fails ? "the refresh fails (400)" : "the refresh succeeds" }
    }

    struct Stats: Decodable {
        let hits: Int
        let gone: Int
    }

    struct Issued: Decodable {
        let access_token: String
    }

    static func stats(_ key: String, using configuration: APIConfiguration) async throws -> Stats {
        try await GET<Void>("/count-stats?key=\(key)").request(using: configuration)
    }

    @Test(
        "64 calls rejected at once, their 401s spread over twice the refresh's time, share one refresh; 10 waves in a row",
        arguments: TokenAnswer.allCases)
    func aWaveOf401sSharesOneRefresh(_ answer: TokenAnswer) async throws {
        // GIVEN a plugin whose refresh asks a token endpoint that answers after 0.3 s, and a protected route that
        // holds a wave's 64 requests until all have arrived, then answers them 10 ms apart (over 0.63 s: the later
        // 401s arrive after the refresh has ended)
        let run = UUID().uuidString
        let plain = try FaultServer.configuration(timeout: .seconds(30)).with { $0.executor = Self.executor }
        let token = GET<Void>("/auth/token?key=\(run)&delay=0.3&status=\(answer.rawValue)")
        let stored = LockedBox("expired")
        let auth = RefreshingAuthPlugin<String>(
            credential: { stored.value },
            refresh: { _ in
                let issued: Issued = try await token.request(using: plain)
                stored.withLock { $0 = issued.access_token }
                return issued.access_token
            },
            apply: { value, request in request.headers[.authorization] = "Bearer \(value)" }
        )
        let configuration = plain.with { $0.plugins = [auth] }

        for wave in 1...Self.waves {
            // WHEN a wave of 64 calls is sent with an expired token
            stored.withLock { $0 = "expired" }
            let protected = GET<Void>("/auth/protected?key=\(run)-\(wave)&gather=\(Self.width)&spread=0.01")
            let outcomes = await withTaskGroup(of: APIError.Reason?.self) { group in
                for _ in 0..<Self.width {
                    group.addTask {
                        do throws(APIError) {
                            let _: APIResponse = try await protected.request(using: configuration)
                            return nil
                        } catch {
                            return error.reason
                        }
                    }
                }
                return await group.reduce(into: [APIError.Reason?]()) { $0.append($1) }
            }

            // THEN one more request reached the token endpoint, and every call ended with the refresh's outcome:
            // sent again with the new token, or failed with the token endpoint's 400
            let tokens = try await Self.stats("auth-token:\(run)", using: plain)
            let sent = try await Self.stats("auth-protected:\(run)-\(wave)", using: plain)
            #expect(tokens.hits == wave, "after wave \(wave): \(tokens.hits) refresh requests")
            switch answer {
            case .fails:
                let failed = outcomes.filter { $0 == .unacceptableStatus(.badRequest) }.count
                #expect(failed == Self.width, "wave \(wave): \(outcomes.compactMap(\.self).prefix(3))")
                #expect(sent.hits == Self.width, "wave \(wave): \(sent.hits) requests to the protected route")
            case .succeeds:
                let succeeded = outcomes.filter { $0 == nil }.count
                #expect(succeeded == Self.width, "wave \(wave): \(outcomes.compactMap(\.self).prefix(3))")
                #expect(sent.hits == 2 * Self.width, "wave \(wave): \(sent.hits) requests to the protected route")
            }
            #expect(sent.gone == 0)
            if tokens.hits != wave { break }
        }
    }
}
