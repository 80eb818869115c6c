// The context of Transfers.md's ```swift blocks (scripts/check-doc-snippets): what they use without declaring it.
import Courier
import Foundation

/// An order, the model of the XML example.
struct Order: Encodable, Sendable {
    let item: String
    let quantity: Int
}

struct Photo: Decodable, Sendable { let id: Int }

/// Signs object keys for presigned URLs.
struct Signer: Sendable {
    func sign(_ key: String) async throws -> String { "signature" }
}

extension Storage {
    @GET("/objects/{key}")
    static var object: APIParameterBuilder<(key: String, signature: String)>? = .init {
        ["key": $0.key, "X-Signature": $0.signature]
    }
}

let signer = Signer()
let thumbnailBytes = Data([0x89, 0x50, 0x4E, 0x47])
let destination = URL(fileURLWithPath: "/tmp/report.pdf")
let file = URL(fileURLWithPath: "/tmp/beach.jpg")
@MainActor var lastEventID: String?

func consume(_ chunk: Data) {}
func apply(_ data: String) {}
func apply(_ event: ServerSentEvent) {}
