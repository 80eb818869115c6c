import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redirects with the real `URLSessionExecutor` against the fault server's three origins: credentials are
/// stripped before a hop to another host or port and kept on the same origin; the ``RedirectPolicy`` decides
/// whether a hop is followed at all.
@Suite("Integration: redirects", .faultServer)
struct FaultRedirectIntegrationTests {
    static let hardLimit: Duration = .seconds(15)

    /// What `/headers` answers.
    struct Echo: Decodable, Sendable {
        var headers: [String: String]
        var method: String
        var path: String
        var origin: String

        /// The value of the header `name`, whatever the case of the name.
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    /// `/redirect?to=<to>&status=<status>`.
    static let redirect = GET<(to: String, status: Int)>("/redirect") { ["to": $0.to, "status": $0.status] }

    /// The secrets of a request, each with the value the server must (or must not) see.
    static let secrets: [(name: String, value: String)] = [
        ("Authorization", "Bearer static-token"),
        ("Cookie", "session=cookie-secret"),
        ("Proxy-Authorization", "Basic cHJveHk6c2VjcmV0"),
        ("X-API-Key", "static-key"),
        ("X-Session", "session-secret"),
    ]

    /// How the credentials get onto the request.
    enum CredentialSource: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case staticHeaders = "static endpoint headers"
        case authPlugins = "auth plugins .bearer and .apiKey"

        var testDescription: String { rawValue }

        /// The headers the server sees on the first hop, secret or not.
        var expected: [(name: String, value: String)] {
            switch self {
            case .staticHeaders:
                return FaultRedirectIntegrationTests.secrets
            case .authPlugins:
                return FaultRedirectIntegrationTests.secrets.map { secret in
                    switch secret.name {
                    case "Authorization": ("Authorization", "Bearer plugin-token")
                    case "X-API-Key": ("X-API-Key", "plugin-key")
                    default: secret
                    }
                }
            }
        }

        /// A configuration on the fault server with `X-Session` declared sensitive, and the plugins if any.
        func configuration(redirectPolicy: RedirectPolicy = .follow) throws -> APIConfiguration {
            try FaultServer.configuration(
                redirectPolicy: redirectPolicy,
                sensitiveNames: ["X-Session"],
                plugins: self == .authPlugins
                    ? [AuthPlugin.bearer("plugin-token"), AuthPlugin.apiKey("plugin-key", header: "X-API-Key")]
                    : []
            )
        }

        /// `/redirect` with the secrets (those the plugins do not set) and `X-Trace: 1` as endpoint headers.
        var endpoint: GET<(to: String, status: Int)> {
            var headers: HTTPHeaders = ["X-Trace": "1"]
            for secret in FaultRedirectIntegrationTests.secrets {
                if self == .authPlugins, secret.name == "Authorization" || secret.name == "X-API-Key" { continue }
                headers[HTTPHeaderName(rawValue: secret.name)] = secret.value
            }
            return GET<(to: String, status: Int)>("/redirect", headers: headers) {
                ["to": $0.to, "status": $0.status]
            }
        }
    }

    /// Follows `/redirect` to `to` and decodes the echo of the last hop.
    static func follow(
        to target: String,
        status: Int = 302,
        credentials: CredentialSource
    ) async throws -> (outcome: BoundedOutcome<Echo>, elapsed: Duration) {
        let configuration = try credentials.configuration()
        let endpoint = credentials.endpoint
        return await bounded(within: hardLimit) { () async throws(APIError) in
            try await endpoint.request(with: (to: target, status: status), using: configuration) as Echo
        }
    }

    // MARK: - Credentials and origins

    @Test(
        "A redirect to another host or port arrives without any credential, but with X-Trace",
        arguments: [FaultServer.Origin.otherHost, .otherPort], CredentialSource.allCases)
    func crossOriginStrips(_ destination: FaultServer.Origin, _ credentials: CredentialSource) async throws {
        // GIVEN a request that carries every kind of secret, and a harmless X-Trace header
        let target = "\(try destination.baseText())/headers"

        // WHEN the server redirects it (302) to another origin
        let (outcome, _) = try await Self.follow(to: target, credentials: credentials)

        // THEN the other origin answers, and has seen none of the secrets
        let echo = try #require(outcome.value, "the redirect failed: \(String(describing: outcome.error))")
        #expect(echo.origin == (try destination.baseText()))
        for secret in credentials.expected {
            #expect(echo.header(secret.name) == nil, "\(secret.name) was forwarded to \(destination)")
        }
        #expect(echo.header("X-Trace") == "1")
    }

    @Test(
        "Every redirect status (301, 303, 307, 308) strips credentials on a change of host",
        arguments: [301, 303, 307, 308])
    func everyRedirectStatusStrips(_ status: Int) async throws {
        let target = "\(try FaultServer.Origin.otherHost.baseText())/headers"

        let (outcome, _) = try await Self.follow(to: target, status: status, credentials: .staticHeaders)

        let echo = try #require(outcome.value, "the redirect failed: \(String(describing: outcome.error))")
        for secret in Self.secrets {
            #expect(echo.header(secret.name) == nil, "\(secret.name) was forwarded after a \(status)")
        }
        #expect(echo.header("X-Trace") == "1")
    }

    @Test(
        "A redirect on the same origin keeps every credential",
        arguments: [false, true], CredentialSource.allCases)
    func sameOriginKeepsCredentials(_ relative: Bool, _ credentials: CredentialSource) async throws {
        // GIVEN a redirect to /headers on the same origin, as an absolute or a relative Location
        let target = relative ? "/headers" : "\(try FaultServer.Origin.main.baseText())/headers"

        // WHEN it is followed
        let (outcome, _) = try await Self.follow(to: target, credentials: credentials)

        // THEN the server saw every header the request had
        let echo = try #require(outcome.value, "the redirect failed: \(String(describing: outcome.error))")
        #expect(echo.path == "/headers")
        for secret in credentials.expected {
            #expect(echo.header(secret.name) == secret.value, "\(secret.name) was lost on a same-origin redirect")
        }
        #expect(echo.header("X-Trace") == "1")
    }

    // MARK: - The policy

    @Test(".doNotFollow makes the 302 itself the response, with its Location")
    func doNotFollow() async throws {
        let configuration = try FaultServer.configuration(redirectPolicy: .doNotFollow)
        let endpoint = GET<(to: String, status: Int)>("/redirect", acceptableStatusCodes: .any) {
            ["to": $0.to, "status": $0.status]
        }

        let (outcome, _) = await bounded(within: Self.hardLimit) { () async throws(APIError) in
            try await endpoint.request(with: (to: "/headers", status: 302), using: configuration) as APIResponse
        }

        let response = try #require(outcome.value, "got \(String(describing: outcome.error))")
        #expect(response.statusCode == 302)
        #expect(response.headers["Location"] == "/headers")
    }

    @Test("A .custom policy sees the hop, and its .refuse fails the call with .refusedByPolicy")
    func customRefuse() async throws {
        // GIVEN a policy that records each hop and refuses it
        let hops = LockedBox<[RedirectHop]>([])
        let configuration = try FaultServer.configuration(
            redirectPolicy: .custom { hop in
                hops.withLock { $0.append(hop) }
                return .refuse
            })
        let target = "\(try FaultServer.Origin.otherPort.baseText())/headers"

        // WHEN the server redirects to another port
        let (outcome, _) = await bounded(within: Self.hardLimit) { () async throws(APIError) in
            try await Self.redirect.request(with: (to: target, status: 307), using: configuration) as APIResponse
        }

        // THEN the call fails as refused, and the policy was asked once with the hop's facts
        #expect(
            outcome.error?.reason == .transport(.redirectRefused(.refusedByPolicy)),
            "got \(String(describing: outcome))")
        let hop = try #require(hops.value.first)
        #expect(hops.value.count == 1)
        #expect(hop.statusCode == 307)
        #expect(hop.number == 1)
        #expect(hop.to.absoluteString == target)
        #expect(hop.from.path == "/redirect")
        #expect(hop.isCrossOrigin)
        #expect(!hop.isDowngrade)
    }

    @Test("A .custom policy's .stop makes the 3xx the response")
    func customStop() async throws {
        let configuration = try FaultServer.configuration(redirectPolicy: .custom { _ in .stop })
        let endpoint = GET<(to: String, status: Int)>("/redirect", acceptableStatusCodes: .any) {
            ["to": $0.to, "status": $0.status]
        }

        let (outcome, _) = await bounded(within: Self.hardLimit) { () async throws(APIError) in
            try await endpoint.request(with: (to: "/headers", status: 303), using: configuration) as APIResponse
        }

        #expect(outcome.value?.statusCode == 303, "got \(String(describing: outcome))")
        #expect(outcome.value?.headers["Location"] == "/headers")
    }

    @Test(
        "/redirect-loop fails with .tooManyRedirects within the hard limit, at the default 10 hops or a custom maximum",
        arguments: [RedirectPolicy.follow, .custom(maxRedirects: 2) { _ in .follow }])
    func redirectLoop(_ policy: RedirectPolicy) async throws {
        let hops = LockedBox(0)
        let counting = RedirectPolicy.custom(maxRedirects: policy.maxRedirects) { hop in
            hops.withLock { $0 = max($0, hop.number) }
            return policy.decision(for: hop)
        }
        let configuration = try FaultServer.configuration(redirectPolicy: counting)

        // A loop followed past the maximum never ends: the hard limit cuts it off and the reason below fails. (A
        // tighter bound on the time flaked: 10 hops took 0.08 s alone and 10.7 s under a full parallel run.)
        let (outcome, _) = await bounded(within: Self.hardLimit) { () async throws(APIError) in
            try await GET<Void>("/redirect-loop").request(using: configuration) as APIResponse
        }

        #expect(
            outcome.error?.reason == .transport(.redirectRefused(.tooManyRedirects)),
            "got \(String(describing: outcome))")
        #expect(hops.value == policy.maxRedirects, "followed \(hops.value) hops")

        // The plain policy, without a closure, stops the loop too.
        let plain = try FaultServer.configuration(redirectPolicy: policy)
        let (plainOutcome, _) = await bounded(within: Self.hardLimit) { () async throws(APIError) in
            try await GET<Void>("/redirect-loop").request(using: plain) as APIResponse
        }
        #expect(plainOutcome.error?.reason == .transport(.redirectRefused(.tooManyRedirects)))
    }

    @Test("An endpoint's redirect policy wins over the configuration's, both ways")
    func endpointPolicyWins() async throws {
        // GIVEN a configuration that does not follow, and one that does
        let notFollowing = try FaultServer.configuration(redirectPolicy: .doNotFollow)
        let following = try FaultServer.configuration(redirectPolicy: .follow)
        let followingEndpoint = GET<(to: String, status: Int)>("/redirect", redirectPolicy: .follow) {
            ["to": $0.to, "status": $0.status]
        }
        let stoppingEndpoint = GET<(to: String, status: Int)>(
            "/redirect", acceptableStatusCodes: .any, redirectPolicy: .doNotFollow
        ) { ["to": $0.to, "status": $0.status] }

        // WHEN each endpoint is called under the other policy
        let (followed, _) = await bounded(within: Self.hardLimit) { () async throws(APIError) in
            try await followingEndpoint.request(with: (to: "/headers", status: 302), using: notFollowing) as Echo
        }
        let (stopped, _) = await bounded(within: Self.hardLimit) { () async throws(APIError) in
            try await stoppingEndpoint.request(with: (to: "/headers", status: 302), using: following) as APIResponse
        }

        // THEN the endpoint's policy decided
        #expect(followed.value?.path == "/headers", "got \(String(describing: followed))")
        #expect(stopped.value?.statusCode == 302, "got \(String(describing: stopped))")
    }
}
