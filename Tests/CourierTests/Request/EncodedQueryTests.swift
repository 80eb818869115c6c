import Foundation
import Testing

@testable import Courier

/// The one reader and writer of query strings (issue 22, item 8): `APIRequest.queryItems`, the cache key, the
/// redactor and pagination read the items through it.
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
        let items = EncodedQuery(url).items.map { URLQueryItem(name: $0.decodedName, value: $0.decodedValue) }
        #expect(items == expected)
    }

    @Test(arguments: [
        ("https://h/p?a=1&b=2", "a=1&b=2"),
        ("https://h/p?flag&x=", "flag&x="),
        ("https://h/p?a=%20#f", "a=%20"),
        ("https://h/p", ""),
    ])
    func textIsTheQueryAsWritten(_ text: String, _ query: String) throws {
        #expect(EncodedQuery(try #require(URL(string: text))).text == query)
    }

    @Test(arguments: [
        ("https://h/p?a=1&b=2#top", ["a"], "https://h/p?b=2#top"),
        ("https://h/p?a=1", ["a"], "https://h/p"),
        ("https://h/p?a=1&a=2&c=3", ["a", "c"], "https://h/p"),
        ("https://h/p?%61=1&b=2", ["a"], "https://h/p?b=2"),
    ])
    func removingItemsRewritesOnlyTheQuery(_ text: String, _ removed: [String], _ expected: String) throws {
        let url = try #require(URL(string: text))
        var query = EncodedQuery(url)
        query.items.removeAll { removed.contains($0.decodedName) }
        #expect(query.replacingQuery(of: url)?.absoluteString == expected)
    }

    @Test func addingAnItemToAURLWithoutAQuery() throws {
        let url = try #require(URL(string: "https://h/p#frag"))
        var query = EncodedQuery(url)
        query.items.append(EncodedQuery.Item(name: "cursor", value: "x%2Fy"))
        #expect(query.replacingQuery(of: url)?.absoluteString == "https://h/p?cursor=x%2Fy#frag")
    }

    /// A plugin that edits `url` is seen by `queryItems`: the items are read from the URL the request holds now.
    @Test func queryItemsFollowAnEditedURL() throws {
        let endpoint = GET<String>(wrappedValue: .init { ["q": $0] }, "/search")
        var request = try endpoint.makeRequest(
            with: "a b", using: APIConfiguration(baseURL: URL(string: "https://api.example.com?v=2")))
        #expect(request.queryItems == [URLQueryItem(name: "v", value: "2"), URLQueryItem(name: "q", value: "a b")])
        request.url = try #require(URL(string: request.url.absoluteString + "&key=k"))
        #expect(request.queryItems.map(\.name) == ["v", "q", "key"])
    }
}
