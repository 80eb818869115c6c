// The context of ObservingCalls.md's ```swift blocks (scripts/check-doc-snippets): what they use without declaring
// it, such as the `error` a catch clause gives.
import Courier
import Foundation

struct User: Decodable, Sendable { let login: String }

@MainActor
enum GitHub {
    @GET("/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }
}

/// The error of a failed call, as `catch` binds it.
let error = APIError(.transport(.cancelled), endpoint: APIEndpoint(method: .get, path: "/users/{login}"))
@MainActor var configuration = APIConfiguration.default
