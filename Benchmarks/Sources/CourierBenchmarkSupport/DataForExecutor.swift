import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The simplest executor over `URLSession`: `data(for:)`, the status and the headers, nothing else (no
/// delegate, no timeout of its own, no body limit). Courier over it against raw `URLSession.data(for:)` is the
/// cost of Courier's pipeline (building, plugins, validation, decoding); Courier over ``URLSessionExecutor``
/// against Courier over it is the cost of the executor.
package struct DataForExecutor: APIExecutor {
    let session: URLSession

    package init(session: URLSession) {
        self.session = session
    }

    package func execute(_ request: APIRequest) async throws -> APIResponse {
        let (data, response) = try await session.data(for: request.urlRequest)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers = HTTPHeaders()
        for case let (name as String, value as String) in http.allHeaderFields {
            headers.add(HTTPHeaderName(rawValue: name), value)
        }
        return APIResponse(
            statusCode: http.statusCode, headers: headers, body: .data(data), url: http.url, request: request)
    }
}

/// A plugin that does nothing but pass the request on.
package struct NoOpPlugin: APIPlugin {
    package init() {}

    package func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        try await next(request)
    }
}
