// The context of ParametersAndEncodings.md's ```swift blocks (scripts/check-doc-snippets): the address book of the
// article "Courier" that its first block calls.
import Courier
import Foundation

@MainActor
enum GitHub {
    @GET("/repos/{owner}/{repo}/issues")
    static var issues: APIParameterBuilder<(owner: String, repo: String, state: String?)>? = .init {
        ["owner": $0.owner, "repo": $0.repo, "state": $0.state]
    }
}
