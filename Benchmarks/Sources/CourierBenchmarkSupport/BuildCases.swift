import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

package enum BuildFixture {
    /// A way to build one request; it captures what it needs, so calling it copies nothing.
    package typealias Build = @Sendable () throws -> URLRequest

    /// The names of the endpoint shapes, in the order `cases(_:)` returns them.
    package static let names = [
        "build.void-get", "build.query-get", "build.json-post", "build.path-header-query", "build.json-post-literal",
    ]

    /// The endpoint shapes: Courier's call and the hand-written equivalent. `json-post` and `json-post-literal`
    /// send the same body, from a model and from the README's dictionary literal, against the same
    /// hand-written `JSONEncoder` code.
    package static func cases(_ endpoints: Endpoints) -> [(name: String, courier: Build, baseline: Build)] {
        let (zen, search, createIssue, issues, createIssueLiteral) = (
            endpoints.zen, endpoints.search, endpoints.createIssue, endpoints.issues, endpoints.createIssueLiteral
        )
        let configuration = BuildFixture.configuration
        return [
            (names[0], { try zen.makeRequest(using: configuration).urlRequest }, HandWritten.zen),
            (
                names[1],
                { try search.makeRequest(with: Inputs.search, using: configuration).urlRequest },
                { try HandWritten.search(Inputs.search) }
            ),
            (
                names[2],
                { try createIssue.makeRequest(with: Inputs.issue, using: configuration).urlRequest },
                { try HandWritten.createIssue(Inputs.issue) }
            ),
            (
                names[3],
                { try issues.makeRequest(with: Inputs.issues, using: configuration).urlRequest },
                { try HandWritten.issues(Inputs.issues) }
            ),
            (
                names[4],
                { try createIssueLiteral.makeRequest(with: Inputs.issue, using: configuration).urlRequest },
                { try HandWritten.createIssue(Inputs.issue) }
            ),
        ]
    }

    /// The case named `name`, checked: both sides must build the same request, or comparing them means nothing.
    @MainActor
    package static func checkedCase(_ name: String) throws -> (name: String, courier: Build, baseline: Build) {
        guard let found = cases(Endpoints()).first(where: { $0.name == name }) else {
            throw BenchmarkSetupError("no build case \(name)")
        }
        try expectSame(try found.courier(), try found.baseline(), name)
        return found
    }

    package static let configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com"))

    package static func expectSame(_ courier: URLRequest, _ baseline: URLRequest, _ name: String) throws {
        let same =
            courier.url?.absoluteString == baseline.url?.absoluteString
            && courier.httpMethod == baseline.httpMethod
            && courier.allHTTPHeaderFields ?? [:] == baseline.allHTTPHeaderFields ?? [:]
            && courier.httpBody == baseline.httpBody
            && courier.timeoutInterval == baseline.timeoutInterval
        guard same else {
            throw BenchmarkSetupError(
                """
                \(name): Courier and the hand-written code build different requests:
                  \(courier.httpMethod ?? "-") \(courier.url?.absoluteString ?? "-") \
                \(courier.allHTTPHeaderFields ?? [:]) \(courier.httpBody?.count ?? 0) bytes
                  \(baseline.httpMethod ?? "-") \(baseline.url?.absoluteString ?? "-") \
                \(baseline.allHTTPHeaderFields ?? [:]) \(baseline.httpBody?.count ?? 0) bytes
                """
            )
        }
    }
}

/// The requests as an app would write them without Courier.
package enum HandWritten {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static func components(path: String) -> URLComponents {
        var components = URLComponents()
        components.scheme = "https"
        components.host = "api.example.com"
        components.path = path
        return components
    }

    static func url(_ components: URLComponents) throws -> URL {
        guard let url = components.url else { throw BenchmarkSetupError("bad URL") }
        return url
    }

    package static func zen() throws -> URLRequest {
        var request = URLRequest(url: try url(components(path: "/zen")))
        request.httpMethod = "GET"
        return request
    }

    package static func search(_ query: SearchQuery) throws -> URLRequest {
        var components = components(path: "/search/repositories")
        components.queryItems = [
            URLQueryItem(name: "q", value: query.q),
            URLQueryItem(name: "sort", value: query.sort),
            URLQueryItem(name: "order", value: query.order),
            URLQueryItem(name: "per_page", value: String(query.perPage)),
            URLQueryItem(name: "page", value: String(query.page)),
        ]
        var request = URLRequest(url: try url(components))
        request.httpMethod = "GET"
        return request
    }

    package static func createIssue(_ issue: NewIssue) throws -> URLRequest {
        var request = URLRequest(url: try url(components(path: "/repos/octocat/hello-world/issues")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try encoder.encode(issue)
        return request
    }

    package static func issues(_ query: IssuesQuery) throws -> URLRequest {
        var components = components(path: "/repos/\(query.owner)/\(query.repo)/issues")
        components.queryItems = [
            URLQueryItem(name: "state", value: query.state),
            URLQueryItem(name: "page", value: String(query.page)),
        ]
        var request = URLRequest(url: try url(components))
        request.httpMethod = "GET"
        request.setValue(query.requestID, forHTTPHeaderField: "X-Request-ID")
        return request
    }
}
