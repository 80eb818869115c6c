// The context of WritingAnExecutor.md's ```swift blocks (scripts/check-doc-snippets): what they use without
// declaring it, such as the HTTP client library an executor wraps.
import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct User: Decodable, Sendable { let login: String }

@MainActor
enum GitHub {
    @GET("/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }

    @GET("/zen")
    static var zen: APIParameterBuilder<Void>? = nil
}

/// The response head of a chunked HTTP client library.
struct ChunkHead: Sendable {
    let status: Int
    let headerFields: [(String, String)]
    let expectedLength: Int64?
}

/// The body of a response of that library: chunks as they arrive, cancellable.
struct ChunkBody: AsyncSequence, Sendable {
    typealias Element = Data

    struct AsyncIterator: AsyncIteratorProtocol {
        mutating func next() async throws -> Data? { nil }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    func cancel() {}
}

/// An HTTP client library of chunked bodies, as an executor would wrap it.
struct ChunkClient: Sendable {
    func send(_ request: URLRequest) async throws -> (ChunkHead, ChunkBody) {
        (ChunkHead(status: 200, headerFields: [], expectedLength: nil), ChunkBody())
    }
}

/// The executor a package of its own provides (the article's manifest excerpt names its target).
struct MyExecutor: APIExecutor {
    func execute(_ request: APIRequest) async throws -> APIResponse {
        APIResponse(statusCode: 200, headers: [:], body: .data(Data()), request: request)
    }
}

/// What a socket of a WebSocket client library reads: a message or the peer's close.
enum ClientFrame: Sendable {
    case text(String)
    case binary(Data)
    case close(code: Int, reason: String)
}

/// An open socket of that library: it reads one message from the network each time it is asked.
final class ClientSocket: Sendable {
    func read() async throws -> ClientFrame? { nil }
    func write(text: String) async throws {}
    func write(binary: Data) async throws {}
    func ping() async throws {}
    func close(code: Int, reason: String) async {}
    func abort() {}
}

/// The library's handshake: the response's head and body, and the socket on `101`.
struct ClientUpgrade: Sendable {
    let status: Int
    let headerFields: [(String, String)]
    let body: Data
    let socket: ClientSocket?
}

/// A WebSocket client library, as an executor would wrap it.
struct SocketClient: Sendable {
    func upgrade(_ request: URLRequest, timeout: Duration, maxMessageBytes: Int) async throws -> ClientUpgrade {
        ClientUpgrade(status: 101, headerFields: [], body: Data(), socket: ClientSocket())
    }
}
