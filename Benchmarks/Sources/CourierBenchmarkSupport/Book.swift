import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The endpoints under test, declared the way users declare them.
@MainActor
package enum Book {
    /// Shape 1: no parameter.
    @GET("/zen")
    package static var zen: APIParameterBuilder<Void>? = nil

    /// Shape 2: a tuple whose five members go to the query string.
    @GET("/search/repositories")
    package static var search: APIParameterBuilder<SearchQuery>? = .init {
        ["q": $0.q, "sort": $0.sort, "order": $0.order, "per_page": $0.perPage, "page": $0.page]
    }

    /// Shape 3: an `Encodable` model sent as a JSON body.
    @POST("/repos/octocat/hello-world/issues")
    package static var createIssue: APIParameterBuilder<NewIssue>? = .init { $0 }

    /// Shape 4: a path template, a header computed from the parameter, and the rest in the query.
    @GET("/repos/{owner}/{repo}/issues", headerBuilder: { ["X-Request-ID": $0.requestID] })
    package static var issues: APIParameterBuilder<IssuesQuery>? = .init {
        ["owner": $0.owner, "repo": $0.repo, "state": $0.state, "page": $0.page]
    }

    /// Shape 5: the README's dictionary-literal builder, five fields sent as a JSON body (the same body as shape 3).
    @POST("/repos/octocat/hello-world/issues")
    package static var createIssueLiteral: APIParameterBuilder<NewIssue>? = .init {
        ["title": $0.title, "body": $0.body, "labels": $0.labels, "assignees": $0.assignees, "milestone": $0.milestone]
    }

    /// The decode and end-to-end endpoint: a path template and a JSON array of repositories.
    @GET("/users/{login}/repos.json")
    package static var repos: APIParameterBuilder<String>? = .init { ["login": $0] }
}

package typealias SearchQuery = (q: String, sort: String, order: String, perPage: Int, page: Int)
package typealias IssuesQuery = (owner: String, repo: String, state: String, page: Int, requestID: String)

package struct NewIssue: Codable, Sendable {
    package var title: String
    package var body: String
    package var labels: [String]
    package var assignees: [String]
    package var milestone: Int?
}

/// The endpoints, read once from the `@MainActor` book so the benchmarks can call them from anywhere.
package struct Endpoints: Sendable {
    package let zen: GET<Void>
    package let search: GET<SearchQuery>
    package let createIssue: POST<NewIssue>
    package let issues: GET<IssuesQuery>
    package let createIssueLiteral: POST<NewIssue>
    package let repos: GET<String>

    @MainActor
    package init() {
        zen = Book.$zen
        search = Book.$search
        createIssue = Book.$createIssue
        issues = Book.$issues
        createIssueLiteral = Book.$createIssueLiteral
        repos = Book.$repos
    }
}

/// The parameters every build benchmark sends.
package enum Inputs {
    package static let search: SearchQuery = (q: "swift server", sort: "stars", order: "desc", perPage: 50, page: 2)
    package static let issue = NewIssue(
        title: "Crash when the list is empty",
        body: "Steps: open the app with no items; tap Refresh. Expected: an empty state. Actual: a crash.",
        labels: ["bug", "ui"],
        assignees: ["octocat"],
        milestone: 3
    )
    package static let issues: IssuesQuery = (
        owner: "apple", repo: "swift", state: "open", page: 3, requestID: "6c1d0f0e-2b7c-4a59-9f3e-1b2a3c4d5e6f"
    )
}

/// A repository, as the decode and end-to-end fixtures describe it (see `Fixtures`).
package struct Repository: Codable, Sendable, Equatable {
    package struct Owner: Codable, Sendable, Equatable {
        package var login: String
        package var id: Int
        package var siteAdmin: Bool

        enum CodingKeys: String, CodingKey {
            case login, id
            case siteAdmin = "site_admin"
        }
    }

    package var id: Int
    package var name: String
    package var fullName: String
    package var owner: Owner
    package var description: String?
    package var fork: Bool
    package var htmlURL: String
    package var stargazersCount: Int
    package var language: String?
    package var topics: [String]
    package var score: Double

    enum CodingKeys: String, CodingKey {
        case id, name, owner, description, fork, language, topics, score
        case fullName = "full_name"
        case htmlURL = "html_url"
        case stargazersCount = "stargazers_count"
    }
}

package struct BenchmarkSetupError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
