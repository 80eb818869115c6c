import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

package enum BuildFixture {
    /// The four endpoint shapes: Courier's call and the hand-written equivalent.
    package static let cases:
        [(
            name: String, courier: @Sendable (Endpoints) throws -> URLRequest,
            baseline: @Sendable () throws -> URLRequest
        )] = [
            (
                "build.void-get", { try $0.zen.makeRequest(using: BuildFixture.configuration).urlRequest },
                HandWritten.zen
            ),
            (
                "build.query-get",
                { try $0.search.makeRequest(with: Inputs.search, using: BuildFixture.configuration).urlRequest },
                { try HandWritten.search(Inputs.search) }
            ),
            (
                "build.json-post",
                { try $0.createIssue.makeRequest(with: Inputs.issue, using: BuildFixture.configuration).urlRequest },
                { try HandWritten.createIssue(Inputs.issue) }
            ),
            (
                "build.path-header-query",
                { try $0.issues.makeRequest(with: Inputs.issues, using: BuildFixture.configuration).urlRequest },
                { try HandWritten.issues(Inputs.issues) }
            ),
        ]

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
