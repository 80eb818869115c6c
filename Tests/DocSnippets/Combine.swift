// The context of Combine.md's ```swift blocks (scripts/check-doc-snippets): the address books they subscribe to.
import Courier
import CourierCombine
import Foundation

struct User: Decodable, Sendable {
    let login: String
    let name: String
}
struct Repo: Decodable, Sendable { let name: String }
struct Product: Decodable, Sendable { let name: String }

@MainActor
enum GitHub {
    @GET("/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }

    @GET("/users/{login}/repos")
    static var repos: APIParameterBuilder<String>? = .init { ["login": $0] }

    @GET("/zen")
    static var zen: APIParameterBuilder<Void>? = nil
}

@MainActor
enum Shop {
    @GET("/products/{id}")
    static var product: APIParameterBuilder<Int>? = .init { ["id": $0] }
}
