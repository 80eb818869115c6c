// The context of ProtectingAnUpstream.md's ```swift blocks (scripts/check-doc-snippets): what they use without
// declaring it: the address book they call, and the `shop` configuration of the first block.
import Courier
import Foundation

struct Item: Decodable, Sendable { let sku: String }

@MainActor
enum Inventory {
    @GET("/items")
    static var items: APIParameterBuilder<Void>? = nil
}

/// The configuration of the first block, for the blocks after it.
@MainActor let shop = APIConfiguration(baseURL: URL(string: "https://inventory.example.com"))

func show(_ items: [Item]) {}
func show(_ error: APIError) {}
func showCachedItems() {}
func showBusy() {}
