// The context of ChoosingAnExecutor.md's ```swift blocks (scripts/check-doc-snippets): what they use without
// declaring it. The conformance test is a test target's code.
import Courier
import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import Logging
import Testing

let apiURL = URL(string: "https://api.example.com")
let logger = Logger(label: "api")
@MainActor var configuration = APIConfiguration(baseURL: apiURL)

/// The executor under test.
struct MyExecutor: APIExecutor {
    func execute(_ request: APIRequest) async throws -> APIResponse {
        APIResponse(statusCode: 200, headers: [:], body: .data(Data()), request: request)
    }
}
