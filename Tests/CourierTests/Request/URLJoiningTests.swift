import Courier
import Foundation
import Testing

@Suite struct URLJoiningTests {
    /// (base URL, endpoint path, expected URL)
    static let cases: [(String, String, String)] = [
        ("https://h/api/v2", "/users", "https://h/api/v2/users"),
        ("https://h/api/v2/", "/users", "https://h/api/v2/users"),
        ("https://h/api/v2", "users", "https://h/api/v2/users"),
        ("https://h/api/v2/", "users", "https://h/api/v2/users"),
        ("https://h/api/v2//", "//users", "https://h/api/v2/users"),
        ("https://h", "/users", "https://h/users"),
        ("https://h/", "/users", "https://h/users"),
        ("https://h:8080/base", "/users/", "https://h:8080/base/users/"),
        ("https://h/api", "", "https://h/api"),
        ("https://h/api", "/", "https://h/api/"),
        ("https://h/api", "/get?a=1&b=two", "https://h/api/get?a=1&b=two"),
        ("https://h/api?key=k", "/get", "https://h/api/get?key=k"),
        ("https://h/api?key=k", "/get?a=1", "https://h/api/get?key=k&a=1"),
        ("https://h/api", "https://other.example/x", "https://other.example/x"),
        ("https://h/api", "http://other.example:81/x?y=1", "http://other.example:81/x?y=1"),
        ("https://h/api#frag", "/users", "https://h/api/users"),
    ]

    @Test(arguments: cases)
    func pathIsAppendedToTheBaseURL(base: String, path: String, expected: String) throws {
        let endpoint = GET<Void>(path)
        let configuration = APIConfiguration(baseURL: URL(string: base))
        let request = try endpoint.makeRequest(using: configuration)
        #expect(request.url.absoluteString == expected)
    }

    @Test func parametersFollowTheStaticQuery() throws {
        let endpoint = GET<Int>(wrappedValue: .init { ["page": $0] }, "/get?sort=asc")
        let request = try endpoint.makeRequest(with: 2, using: testConfiguration)
        #expect(request.url.absoluteString == "https://api.example.com/v2/get?sort=asc&page=2")
    }

    @Test func aFixedEndpointsURLFollowsTheBaseOfEachCall() throws {
        // A fixed template's URL is parsed once per base: the next call on another base must not reuse it.
        let endpoint = GET<Void>("/status?verbose=1")
        let first = APIConfiguration(baseURL: URL(string: "https://one.example/api"))
        let second = APIConfiguration(baseURL: URL(string: "https://two.example"))
        for _ in 0..<2 {
            #expect(
                try endpoint.makeRequest(using: first).url.absoluteString == "https://one.example/api/status?verbose=1")
            #expect(
                try endpoint.makeRequest(using: second).url.absoluteString == "https://two.example/status?verbose=1")
        }
        let absolute = GET<Void>("https://status.example.com/health")
        #expect(try absolute.makeRequest(using: first).url.absoluteString == "https://status.example.com/health")
        #expect(try absolute.makeRequest(using: second).url.absoluteString == "https://status.example.com/health")
    }

    @Test func aFixedEndpointWithQueryParametersBuildsEachCallsURL() throws {
        let endpoint = GET<Int>(wrappedValue: .init { ["page": $0] }, "/get")
        let none = GET<Int?>(wrappedValue: .init { ["page": $0] }, "/get")
        for page in 1...3 {
            let request = try endpoint.makeRequest(with: page, using: testConfiguration)
            #expect(request.url.absoluteString == "https://api.example.com/v2/get?page=\(page)")
        }
        #expect(
            try none.makeRequest(with: nil, using: testConfiguration).url.absoluteString
                == "https://api.example.com/v2/get")
        #expect(
            try none.makeRequest(with: 4, using: testConfiguration).url.absoluteString
                == "https://api.example.com/v2/get?page=4")
        #expect(
            try none.makeRequest(with: nil, using: testConfiguration).url.absoluteString
                == "https://api.example.com/v2/get")
    }

    @Test func absoluteURLWorksWithoutABaseURL() throws {
        let endpoint = GET<Void>("https://status.example.com/health")
        let request = try endpoint.makeRequest(using: APIConfiguration())
        #expect(request.url.absoluteString == "https://status.example.com/health")
    }

    @Test func endpointBaseURLOverridesTheConfiguration() throws {
        let endpoint = GET<Void>("/files", baseURL: URL(string: "https://cdn.example.com/v1"))
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(request.url.absoluteString == "https://cdn.example.com/v1/files")
    }

    @Test func namedHostsResolveThroughTheConfiguration() throws {
        var configuration = testConfiguration
        configuration.hosts["uploads"] = URL(string: "https://uploads.example.com/u")
        let endpoint = POST<Void>("/files", host: "uploads")
        let request = try endpoint.makeRequest(using: configuration)
        #expect(request.url.absoluteString == "https://uploads.example.com/u/files")
    }

    static let unusableBases: [(String?, APIError.RequestProblem)] = [
        (nil, .missingBaseURL),
        ("example.com/api", .invalidBaseURL),
        ("file:///tmp/api", .invalidBaseURL),
        ("/relative/only", .invalidBaseURL),
    ]

    @Test(arguments: unusableBases)
    func unusableBaseURLIsAnError(base: String?, problem: APIError.RequestProblem) throws {
        let configuration = APIConfiguration(baseURL: base.flatMap(URL.init(string:)))
        let error = try #require(buildError { try GET<Void>("/users").makeRequest(using: configuration) })
        #expect(error.reason == .invalidRequest(problem))
        #expect(error.description.hasPrefix("GET /users: "))
    }

    @Test func unknownHostIsAnError() throws {
        let endpoint = GET<Void>("/files", host: "uploads")
        let error = try #require(buildError { try endpoint.makeRequest(using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.unknownHost("uploads")))
        #expect(error.description == "GET /files: host 'uploads' is not configured")
    }

    @Test func unusableEndpointBaseURLIsAnError() throws {
        let endpoint = GET<Void>("/files", baseURL: URL(string: "/relative/only"))
        let error = try #require(buildError { try endpoint.makeRequest(using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.invalidBaseURL))
    }
}
