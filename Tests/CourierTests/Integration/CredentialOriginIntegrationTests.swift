import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A configuration's auth plugins against the fault server's three origins, with the real `URLSessionExecutor`: the
/// credentials reach the base URL's origin and the origins named for them, and each other origin's own record shows
/// that none arrived there.
@Suite("Integration: credentials per origin", .faultServer)
struct CredentialOriginIntegrationTests {
    /// The plugins of the configuration: a bearer token, an API key in a header, and one in the query.
    static func plugins(extra: [URL]) -> [any APIPlugin] {
        let origins: CredentialOrigins = extra.isEmpty ? .configuredOrigins : .configuredOrigins(and: extra)
        return [
            AuthPlugin.bearer("origin-token").sent(to: origins),
            AuthPlugin.apiKey("origin-key", header: "X-API-Key").sent(to: origins),
        ]
    }

    @Test(
        "Each origin's record shows the credentials only where the configuration sends them",
        arguments: FaultServer.Origin.allCases)
    func eachOrigin(_ origin: FaultServer.Origin) async throws {
        // GIVEN a configuration on the main origin whose plugins add credentials, and one that also names `origin`
        let url = try origin.baseText() + "/headers"
        let named = try #require(URL(string: url))
        let plain = try FaultServer.configuration(plugins: Self.plugins(extra: []))
        let naming = try FaultServer.configuration(plugins: Self.plugins(extra: [named]))

        // WHEN each calls the origin's /headers by its absolute URL
        let sent: FaultRedirectIntegrationTests.Echo = try await GET<Void>(url).request(using: plain)
        let sentNaming: FaultRedirectIntegrationTests.Echo = try await GET<Void>(url).request(using: naming)

        // THEN the plain one's credentials arrived at the main origin only, the naming one's everywhere
        let expected = origin == .main
        #expect((sent.header("Authorization") == "Bearer origin-token") == expected)
        #expect((sent.header("X-API-Key") == "origin-key") == expected)
        #expect(sentNaming.header("Authorization") == "Bearer origin-token")
        #expect(sentNaming.header("X-API-Key") == "origin-key")
    }
}
