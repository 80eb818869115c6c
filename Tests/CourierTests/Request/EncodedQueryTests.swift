import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A request's query as items: built from the parameters as items, kept as items to the
/// executor; text is read into items only where it comes from outside Courier (a URL the user assigns).
struct EncodedQueryTests {
    /// URLs whose decoded items must equal what `URLComponents` reads.
    static let urls = [
        "https://h/p",
        "https://h/p?",
        "https://h/p?a=1",
        "https://h/p?a=1&b=2&a=3",
        "https://h/p?flag&x=",
        "https://h/p?a=1&&b=2",
        "https://h/p?q=caf%C3%A9%20au%20lait&plus=a+b",
        "https://h/p?eq=a=b=c",
        "https://h/p?a=1#frag?x=2&y",
        "https://h/p?%5Bk%5D=v%26w",
        "https://user:pw@h:8080/p/q?token=s%2Fx",
    ]

    @Test(arguments: urls)
    func decodedItemsMatchURLComponents(_ text: String) throws {
        let url = try #require(URL(string: text))
        let expected = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let items = RequestTarget(url: url).query.decodedItems
        #expect(items == expected)
    }

    @Test(arguments: [
        ("https://h/p?a=1&b=2", "a=1&b=2"),
        ("https://h/p?flag&x=", "flag&x="),
        ("https://h/p?a=%20#f", "a=%20"),
        ("https://h/p", ""),
    ])
    func textIsTheQueryAsWritten(_ text: String, _ query: String) throws {
        #expect(RequestTarget(url: try #require(URL(string: text))).query.text == query)
    }

    @Test(arguments: [
        ("https://h/p?a=1&b=2#top", ["a"], "https://h/p?b=2#top"),
        ("https://h/p?a=1", ["a"], "https://h/p"),
        ("https://h/p?a=1&a=2&c=3", ["a", "c"], "https://h/p"),
        ("https://h/p?%61=1&b=2", ["a"], "https://h/p?b=2"),
    ])
    func removingItemsRewritesOnlyTheQuery(_ text: String, _ removed: [String], _ expected: String) throws {
        let target = RequestTarget(url: try #require(URL(string: text)))
        var query = target.query
        query.items.removeAll { removed.contains($0.decodedName) }
        #expect(target.replacingQuery(with: query)?.url.absoluteString == expected)
    }

    @Test func addingAnItemToAURLWithoutAQuery() throws {
        let target = RequestTarget(url: try #require(URL(string: "https://h/p#frag")))
        var query = target.query
        query.items.append(EncodedQuery.Item(encodedName: "cursor", encodedValue: "x%2Fy"))
        #expect(target.replacingQuery(with: query)?.url.absoluteString == "https://h/p?cursor=x%2Fy#frag")
    }

    /// A URL the user assigns replaces the query: `queryItems` are then the ones of that URL.
    @Test func queryItemsFollowAnAssignedURL() throws {
        let endpoint = GET<String>(wrappedValue: .init { ["q": $0] }, "/search")
        var request = try endpoint.makeRequest(
            with: "a b", using: APIConfiguration(baseURL: URL(string: "https://api.example.com?v=2")))
        #expect(request.queryItems == [URLQueryItem(name: "v", value: "2"), URLQueryItem(name: "q", value: "a b")])
        request.url = try #require(URL(string: request.url.absoluteString + "&key=k"))
        #expect(request.queryItems.map(\.name) == ["v", "q", "key"])
    }

    /// A built request keeps its query as the items it was built from, and its URL is written from them.
    @Test func aBuiltRequestKeepsItsItems() throws {
        let endpoint = GET<String>(wrappedValue: .init { ["q": $0, "n": 2] }, "/search?static=a,b")
        let request = try endpoint.makeRequest(
            with: "a&b", using: APIConfiguration(baseURL: URL(string: "https://api.example.com/v1?v=2")))
        #expect(request.target.head == "https://api.example.com/v1/search")
        #expect(
            request.encodedQuery.items == [
                EncodedQuery.Item(encodedName: "v", encodedValue: "2"),
                EncodedQuery.Item(encodedName: "static", encodedValue: "a,b"),
                EncodedQuery.Item(encodedName: "q", encodedValue: "a%26b"),
                EncodedQuery.Item(encodedName: "n", encodedValue: "2"),
            ])
        #expect(request.url.absoluteString == "https://api.example.com/v1/search?v=2&static=a,b&q=a%26b&n=2")
    }

    /// Setting `queryItems` rebuilds the URL from the items: new ones are encoded with the query rule, unchanged ones
    /// keep their encoding (the static query's `,`), a removed one goes.
    @Test(arguments: [
        (
            [("static", "a,b"), ("q", "x"), ("locale", "de CH")],
            "https://h/p?static=a,b&q=x&locale=de%20CH"
        ),
        ([("q", "x")], "https://h/p?q=x"),
        ([], "https://h/p"),
        ([("static", "a,b"), ("q", "x/y&z")], "https://h/p?static=a,b&q=x%2Fy%26z"),
    ])
    func settingQueryItemsRebuildsTheURL(_ items: [(String, String)], _ expected: String) throws {
        let endpoint = GET<String>(wrappedValue: .init { ["q": $0] }, "/p?static=a,b")
        var request = try endpoint.makeRequest(with: "x", using: APIConfiguration(baseURL: URL(string: "https://h")))
        request.queryItems = items.map { URLQueryItem(name: $0.0, value: $0.1) }
        #expect(request.url.absoluteString == expected)
        #expect(request.queryItems == items.map { URLQueryItem(name: $0.0, value: $0.1) })
    }

    /// A plugin adds a query item through the request's API; the URL the executor sends holds it, encoded.
    @Test func aPluginAddsAQueryItem() async throws {
        struct Locale: APIPlugin {
            func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
                var request = request
                request.queryItems.append(URLQueryItem(name: "locale", value: "de CH"))
                return try await next(request)
            }
        }
        let stub = StubExecutor().stubEverything(with: .status(200))
        let configuration = APIConfiguration(baseURL: URL(string: "https://h"), executor: stub, plugins: [Locale()])
        let endpoint = GET<String>(wrappedValue: .init { ["q": $0] }, "/p")
        _ = try await endpoint.request(with: "a b", using: configuration) as APIResponse
        #expect(stub.requests.map(\.url.absoluteString) == ["https://h/p?q=a%20b&locale=de%20CH"])
    }
}

/// The readers of a request's query items — the redactor and the cache key — agree with what reading the URL's text
/// gives: a built request (items kept from the encoder) and the same URL assigned by the user (read as text) print and
/// key alike.
struct QueryItemReadersTests {
    static let configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com/v1?v=2"))

    /// Queries whose items must print and key the same whether kept or read back.
    static let parameters: [[String: String]] = [
        ["q": "a b"],
        ["api_key": "k3y-secret", "page": "2"],
        ["password": "p&ss=word", "token": "t/ok", "x": "é"],
        ["sig": "a+b", "n": ""],
    ]

    static func request(_ parameters: [String: String]) throws -> APIRequest {
        let endpoint = GET<[String: String]>(
            wrappedValue: .init { values in
                var built: Parameters = [:]
                for (name, value) in values.sorted(by: { $0.key < $1.key }) { built.append(name, value) }
                return built
            }, "/search?static=a,b")
        return try endpoint.makeRequest(with: parameters, using: configuration)
    }

    @Test(arguments: parameters)
    func redactionFromItemsMatchesRedactionOfTheText(_ parameters: [String: String]) throws {
        let built = try Self.request(parameters)
        var assigned = built
        assigned.url = built.url
        #expect(assigned.target.head == nil)
        #expect(built.description == assigned.description)
        #expect(SensitiveData.redacted(built.url, for: built) == SensitiveData.redacted(assigned.url, for: assigned))
        for (name, value) in parameters where SensitiveData.isSensitiveKey(name) && value.count >= 4 {
            #expect(!built.description.contains(PercentEncoding.encode(value, allowing: .unreserved)))
        }
    }

    @Test(arguments: parameters)
    func cacheKeyFromItemsMatchesTheKeyOfTheText(_ parameters: [String: String]) throws {
        let built = try Self.request(parameters)
        var assigned = built
        assigned.url = built.url
        for ignored in [[], ["page"], ["q", "static"]] as [Set<String>] {
            var policy = CachePolicy.cacheElseNetwork()
            policy.ignoredQueryItems = ignored
            let fromItems = try #require(HTTPCaching.key(for: built, policy: policy))
            let fromText = try #require(HTTPCaching.key(for: assigned, policy: policy))
            #expect(fromItems.key == fromText.key)
            #expect(fromItems.hasCredentials == fromText.hasCredentials)
        }
    }

    /// The API-key auth plugin adds its item through the request's items; the item is secret wherever the request
    /// prints, whatever its name.
    @Test func theAuthPluginsQueryItemIsMasked() async throws {
        let stub = StubExecutor().stubEverything(with: .status(200))
        let configuration = Self.configuration.with {
            $0.executor = stub
            $0.plugins = [.apiKey("abcd-1234", queryItem: "key")]
        }
        _ = try await GET<Void>("/r").request(using: configuration) as APIResponse
        let sent = try #require(stub.requests.first)
        #expect(sent.url.absoluteString == "https://api.example.com/v1/r?v=2&key=abcd-1234")
        #expect(sent.queryItems.last == URLQueryItem(name: "key", value: "abcd-1234"))
        #expect(sent.description == "GET https://api.example.com/v1/r?v=2&key=***")
    }
}
