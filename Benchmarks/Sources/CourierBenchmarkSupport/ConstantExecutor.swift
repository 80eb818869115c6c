import Courier
import Foundation

/// Answers every request at once with the same JSON body, recording nothing.
package struct ConstantExecutor: APIExecutor {
    let body: Data
    let headers: HTTPHeaders = ["Content-Type": "application/json"]

    package init(body: Data) {
        self.body = body
    }

    package func execute(_ request: APIRequest) async throws -> APIResponse {
        APIResponse(statusCode: 200, headers: headers, body: .data(body), request: request)
    }
}
