// The context of HandlingErrors.md's ```swift blocks (scripts/check-doc-snippets): what they use without declaring
// it, such as the `error` a catch clause gives.
import Courier
import Foundation

struct User: Decodable, Sendable { let login: String }
struct Issue: Decodable, Sendable { let title: String }

@MainActor
enum GitHub {
    @GET("/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }

    @GET("/orgs/{org}/issues")
    static var issues: APIParameterBuilder<String>? = .init { ["org": $0] }

    @PUT("/user/starred/{owner}/{repo}")
    static var star: APIParameterBuilder<(owner: String, repo: String)>? = .init {
        ["owner": $0.owner, "repo": $0.repo]
    }
}

/// The error of a failed call, as `catch` binds it.
let error = APIError(.transport(.cancelled), endpoint: APIEndpoint(method: .get, path: "/users/{login}"))

func signIn() async {}
func showOfflineBanner() {}
func configure() {}
func retryLater(because problem: APIError.TransportProblem) {}
func show(_ message: String) {}
