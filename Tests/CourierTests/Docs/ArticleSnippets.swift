// The ```swift blocks of the articles' extension-point sections (ArticleSnippetsTests lists them), copied here so
// that the compiler checks them. This file imports Courier without any `@_spi`: an extension point a user
// implements needs public API only. ArticleSnippetsTests fails when a block is no longer found here (its lines,
// in order); some blocks run there too.
import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - Transfers.md, "Formats of your own"

/// An order, the model of the XML example.
struct Order: Encodable, Sendable {
    let item: String
    let quantity: Int
}

@MainActor
enum Shops {
    @POST("/orders/{shop}")
    static var order: APIParameterBuilder<(shop: Int, xml: Data)>? = .init {
        .body(.data($0.xml), contentType: "application/xml", parameters: ["shop": $0.shop])
    }
}

/// Writes each field as `<field name="…">…</field>` inside one root element.
struct XMLParameterEncoder: ParameterEncoder {
    var root = "request"

    func encode(_ parameters: EncodableParameters, context: ParameterEncodingContext) throws -> EncodedParameters {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        var xml = "<\(root)>"
        for field in try parameters.textFields(context.options) {
            xml += "<field name=\"\(escaped(field.name))\">\(escaped(field.value))</field>"
        }
        xml += "</\(root)>"
        return .body(.data(Data(xml.utf8)), contentType: "application/xml")
    }
}

@MainActor
enum Orders {
    @POST("/orders", encoding: ParameterEncoding(XMLParameterEncoder()))
    static var create: APIParameterBuilder<Order>? = .init { $0 }
}

// MARK: - Caching.md, "Storages of your own"

/// A level kept in a dictionary; an actor, so concurrent calls are safe.
actor DictionaryStorage: CacheStorage {
    private var entries: [CacheKey: CacheEntry] = [:]

    func entry(for key: CacheKey) -> CacheEntry? { entries[key] }
    func store(_ entry: CacheEntry) { entries[entry.key] = entry }
    func removeEntry(for key: CacheKey) { entries[key] = nil }
    func removeAll() { entries = [:] }
    func removeAll(withPrefix prefix: String) { entries = entries.filter { !$0.key.prefix.hasPrefix(prefix) } }
}

/// A clock a test moves by hand.
final class ManualClock: @unchecked Sendable {
    // @unchecked: every access to `date` goes through `lock`.
    private let lock = NSLock()
    private var date = Date()

    var now: Date { lock.withLock { date } }
    func advance(by seconds: TimeInterval) { lock.withLock { date += seconds } }
}

/// The article's cache, and the clock it reads.
func cacheWithAStorageAndAClockOfItsOwn() -> (ResponseCache, ManualClock) {
    let clock = ManualClock()
    let cache = ResponseCache(
        memory: MemoryCacheStorage(costLimit: 1024 * 1024),
        disk: DictionaryStorage(),
        defaultPolicy: .cacheElseNetwork(seconds: 60),
        now: { clock.now }
    )
    return (cache, clock)
}

func advancingTheClock(_ clock: ManualClock) {
    clock.advance(by: 61)  // every entry stored before is now stale
}

// MARK: - WritingAnExecutor.md, "Answer from fixtures"

struct FixtureExecutor: APIExecutor {
    /// Canned bodies by endpoint description, such as "GET /users/{login}".
    let fixtures: [String: String]
    let fallback: any APIExecutor

    func execute(_ request: APIRequest) async throws -> APIResponse {
        guard let json = fixtures[request.endpoint.description] else {
            return try await fallback.execute(request)
        }
        return APIResponse(
            statusCode: 200,
            headers: ["Content-Type": "application/json"],
            body: .data(Data(json.utf8)),
            request: request
        )
    }
}

let demo = FixtureExecutor(
    fixtures: ["GET /users/{login}": #"{"login":"octocat"}"#],
    fallback: URLSessionExecutor.shared
)

// MARK: - WritingAnExecutor.md, "Transfers beyond memory"

/// The article's logging wrapper ("A logging wrapper"), reduced to what the forwarding example needs.
struct LoggingExecutor: APIExecutor {
    let wrapped: any APIExecutor

    func execute(_ request: APIRequest) async throws -> APIResponse {
        try await wrapped.execute(request)
    }
}

extension LoggingExecutor {
    var supportedTransfers: TransferFeatures { wrapped.supportedTransfers }
}

/// The hypothetical client of the article's adapter: it answers a request with a head and the body's chunks.
struct ChunkClient: Sendable {
    /// A response head.
    struct Head: Sendable {
        let status: Int
        let headerFields: [(String, String)]
        let expectedLength: Int64?
    }

    /// The body's chunks.
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = Data
        let stream: AsyncThrowingStream<Data, any Error>
        let stop: @Sendable () -> Void

        func makeAsyncIterator() -> AsyncThrowingStream<Data, any Error>.AsyncIterator { stream.makeAsyncIterator() }
        func cancel() { stop() }
    }

    let answer: @Sendable (URLRequest) async throws -> (Head, Chunks)

    func send(_ request: URLRequest) async throws -> (Head, Chunks) { try await answer(request) }
}

struct ChunkClientExecutor: APIExecutor {
    let client: ChunkClient

    var supportedTransfers: TransferFeatures { [.streamedResponses, .progress] }

    func execute(_ request: APIRequest) async throws -> APIResponse {
        let (head, chunks) = try await client.send(request.urlRequest)  // chunks: AsyncSequence of Data
        let headers = HTTPHeaders(head.headerFields.map { HTTPHeaders.Field(name: .init(rawValue: $0.0), value: $0.1) })
        if request.responseDelivery.isStream, (200..<300).contains(head.status) {
            let (stream, continuation) = ResponseStream.makeStream(for: request) { chunks.cancel() }
            Task {
                var received: Int64 = 0
                do {
                    for try await chunk in chunks {
                        await continuation.send(chunk)  // waits while the reader is behind
                        received += Int64(chunk.count)
                        request.progress?.reportReceived(received, expected: head.expectedLength)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
                request.progress?.finish()
            }
            return APIResponse(statusCode: head.status, headers: headers, body: .stream(stream), request: request)
        }
        var body = Data()
        for try await chunk in chunks {
            body.append(chunk)
            guard body.count <= request.maxResponseBytes else {
                throw APIError(.transport(.responseTooLarge), endpoint: request.endpoint, request: request)
            }
        }
        request.progress?.reportReceived(Int64(body.count), expected: Int64(body.count))
        request.progress?.finish()
        return APIResponse(statusCode: head.status, headers: headers, body: .data(body), request: request)
    }
}
