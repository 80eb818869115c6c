import Courier
import Foundation
import Testing

@Suite struct PathTemplateTests {
    static let item = GET<String>(wrappedValue: .init { ["name": $0] }, "/items/{name}")

    /// (value, expected percent-encoded path)
    static let encodings: [(String, String)] = [
        ("plain", "/v2/items/plain"),
        ("a b", "/v2/items/a%20b"),
        ("a/b", "/v2/items/a%2Fb"),
        ("what?", "/v2/items/what%3F"),
        ("100%", "/v2/items/100%25"),
        ("#tag", "/v2/items/%23tag"),
        ("é", "/v2/items/%C3%A9"),
        ("東京", "/v2/items/%E6%9D%B1%E4%BA%AC"),
        ("🚀", "/v2/items/%F0%9F%9A%80"),
        ("a+b&c=d", "/v2/items/a%2Bb%26c%3Dd"),
        ("...", "/v2/items/..."),
        ("-._~", "/v2/items/-._~"),
    ]

    @Test(arguments: encodings)
    func valueIsEncodedAsOneSegment(value: String, expectedPath: String) throws {
        let request = try Self.item.makeRequest(with: value, using: testConfiguration)
        #expect(request.url.absoluteString == "https://api.example.com" + expectedPath)
    }

    @Test(arguments: [".", "..", ""])
    func dotSegmentsAndEmptyValuesAreRejected(value: String) throws {
        let error = try #require(buildError { try Self.item.makeRequest(with: value, using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.invalidPathValue(name: "name")))
        #expect(
            error.description == "GET /items/{name}: path parameter 'name' would make an empty, '.' or '..' segment")
        #expect(error.request == nil)
    }

    static let object = GET<String>(wrappedValue: .init { ["key": $0] }, "/buckets/b/{key...}")

    /// (value, expected percent-encoded path) for a multi-segment `{key...}` placeholder.
    static let multiSegmentEncodings: [(String, String)] = [
        ("photos/2024/a.jpg", "/v2/buckets/b/photos/2024/a.jpg"),
        ("a.jpg", "/v2/buckets/b/a.jpg"),
        ("my photos/été 1.jpg", "/v2/buckets/b/my%20photos/%C3%A9t%C3%A9%201.jpg"),
        ("a?b/c#d", "/v2/buckets/b/a%3Fb/c%23d"),
        ("100%/x+y", "/v2/buckets/b/100%25/x%2By"),
        (".../...", "/v2/buckets/b/.../..."),
        (".well-known/x", "/v2/buckets/b/.well-known/x"),
    ]

    @Test("{key...} keeps the slashes and encodes each segment", arguments: multiSegmentEncodings)
    func multiSegmentValueKeepsSlashes(value: String, expectedPath: String) throws {
        let request = try Self.object.makeRequest(with: value, using: testConfiguration)
        #expect(request.url.absoluteString == "https://api.example.com" + expectedPath)
        #expect(request.url.path == expectedPath.removingPercentEncoding)
    }

    @Test(
        "{key...} still rejects empty, '.' and '..' segments anywhere in the value",
        arguments: ["", "/a", "a/", "a//b", ".", "..", "a/./b", "a/../b", "../etc/passwd", "a/.."])
    func multiSegmentRejectsDotAndEmptySegments(value: String) throws {
        let error = try #require(buildError { try Self.object.makeRequest(with: value, using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.invalidPathValue(name: "key")))
    }

    @Test func multiSegmentPlaceholdersMixWithOthers() throws {
        let file = GET<(bucket: String, key: String)>(
            wrappedValue: .init { ["bucket": $0.bucket, "key": $0.key, "v": 1] }, "/{bucket}/{key...}.json")
        let request = try file.makeRequest(with: (bucket: "a/b", key: "x/y z"), using: testConfiguration)
        #expect(request.url.absoluteString == "https://api.example.com/v2/a%2Fb/x/y%20z.json?v=1")
        #expect(file.endpoint.pathParameterNames == ["bucket", "key"])
    }

    @Test func aSecretMultiSegmentValueIsMaskedInDescriptions() throws {
        let share = GET<String>(wrappedValue: .init { ["token": $0] }, "/share/{token...}")
        let request = try share.makeRequest(with: "s3cr3t-part-one/s3cr3t-part-two", using: testConfiguration)

        #expect(request.url.path == "/v2/share/s3cr3t-part-one/s3cr3t-part-two")
        #expect(!"\(request)".contains("s3cr3t"))
        #expect("\(request)".contains("***"))
    }

    @Test func midSegmentTemplatesWork() throws {
        let file = GET<(name: String, ext: String)>(
            wrappedValue: .init { ["name": $0.name, "ext": $0.ext] },
            "/files/{name}.{ext}"
        )
        let request = try file.makeRequest(with: (name: "read me", ext: "json"), using: testConfiguration)
        #expect(request.url.absoluteString == "https://api.example.com/v2/files/read%20me.json")
        #expect(request.rawQuery == nil)
    }

    @Test func midSegmentDotsAreNotRejected() throws {
        let file = GET<String>(wrappedValue: .init { ["name": $0] }, "/files/{name}.json")
        let request = try file.makeRequest(with: ".", using: testConfiguration)
        #expect(request.url.path == "/v2/files/..json")
    }

    @Test func filledValuesLeaveTheQuery() throws {
        let repo = GET<(owner: String, repo: String, page: Int)>(
            wrappedValue: .init { ["owner": $0.owner, "repo": $0.repo, "page": $0.page] },
            "/repos/{owner}/{repo}/issues"
        )
        let request = try repo.makeRequest(with: (owner: "apple", repo: "swift", page: 3), using: testConfiguration)
        #expect(request.url.absoluteString == "https://api.example.com/v2/repos/apple/swift/issues?page=3")
    }

    @Test func nonStringValuesUseTheirTextForm() throws {
        let byID = GET<(id: Int, flag: Bool, ratio: Double)>(
            wrappedValue: .init { ["id": $0.id, "flag": $0.flag, "ratio": $0.ratio] },
            "/things/{id}/{flag}/{ratio}"
        )
        let request = try byID.makeRequest(with: (id: 42, flag: true, ratio: 0.5), using: testConfiguration)
        #expect(request.url.path == "/v2/things/42/true/0.5")
    }

    @Test func modelKeysFillThePath() throws {
        struct Lookup: Encodable, Sendable {
            let user: String
            let includeRepos: Bool
        }
        let lookup = GET<Lookup>(wrappedValue: .init { $0 }, "/users/{user}")
        let request = try lookup.makeRequest(with: Lookup(user: "o/o", includeRepos: false), using: testConfiguration)
        #expect(request.url.absoluteString == "https://api.example.com/v2/users/o%2Fo?includeRepos=false")
    }

    @Test func missingValueIsAnError() throws {
        let endpoint = GET<String?>(wrappedValue: .init { ["name": $0] }, "/items/{name}")
        let error = try #require(buildError { try endpoint.makeRequest(with: nil, using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.missingPathValue(name: "name")))
        #expect(error.description == "GET /items/{name}: missing value for path parameter 'name'")
    }

    @Test func missingValueWithoutBuilderIsAnError() throws {
        let endpoint = GET<Void>("/items/{name}")
        let error = try #require(buildError { try endpoint.makeRequest(using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.missingPathValue(name: "name")))
    }

    @Test func arrayValueIsAnError() throws {
        let endpoint = GET<[String]>(wrappedValue: .init { ["name": $0] }, "/items/{name}")
        let error = try #require(buildError { try endpoint.makeRequest(with: ["a", "b"], using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.unsupportedPathValue(name: "name")))
    }

    @Test(arguments: ["/items/{name", "/items/name}", "/items/{}", "/items/{a/b}", "/items/{{a}}", "/items/{...}"])
    func malformedTemplateIsAnError(path: String) throws {
        let endpoint = GET<String>(wrappedValue: .init { ["name": $0] }, path)
        let error = try #require(buildError { try endpoint.makeRequest(with: "x", using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.malformedPathTemplate))
        #expect(error.description.hasPrefix("GET \(path): "))
    }

    /// A `%` not followed by two hex digits made `URL(string:)` fail and re-encode the whole URL, so every
    /// value came out double-encoded (`a b` → `a%2520b`).
    @Test(arguments: [
        "/files%zz/{name}", "/x/{name}?r=%zz", "/a%2/{name}", "/a/{name}%", "/x/{name}?r=%g0", "/f/%E9%zz/{name}",
        "/{name}?a=1&b=%", "%/{name}",
    ])
    func invalidPercentEscapesAreAMalformedTemplate(path: String) throws {
        let endpoint = GET<String>(wrappedValue: .init { ["name": $0] }, path)
        let error = try #require(buildError { try endpoint.makeRequest(with: "a b", using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.malformedPathTemplate))
        #expect(error.description.hasPrefix("GET \(path): "))
        #expect(error.description.contains("'%'"))
    }

    @Test func validPercentEscapesStayAsWritten() throws {
        let endpoint = GET<String>(wrappedValue: .init { ["name": $0, "q": $0] }, "/files%2F%aa/{name}?r=%41%2b")
        let request = try endpoint.makeRequest(with: "a b", using: testConfiguration)
        #expect(request.url.absoluteString == "https://api.example.com/v2/files%2F%aa/a%20b?r=%41%2b&q=a%20b")
    }

    @Test func literalPathTextIsEncodedOnceAndEscapesSurvive() throws {
        let endpoint = GET<Void>("/search results/caf%C3%A9")
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(request.url.absoluteString == "https://api.example.com/v2/search%20results/caf%C3%A9")
    }

    @Test func pathParameterNamesAreExposed() {
        let endpoint = GET<Void>("/repos/{owner}/{repo}/files/{name}.json")
        #expect(endpoint.endpoint.pathParameterNames == ["owner", "repo", "name"])
    }
}
