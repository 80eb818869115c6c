// The context of MigratingFromMoyaAndRaAPIWrapper.md's ```swift blocks (scripts/check-doc-snippets): what they use
// without declaring it. `GitHub` is the article's own.
import Courier
import CourierTesting
import Foundation

struct User: Decodable, Sendable { let login: String }
struct NewIssue: Encodable, Sendable {
    let owner: String
    let repo: String
    let title: String
}
