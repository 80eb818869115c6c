// The context of TestingWithCourierTesting.md's ```swift blocks (scripts/check-doc-snippets): the address book
// under test, as the articles "Courier" and "Making requests" declare it.
import Courier
import CourierTesting
import Foundation
import Testing

struct User: Decodable, Sendable { let login: String }
struct NewIssue: Encodable, Sendable {
    let owner: String
    let repo: String
    let title: String
}

@MainActor
enum GitHub {
    @GET("/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }

    @GET("/repos/{owner}/{repo}/issues")
    static var issues: APIParameterBuilder<(owner: String, repo: String, state: String?)>? = .init {
        ["owner": $0.owner, "repo": $0.repo, "state": $0.state]
    }

    @POST("/repos/{owner}/{repo}/issues")
    static var createIssue: APIParameterBuilder<NewIssue>? = .init { $0 }

    @GET("/zen")
    static var zen: APIParameterBuilder<Void>? = nil
}
