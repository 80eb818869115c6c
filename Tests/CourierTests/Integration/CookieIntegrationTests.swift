import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `URLSessionExecutor` keeps URLSession's cookie handling: a cookie a response sets (on a redirect hop too) is
/// stored in the configuration's cookie storage and sent on later calls, and a configuration that accepts no
/// cookies stores none. (On Linux the executor stores them itself; see `CookieJar`.)
@Suite("Integration: cookies", .httpbin)
struct CookieIntegrationTests {
    static let setByRedirect = GET<(name: String, value: String)>("/cookies/set") { [$0.name: $0.value] }
    static let setByResponse = GET<(name: String, value: String)>("/response-headers") {
        ["Set-Cookie": "\($0.name)=\($0.value); Path=/"]
    }
    static let sent = GET<Void>("/cookies")
    /// Two `Set-Cookie` fields in one response, the first with an `Expires` date (which holds a comma).
    static let setTwo = GET<Void>(
        "/response-headers?Set-Cookie=first%3D1%3B%20Path%3D%2F%3B%20Expires%3DWed%2C%2021%20Oct%202037%2007%3A28%3A00%20GMT"
            + "&Set-Cookie=second%3D2%3B%20Path%3D%2F")

    struct Cookies: Decodable {
        let cookies: [String: String]
    }

    /// An executor over a session of its own, with a cookie storage of its own and `policy`.
    static func executor(policy: HTTPCookie.AcceptPolicy = .always) -> (URLSessionExecutor, HTTPCookieStorage) {
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "courier-tests-\(UUID())")
        storage.cookieAcceptPolicy = .always
        let configuration = URLSessionConfiguration.default
        configuration.httpCookieStorage = storage
        configuration.httpCookieAcceptPolicy = policy
        return (URLSessionExecutor(configuration: configuration), storage)
    }

    static func names(in storage: HTTPCookieStorage) -> Set<String> {
        Set((storage.cookies ?? []).map(\.name))
    }

    @Test("A cookie set by a redirect is stored and sent on later calls")
    func cookieFromARedirect() async throws {
        let (executor, storage) = Self.executor()
        let configuration = try HTTPBin.configuration(executor: executor)

        // httpbin answers /cookies/set with a 302 that sets the cookie, to /cookies, which echoes the cookies sent.
        // (Whether the hop itself sends it is URLSession's business: Apple's does, FoundationNetworking's does not.)
        let _: Cookies = try await Self.setByRedirect.request(with: ("redirected", "r1"), using: configuration)
        let later: Cookies = try await Self.sent.request(using: configuration)

        #expect(later.cookies["redirected"] == "r1")
        #expect(Self.names(in: storage) == ["redirected"])
    }

    @Test("A cookie set by a 200 response is stored and sent on later calls")
    func cookieFromAResponse() async throws {
        let (executor, storage) = Self.executor()
        let configuration = try HTTPBin.configuration(executor: executor)

        let response: APIResponse = try await Self.setByResponse.request(with: ("direct", "d1"), using: configuration)
        let later: Cookies = try await Self.sent.request(using: configuration)

        #expect(response.headers[.setCookie] == "direct=d1; Path=/")
        #expect(later.cookies["direct"] == "d1")
        #expect(Self.names(in: storage) == ["direct"])
    }

    @Test("Two Set-Cookie fields in one response, one with an Expires date, are both stored and sent")
    func twoCookiesInOneResponse() async throws {
        let (executor, storage) = Self.executor()
        let configuration = try HTTPBin.configuration(executor: executor)

        let _: APIResponse = try await Self.setTwo.request(using: configuration)
        let later: Cookies = try await Self.sent.request(using: configuration)

        #expect(later.cookies == ["first": "1", "second": "2"])
        #expect(Self.names(in: storage) == ["first", "second"])
        let first = storage.cookies?.first { $0.name == "first" }
        #expect(first?.expiresDate.map { Int($0.timeIntervalSince1970) } == 2_139_722_880)
    }

    @Test("A configuration that accepts no cookies stores none, and the caller's configuration is left as it was")
    func configurationThatAcceptsNone() async throws {
        let (executor, storage) = Self.executor(policy: .never)
        let configuration = try HTTPBin.configuration(executor: executor)

        let _: APIResponse = try await Self.setByResponse.request(with: ("refused", "x"), using: configuration)
        let later: Cookies = try await Self.sent.request(using: configuration)

        #expect(later.cookies.isEmpty)
        #expect(Self.names(in: storage).isEmpty)
        let accepting = URLSessionConfiguration.default
        accepting.httpCookieAcceptPolicy = .always
        _ = URLSessionExecutor(configuration: accepting)
        #expect(accepting.httpCookieAcceptPolicy == .always)
    }
}
