import Courier
import Foundation
import Testing

@Suite("Redirect policy decisions")
struct RedirectPolicyTests {
    private static func hop(_ from: String, _ to: String, number: Int = 1) -> RedirectHop {
        RedirectHop(statusCode: 302, headers: ["Location": to], from: url(from), to: url(to), number: number)
    }

    /// Every URL in these tests is valid; an invalid one would make its test fail, not crash.
    private static func url(_ text: String) -> URL {
        URL(string: text) ?? URL(fileURLWithPath: "/not-a-url")
    }

    @Test(
        "An origin is scheme, host and port, with the scheme's default port",
        arguments: [
            ("https://a.example/x", "https://a.example/y", false),
            ("https://a.example/x", "https://a.example:443/y", false),
            ("http://a.example/x", "http://A.EXAMPLE:80/y?q=1", false),
            ("https://a.example/x", "https://b.example/x", true),
            ("https://a.example/x", "https://a.example:8443/x", true),
            ("http://a.example/x", "https://a.example/x", true),
            ("http://127.0.0.1:8080/x", "http://127.0.0.2:8080/x", true),
        ])
    func crossOrigin(from: String, to: String, isCrossOrigin: Bool) {
        #expect(Self.hop(from, to).isCrossOrigin == isCrossOrigin)
    }

    @Test("https → http is refused by default, and followed only when the policy allows it")
    func downgrade() {
        let hop = Self.hop("https://a.example/x", "http://a.example/x")
        #expect(hop.isDowngrade)
        #expect(RedirectPolicy.follow.decision(for: hop) == .fail(.insecureRedirect))
        #expect(RedirectPolicy.custom { _ in .follow }.decision(for: hop) == .fail(.insecureRedirect))
        #expect(RedirectPolicy.custom(allowsInsecureRedirects: true) { _ in .follow }.decision(for: hop) == .follow)
        #expect(!Self.hop("http://a.example/x", "https://a.example/x").isDowngrade)
    }

    @Test("The hop limit is checked before the policy's own rule")
    func hopLimit() {
        #expect(RedirectPolicy.follow.decision(for: Self.hop("http://a/x", "http://a/y", number: 10)) == .follow)
        #expect(
            RedirectPolicy.follow.decision(for: Self.hop("http://a/x", "http://a/y", number: 11))
                == .fail(.tooManyRedirects))
        let asked = LockedBox(0)
        let policy = RedirectPolicy.custom(maxRedirects: 2) { _ in
            asked.withLock { $0 += 1 }
            return .follow
        }
        #expect(policy.decision(for: Self.hop("http://a/x", "http://a/y", number: 3)) == .fail(.tooManyRedirects))
        #expect(asked.value == 0)
    }

    @Test("doNotFollow stops at every redirect; a custom rule decides the rest")
    func customAndDoNotFollow() {
        let hop = Self.hop("https://a.example/x", "https://cdn.example/x")
        #expect(RedirectPolicy.doNotFollow.decision(for: hop) == .stop)
        let onlyCDN = RedirectPolicy.custom { $0.to.host == "cdn.example" ? .follow : .refuse }
        #expect(onlyCDN.decision(for: hop) == .follow)
        #expect(onlyCDN.decision(for: Self.hop("https://a.example/x", "https://evil.example/x")) == .refuse)
        #expect(RedirectDecision.refuse == .fail(.refusedByPolicy))
    }

    @Test("Endpoints override the configuration's policy and size limit; the request carries both")
    func precedence() throws {
        let configuration = APIConfiguration(
            baseURL: URL(string: "https://api.example.com"), redirectPolicy: .doNotFollow, maxResponseBytes: 10,
            sensitiveNames: ["X-Session"])
        let plain = try GET<Void>("/a").makeRequest(using: configuration)
        #expect(plain.redirectPolicy.followsRedirects == false)
        #expect(plain.maxResponseBytes == 10)
        #expect(plain.sensitiveNames == ["X-Session"])

        let own = try GET<Void>("/a", redirectPolicy: .follow, maxResponseBytes: 20).makeRequest(using: configuration)
        #expect(own.redirectPolicy.followsRedirects)
        #expect(own.maxResponseBytes == 20)
        #expect(APIConfiguration().maxResponseBytes == 100 * 1024 * 1024)
    }

    @Test("The refusals describe themselves in errors")
    func descriptions() {
        let reason = APIError.Reason.transport(.redirectRefused(.insecureRedirect))
        #expect(reason.description == "transport failure: a redirect from https to http was refused")
        #expect(APIError.TransportProblem.responseTooLarge.description.contains("larger than the limit"))
    }
}
