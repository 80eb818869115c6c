// The context of OpenAPI.md's ```swift blocks (scripts/check-doc-snippets): the parts of the generated Petstore book
// they use (courier-openapi writes the real ones).
import Courier
import CourierOpenAPI
import Foundation

/// A model of the generated book.
struct Pet: Decodable, Sendable {
    let id: Int64?
    let name: String
}

extension APIConfiguration {
    /// The configuration function of the generated book: its servers' base URL.
    static func swaggerPetstoreOpenAPI30() -> APIConfiguration {
        APIConfiguration(baseURL: URL(string: "https://petstore3.swagger.io/api/v3"))
    }
}
