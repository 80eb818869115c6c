// The context of TrustAndCertificates.md's ```swift blocks (scripts/check-doc-snippets): what they use without
// declaring it.
import Foundation

/// Where the app reads its certificates and keys from (a bundle, a secret store, the file system).
enum Secrets {
    static func text(_ name: String) throws -> String { "" }
    static func data(_ name: String) throws -> Data { Data() }
}

let apiURL = URL(string: "https://api.internal.example")
