import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The endpoints under test, declared the way users declare them.
@MainActor
enum Book {
    /// Shape 1: no parameter.
    @GET("/zen")
    static var zen: APIParameterBuilder<Void>? = nil

    /// Shape 2: a tuple whose five members go to the query string.
    @GET("/search/repositories")
    static var search: APIParameterBuilder<SearchQuery>? = .init {
        ["q": $0.q, "sort": $0.sort, "order": $0.order, "per_page": $0.perPage, "page": $0.page]
    }

    /// Shape 3: an `Encodable` model sent as a JSON body.
    @POST("/repos/octocat/hello-world/issues")
    static var createIssue: APIParameterBuilder<NewIssue>? = .init { $0 }

    /// Shape 4: a path template, a header computed from the parameter, and the rest in the query.
    @GET("/repos/{owner}/{repo}/issues", headerBuilder: { ["X-Request-ID": $0.requestID] })
    static var issues: APIParameterBuilder<IssuesQuery>? = .init {
        ["owner": $0.owner, "repo": $0.repo, "state": $0.state, "page": $0.page]
    }

    /// The decode and end-to-end endpoint: a path template and a JSON array of repositories.
    @GET("/users/{login}/repos.json")
    static var repos: APIParameterBuilder<String>? = .init { ["login": $0] }
}

typealias SearchQuery = (q: String, sort: String, order: String, perPage: Int, page: Int)
typealias IssuesQuery = (owner: String, repo: String, state: String, page: Int, requestID: String)

struct NewIssue: Codable, Sendable {
    var title: String
    var body: String
    var labels: [String]
    var assignees: [String]
    var milestone: Int?
}

/// The endpoints, read once from the `@MainActor` book so the benchmarks can call them from anywhere.
struct Endpoints: Sendable {
    let zen: GET<Void>
    let search: GET<SearchQuery>
    let createIssue: POST<NewIssue>
    let issues: GET<IssuesQuery>
    let repos: GET<String>

    @MainActor
    init() {
        zen = Book.$zen
        search = Book.$search
        createIssue = Book.$createIssue
        issues = Book.$issues
        repos = Book.$repos
    }
}

/// The parameters every build benchmark sends.
enum Inputs {
    static let search: SearchQuery = (q: "swift server", sort: "stars", order: "desc", perPage: 50, page: 2)
    static let issue = NewIssue(
        title: "Crash when the list is empty",
        body: "Steps: open the app with no items; tap Refresh. Expected: an empty state. Actual: a crash.",
        labels: ["bug", "ui"],
        assignees: ["octocat"],
        milestone: 3
    )
    static let issues: IssuesQuery = (
        owner: "apple", repo: "swift", state: "open", page: 3, requestID: "6c1d0f0e-2b7c-4a59-9f3e-1b2a3c4d5e6f"
    )
}

/// A repository, as the decode and end-to-end fixtures describe it (see `scripts/bench_report.py`).
struct Repository: Codable, Sendable, Equatable {
    struct Owner: Codable, Sendable, Equatable {
        var login: String
        var id: Int
        var siteAdmin: Bool

        enum CodingKeys: String, CodingKey {
            case login, id
            case siteAdmin = "site_admin"
        }
    }

    var id: Int
    var name: String
    var fullName: String
    var owner: Owner
    var description: String?
    var fork: Bool
    var htmlURL: String
    var stargazersCount: Int
    var language: String?
    var topics: [String]
    var score: Double

    enum CodingKeys: String, CodingKey {
        case id, name, owner, description, fork, language, topics, score
        case fullName = "full_name"
        case htmlURL = "html_url"
        case stargazersCount = "stargazers_count"
    }
}

struct BenchmarkSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
