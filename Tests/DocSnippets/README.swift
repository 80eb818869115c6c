// The context of README.md's ```swift blocks (scripts/check-doc-snippets): the models and values they use
// without declaring them. Its imports are the document's too.
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
struct Product: Decodable, Sendable {
    let id: Int
    let name: String
}
struct ServerError: Decodable, Sendable { let message: String }

actor Session {
    static let shared = Session()
    var accessToken: String? { "token" }
}

let apiURL = URL(string: "https://api.example.com")
