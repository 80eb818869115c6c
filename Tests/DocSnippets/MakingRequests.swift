// The context of MakingRequests.md's ```swift blocks (scripts/check-doc-snippets): what they use without declaring
// it. `GitHub`, `User` and `Settings` are the article's own (its first block).
import Courier
import Foundation

struct Repo: Decodable, Sendable { let name: String }
struct Item: Codable, Sendable { let id: Int }
struct Post: Decodable, Sendable { let title: String }

/// A page of a cursor-paginated list.
struct PostPage: Decodable, Sendable {
    let posts: [Post]
    let nextCursor: String?
}

extension GitHub {
    @GET("/users/{login}/repos")
    static var repos: APIParameterBuilder<String>? = .init { ["login": $0] }
}

@MainActor
enum Users {
    @GET("/users")
    static var list: APIParameterBuilder<Void>? = nil
}

@MainActor
enum Store {
    @GET("/items")
    static var items: APIParameterBuilder<Void>? = nil

    @GET("/items/{id}")
    static var item: APIParameterBuilder<Int>? = .init { ["id": $0] }

    @PUT("/items/{id}")
    static var update: APIParameterBuilder<Item>? = .init { $0 }
}

@MainActor
enum Feed {
    @GET("/posts")
    static var posts: APIParameterBuilder<Void>? = nil
}

@MainActor var all: [Repo] = []
let id = 42
let changed = Item(id: 42)
let nextPageURL = URL(fileURLWithPath: "/")
