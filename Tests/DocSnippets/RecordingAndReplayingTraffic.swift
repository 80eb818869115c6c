// The context of RecordingAndReplayingTraffic.md's ```swift blocks (scripts/check-doc-snippets): what they use
// without declaring it.
import Courier
import CourierTesting
import Foundation

struct User: Decodable, Sendable { let login: String }

@MainActor
enum GitHub {
    @GET("/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }
}

/// Where a cassette is kept.
let file = URL(fileURLWithPath: "Tests/Cassettes/user.har")
