import Courier
import CourierTesting
import Foundation
import Testing

/// The configuration request-building tests use: a base URL with a path and no network.
let testConfiguration = APIConfiguration(baseURL: URL(string: "https://api.example.com/v2"))

extension APIRequest {
    /// The percent-encoded query, or `nil` when the URL has none.
    var rawQuery: String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery
    }
}

/// Builds a request and returns the `APIError` it throws, or `nil` (recording an issue) when it builds.
func buildError(_ build: () throws -> APIRequest, sourceLocation: SourceLocation = #_sourceLocation) -> APIError? {
    do {
        let request = try build()
        Issue.record("expected an error, built \(request.method) \(request.url)", sourceLocation: sourceLocation)
        return nil
    } catch let error as APIError {
        return error
    } catch {
        Issue.record("expected an APIError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
