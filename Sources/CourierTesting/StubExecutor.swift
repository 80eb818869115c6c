import Courier
import Foundation

/// An executor that answers requests from closures instead of the network, and records every request
/// it receives. Use it in unit tests of code above the executor.
///
/// ```swift
/// let stub = StubExecutor { request in
///     .init(statusCode: 200, body: .data(Data(#"{"login":"octocat"}"#.utf8)), request: request)
/// }
/// let configuration = APIConfiguration(baseURL: URL(string: "https://api.test")!, executor: stub)
/// try await APIConfiguration.withCurrent(configuration) {
///     let user: User = try await GitHub.$user.request(with: "octocat")
/// }
/// #expect(stub.requests.map(\.url.path) == ["/users/octocat"])
/// ```
public struct StubExecutor: APIExecutor {
    private let handler: @Sendable (APIRequest) async throws -> APIResponse
    private let log = RequestLog()

    /// An executor that answers every request with `handler`.
    public init(_ handler: @escaping @Sendable (APIRequest) async throws -> APIResponse) {
        self.handler = handler
    }

    /// An executor that answers every request with `statusCode`, `body` and `headers`.
    public init(statusCode: Int = 200, body: Data = Data(), headers: HTTPHeaders = [:]) {
        self.init { request in
            APIResponse(statusCode: statusCode, headers: headers, body: .data(body), request: request)
        }
    }

    /// An executor that answers every request with `json` as a JSON body.
    public static func json(_ json: String, statusCode: Int = 200) -> StubExecutor {
        StubExecutor(statusCode: statusCode, body: Data(json.utf8), headers: ["Content-Type": "application/json"])
    }

    /// Every request received so far, in order.
    public var requests: [APIRequest] { log.requests }

    /// Records `request` and answers it.
    public func execute(_ request: APIRequest) async throws -> APIResponse {
        log.append(request)
        return try await handler(request)
    }
}

private final class RequestLog: Sendable {
    private let lock = NSLock()
    // nonisolated(unsafe): every access goes through `lock`.
    nonisolated(unsafe) private var stored: [APIRequest] = []

    var requests: [APIRequest] { lock.withLock { stored } }

    func append(_ request: APIRequest) {
        lock.withLock { stored.append(request) }
    }
}
