// The context of Caching.md's ```swift blocks (scripts/check-doc-snippets): what they use without declaring it.
import Courier
import Foundation

struct Product: Decodable, Sendable { let name: String }

/// A response that wraps its value, with a status code of the service's own.
struct Envelope<Value: Decodable & Sendable>: Decodable, Sendable {
    let code: Int
    let data: Value
}

let appVersion = "2.1"
let userID = 42

@MainActor func show(_ product: Product, outdated: Bool = false) {}
@MainActor func showBanner(_ error: APIError) {}
