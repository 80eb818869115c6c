// The context of Swift6AndStaticProperties.md's ```swift blocks (scripts/check-doc-snippets): what they use without
// declaring it. The address books that redeclare `GitHub` are compiled alone.
import Courier
import Foundation

struct User: Decodable, Sendable { let login: String }
