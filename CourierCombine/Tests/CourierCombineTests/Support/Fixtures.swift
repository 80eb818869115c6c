import Courier
import CourierTesting
import Foundation

/// A model the stubbed endpoints answer with.
struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// The stubbed address book, declared the way users declare theirs.
@MainActor
enum Book {
    @GET("/users/{id}")
    static var user: APIParameterBuilder<Int>? = .init { ["id": $0] }

    @GET("/health")
    static var health: APIParameterBuilder<Void>?

    @GET("/slow")
    static var slow: APIParameterBuilder<Void>?
}

/// The httpbin endpoints of the integration tests.
@MainActor
enum HTTPBinAPI {
    @GET("/get")
    static var get: APIParameterBuilder<String>? = .init { ["name": $0] }

    @GET("/status/{code}")
    static var status: APIParameterBuilder<Int>? = .init { ["code": $0] }

    @GET("/delay/{seconds}")
    static var delay: APIParameterBuilder<Int>? = .init { ["seconds": $0] }

    @GET("/uuid")
    static var uuid: APIParameterBuilder<Void>?

    /// Answers with the query's pairs as response headers, and echoes them in a JSON body.
    @GET("/response-headers")
    static var responseHeaders: APIParameterBuilder<String>? = .init { ["X-Courier-Echo": $0] }
}

/// What httpbin's `/get` echoes (the part the tests read).
struct Echo: Decodable, Sendable {
    let args: [String: String]
    let url: String
}

/// What httpbin's `/response-headers?X-Courier-Echo=…` answers with (the part the tests read).
struct HeaderEcho: Decodable, Sendable, Equatable {
    let echo: String

    enum CodingKeys: String, CodingKey {
        case echo = "X-Courier-Echo"
    }
}

/// httpbin's `/uuid` answer.
struct UUIDAnswer: Decodable, Sendable, Hashable {
    let uuid: String
}

/// A configuration with a stub executor: answers `/users/{id}` with a user, `/health` with text, and
/// `/slow` after 10 s (recording in `slowCallEnded` when and how that call ended).
struct StubWorld {
    let executor: StubExecutor
    let configuration: APIConfiguration
    /// When the `/slow` call's executor work ended, and whether its task saw cancellation.
    let slowCallEnded = Locked<(at: ContinuousClock.Instant, sawCancellation: Bool)?>(nil)

    @MainActor
    init() {
        let ended = slowCallEnded
        executor = StubExecutor()
            .stub(Book.$user) { request in
                let id = request.url.lastPathComponent
                if id == "404" { return .status(404) }
                if id == "0" { return .json(#"{"unexpected": true}"#) }  // not a User
                return .json(#"{"id": \#(id), "name": "User \#(id)"}"#)
            }
            .stub(Book.$health, with: .text("ok"))
            .stub(Book.$slow) { _ in
                do {
                    try await Task.sleep(for: .seconds(10))
                } catch {
                    ended.withLock { $0 = (ContinuousClock.now, Task.isCancelled) }
                    throw error
                }
                ended.withLock { $0 = (ContinuousClock.now, Task.isCancelled) }
                return .status(200)
            }
        configuration = APIConfiguration(baseURL: URL(string: "https://stub.invalid"), executor: executor)
    }
}

/// An executor that forwards to another and records when its work ended and whether its task was cancelled
/// by then: proof that cancelling a subscription stopped the executor's work, not only the delivery.
struct ObservedExecutor: APIExecutor {
    let base: any APIExecutor
    let ended = Locked<(at: ContinuousClock.Instant, sawCancellation: Bool, threw: Bool)?>(nil)

    func execute(_ request: APIRequest) async throws -> APIResponse {
        do {
            let response = try await base.execute(request)
            ended.withLock { $0 = (ContinuousClock.now, Task.isCancelled, false) }
            return response
        } catch {
            ended.withLock { $0 = (ContinuousClock.now, Task.isCancelled, true) }
            throw error
        }
    }
}
