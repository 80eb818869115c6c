import Foundation
import Testing

@testable import Courier

/// `HTTPProxy`: which proxy a URL goes through, `NO_PROXY` matching, proxy URLs, the environment, and printing.
@Suite("HTTPProxy")
struct HTTPProxyTests {
    static let corporate = HTTPProxy.Server(host: "proxy.corp.example", port: 3128, username: "svc", password: "s3cret")

    @Test(
        "A bypass entry covers a host (and port) or not",
        arguments: [
            ("example.com", "https://example.com/a", true),
            ("example.com", "https://api.example.com/a", true),
            (".example.com", "https://example.com/a", true),
            ("*.example.com", "https://a.b.example.com/a", true),
            ("example.com", "https://notexample.com/a", false),
            ("example.com", "https://example.com.evil.test/a", false),
            ("EXAMPLE.com", "https://Example.COM/a", true),
            ("*", "https://anything.test/a", true),
            ("example.com:8443", "https://example.com:8443/a", true),
            ("example.com:8443", "https://example.com/a", false),
            ("example.com:443", "https://example.com/a", true),
            ("127.0.0.1", "http://127.0.0.1:8080/a", true),
            ("127.0.0.1", "http://127.0.0.2/a", false),
            ("10.0.0.0/8", "http://10.20.30.40/a", true),
            ("10.0.0.0/8", "http://11.0.0.1/a", false),
            ("192.168.1.0/25", "http://192.168.1.127/a", true),
            ("192.168.1.0/25", "http://192.168.1.128/a", false),
            ("::1", "http://[::1]:9000/a", true),
            ("[::1]:9000", "http://[::1]:9000/a", true),
            ("[::1]:9000", "http://[::1]:9001/a", false),
            ("fd00::/8", "http://[fd12::1]/a", true),
            ("fd00::/8", "http://10.0.0.1/a", false),
            ("10.0.0.0/8", "http://ten.example/a", false),
            ("", "https://example.com/a", false),
            (".", "https://example.com/a", false),
        ])
    func bypass(entry: String, url: String, bypassed: Bool) throws {
        let proxy = HTTPProxy(Self.corporate, bypass: [entry])
        let url = try #require(URL(string: url))
        #expect(proxy.server(for: url) == (bypassed ? nil : Self.corporate))
    }

    @Test(
        "The scheme picks the proxy: http and ws the http one, https and wss the https one",
        arguments: [("http", "h"), ("ws", "h"), ("https", "s"), ("wss", "s"), ("ftp", nil)])
    func scheme(scheme: String, expected: String?) throws {
        let proxy = HTTPProxy(
            http: HTTPProxy.Server(host: "h", port: 1), https: HTTPProxy.Server(host: "s", port: 2))
        let url = try #require(URL(string: "\(scheme)://example.com/a"))
        #expect(proxy.server(for: url)?.host == expected)
    }

    @Test(
        "A proxy URL: scheme, credentials, port; anything but an HTTP proxy is nil",
        arguments: [
            ("http://proxy:3128", HTTPProxy.Server(host: "proxy", port: 3128)),
            ("proxy:3128", HTTPProxy.Server(host: "proxy", port: 3128)),
            ("http://proxy", HTTPProxy.Server(host: "proxy", port: 80)),
            ("http://proxy:3128/", HTTPProxy.Server(host: "proxy", port: 3128)),
            ("HTTP://u:p%40ss@proxy:1", HTTPProxy.Server(host: "proxy", port: 1, username: "u", password: "p@ss")),
            ("http://u@proxy:1", HTTPProxy.Server(host: "proxy", port: 1, username: "u")),
            ("http://[::1]:3128", HTTPProxy.Server(host: "::1", port: 3128)),
            ("socks5://proxy:1080", nil),
            ("https://proxy:443", nil),
            ("http://proxy:3128/path", nil),
            ("http://", nil),
            ("", nil),
        ])
    func serverURL(text: String, expected: HTTPProxy.Server?) {
        #expect(HTTPProxy.Server(url: text) == expected)
    }

    @Test("The environment: lowercase wins, empty is unset, all_proxy fills in, no_proxy is the bypass list")
    func environment() throws {
        let proxy = try HTTPProxy.environment([
            "https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2", "http_proxy": "",
            "ALL_PROXY": "http://all:3", "NO_PROXY": " .corp.example , 10.0.0.0/8,, ",
        ])
        #expect(proxy.https == HTTPProxy.Server(host: "lower", port: 1))
        #expect(proxy.http == HTTPProxy.Server(host: "all", port: 3))
        #expect(proxy.bypass == [".corp.example", "10.0.0.0/8"])
        #expect(try HTTPProxy.environment([:]) == HTTPProxy())
        #expect(try HTTPProxy.environment(["HTTP_PROXY": "up:1"]).http?.host == "up")
    }

    @Test("HTTP_PROXY is ignored in a CGI program (REQUEST_METHOD set); http_proxy and HTTPS_PROXY are not")
    func cgi() throws {
        let cgi = ["REQUEST_METHOD": "GET", "HTTP_PROXY": "http://attacker:1", "HTTPS_PROXY": "http://corp:2"]
        let proxy = try HTTPProxy.environment(cgi)
        #expect(proxy.http == nil)
        #expect(proxy.https?.host == "corp")
        #expect(try HTTPProxy.environment(["REQUEST_METHOD": "GET", "http_proxy": "http://own:3"]).http?.host == "own")
    }

    @Test(
        "A variable that names no HTTP proxy throws, naming it, its password masked",
        arguments: [("HTTPS_PROXY", "socks5://u:pw-hidden@proxy:1080"), ("http_proxy", "https://proxy:443")])
    func badVariable(name: String, value: String) {
        let problem = #expect(throws: HTTPProxy.EnvironmentProblem.self) {
            try HTTPProxy.environment([name: value])
        }
        #expect(problem?.variable == name)
        #expect(problem?.description.hasPrefix(name + "=") == true)
        #expect(problem?.description.contains("pw-hidden") == false)
    }

    @Test("Printing a proxy never shows its password")
    func printing() {
        let proxy = HTTPProxy(Self.corporate, bypass: ["localhost"])
        for text in [proxy.description, "\(proxy)", String(reflecting: proxy), Self.corporate.description] {
            #expect(!text.contains("s3cret"), "\(text)")
        }
        #expect(Self.corporate.description == "http://svc:***@proxy.corp.example:3128")
        #expect(HTTPProxy().description == "HTTPProxy(none)")
    }
}
