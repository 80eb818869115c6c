// The context of Plugins.md's ```swift blocks (scripts/check-doc-snippets): what they use without declaring it.
import Courier
import Foundation

/// The tag of the article "Defining endpoints".
enum RequiresAuth: APITagKey {
    static let defaultValue = false
}

/// The configuration the blocks after the first one edit.
@MainActor var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com"))
