import Courier
import CourierTesting
import Foundation
import Testing

/// Bodies beyond JSON and forms, built without I/O: raw bytes, files, one-shot streams, query names next to
/// a body, and the one JSON rule set.
@Suite struct RequestBodyTests {
    static func temporaryFile(_ contents: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-body-\(UUID().uuidString)")
        try contents.write(to: url)
        return url
    }

    @Test func dataParameterIsSentAsItsBytesNotBase64() throws {
        let endpoint = POST<Data>(wrappedValue: .init { $0 }, "/blobs")
        let bytes = Data([0, 1, 2, 255])

        let request = try endpoint.makeRequest(with: bytes, using: testConfiguration)

        #expect(request.body.data == bytes)
        #expect(request.headers[.contentType] == "application/octet-stream")
    }

    @Test func dataWithAContentTypeAndPathAndQueryValues() throws {
        let endpoint = PUT<(user: String, png: Data)>(
            wrappedValue: .init {
                .body(.data($0.png), contentType: "image/png", parameters: ["user": $0.user, "v": 2])
            },
            "/avatars/{user}"
        )

        let request = try endpoint.makeRequest(with: (user: "a b", png: Data("png".utf8)), using: testConfiguration)

        #expect(request.url.absoluteString == "https://api.example.com/v2/avatars/a%20b?v=2")
        #expect(request.bodyText == "png")
        #expect(request.headers[.contentType] == "image/png")
    }

    @Test func anEndpointHeaderWinsOverTheBodysContentType() throws {
        let endpoint = POST<Data>(wrappedValue: .init { $0 }, "/blobs", headers: ["Content-Type": "text/csv"])
        let request = try endpoint.makeRequest(with: Data("a,b".utf8), using: testConfiguration)
        #expect(request.headers.values(for: .contentType) == ["text/csv"])
    }

    @Test func fileURLParameterIsStreamedFromDisk() throws {
        let file = try Self.temporaryFile(Data(repeating: 7, count: 100_000))
        defer { try? FileManager.default.removeItem(at: file) }
        let endpoint = PUT<URL>(wrappedValue: .init { $0 }, "/files")

        let request = try endpoint.makeRequest(with: file, using: testConfiguration)

        #expect(request.body.fileURL == file)
        #expect(request.body.data == nil)
        #expect(request.body.count == 100_000)
        #expect(request.body.isReplayable)
        #expect(!request.body.isInMemory)
    }

    @Test func aMissingFileFailsBeforeAnyIO() throws {
        let endpoint = PUT<URL>(wrappedValue: .init { $0 }, "/files")
        let missing = URL(fileURLWithPath: "/nonexistent/courier-\(UUID().uuidString)")

        let error = try #require(throws: APIError.self) {
            try endpoint.makeRequest(with: missing, using: testConfiguration)
        }
        #expect(error.reason == .invalidRequest(.unreadableBody))
        #expect(error.endpoint.description == "PUT /files")
    }

    @Test func aBodyOnGETIsRefused() throws {
        let endpoint = GET<Data>(wrappedValue: .init { $0 }, "/blobs")
        let error = try #require(throws: APIError.self) {
            try endpoint.makeRequest(with: Data("x".utf8), using: testConfiguration)
        }
        #expect(error.reason == .invalidRequest(.bodyNotAllowed))
    }

    @Test func aStreamIsReadOnceAndIsNotReplayable() async throws {
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("ab".utf8))
            continuation.yield(Data("cd".utf8))
            continuation.finish()
        }
        let body = RequestBody.stream(chunks, count: 4)
        #expect(!body.isReplayable)
        #expect(body.count == 4)

        var read = Data()
        for try await chunk in body.chunks() { read.append(chunk) }
        #expect(read == Data("abcd".utf8))

        await #expect(throws: (any Error).self) {
            for try await _ in body.chunks() {}
        }
    }

    @Test func aStreamThatBreaksItsDeclaredCountFails() async throws {
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("abc".utf8))
            continuation.finish()
        }
        await #expect(throws: (any Error).self) {
            for try await _ in RequestBody.stream(chunks, count: 5).chunks() {}
        }
    }

    @Test func aFileIsReadInChunksOfAtMost64KiB() async throws {
        let contents = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = try Self.temporaryFile(contents)
        defer { try? FileManager.default.removeItem(at: file) }

        var read = Data()
        var largest = 0
        for try await chunk in RequestBody.file(file).chunks() {
            largest = max(largest, chunk.count)
            read.append(chunk)
        }
        #expect(read == contents)
        #expect(largest <= RequestBody.chunkSize)
    }

    /// An executor that implements `execute(_:)` only, as executors written before transfers did.
    struct InMemoryExecutor: APIExecutor {
        func execute(_ request: APIRequest) async throws -> APIResponse {
            APIResponse(statusCode: 204, request: request)
        }
    }

    @Test(arguments: [false, true])
    func executorsThatCannotSendAKindOfBodyFailBeforeAnyIO(multipart: Bool) async throws {
        let file = try Self.temporaryFile(Data("x".utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        let endpoint = PUT<URL>(multipart ? "/files" : "/files", encoding: multipart ? .multipart : .json) {
            multipart ? ["f": .file($0)] : .body(.file($0), contentType: "application/octet-stream")
        }
        let configuration = testConfiguration.with { $0.executor = InMemoryExecutor() }

        let error = try await #require(throws: APIError.self) {
            try await endpoint.request(with: file, using: configuration)
        }

        #expect(error.reason == .transport(.unsupportedByExecutor))
        let limitation = try #require(error.underlyingError as? ExecutorLimitation)
        #expect(limitation.missing == (multipart ? .streamedBodies : .fileBodies))
        // In-memory bodies still go through.
        try await POST<Data>(wrappedValue: .init { $0 }, "/b").request(with: Data("x".utf8), using: configuration)
    }

    // MARK: - Query names next to a body

    @Test func someNamesGoToTheQueryAndTheRestFormTheJSONBody() throws {
        let endpoint = POST<String>(
            wrappedValue: .init { ["version": 2, "text": $0, "page": nil] },
            "/search",
            encoding: .json.querying("version", "page")
        )

        let request = try endpoint.makeRequest(with: "lamp", using: testConfiguration)

        #expect(request.url.absoluteString == "https://api.example.com/v2/search?version=2")
        #expect(request.bodyText == #"{"text":"lamp"}"#)
    }

    @Test func queryNamesTakeAModelsTopLevelKeys() throws {
        struct Search: Encodable, Sendable {
            let version: Int
            let text: String
        }
        let endpoint = POST<Search>(wrappedValue: .init { $0 }, "/search", encoding: .json.querying("version"))

        let request = try endpoint.makeRequest(with: Search(version: 3, text: "x"), using: testConfiguration)

        #expect(request.rawQuery == "version=3")
        #expect(request.bodyText == #"{"text":"x"}"#)
    }

    // MARK: - One JSON rule set

    @Test func dictionariesAndModelsFollowTheSameEncoderStrategies() throws {
        struct Event: Encodable, Sendable {
            let startDate: Date
        }
        var configuration = testConfiguration
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        configuration.encoder = .init(encoder)
        let date = Date(timeIntervalSince1970: 86_400)
        let dictionary = POST<Date>(wrappedValue: .init { ["startDate": $0] }, "/events")
        let model = POST<Date>(wrappedValue: .init { Event(startDate: $0) }, "/events")

        let fromDictionary = try dictionary.makeRequest(with: date, using: configuration)
        let fromModel = try model.makeRequest(with: date, using: configuration)

        #expect(fromDictionary.bodyText == #"{"start_date":86400}"#)
        #expect(fromModel.bodyText == fromDictionary.bodyText)
    }

    @Test func explicitJSONOptionsSetTheDateStyleForDictionariesAndModelsAlike() throws {
        struct Event: Encodable, Sendable {
            let at: Date
        }
        let date = Date(timeIntervalSince1970: 1.5)
        let encoding = ParameterEncoding.json(ParameterEncodingOptions(dates: .millisecondsSince1970))
        let dictionary = POST<Date>(wrappedValue: .init { ["at": $0] }, "/e", encoding: encoding)
        let model = POST<Date>(wrappedValue: .init { Event(at: $0) }, "/e", encoding: encoding)

        #expect(try dictionary.makeRequest(with: date, using: testConfiguration).bodyText == #"{"at":1500}"#)
        #expect(try model.makeRequest(with: date, using: testConfiguration).bodyText == #"{"at":1500}"#)
    }

    // MARK: - A format of one's own

    /// The "Implementing" example of ``ParameterEncoder``.
    struct XMLParameterEncoder: ParameterEncoder {
        var root = "request"

        func encode(_ parameters: EncodableParameters, context: ParameterEncodingContext) throws -> EncodedParameters {
            func escaped(_ text: String) -> String {
                text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                    .replacingOccurrences(of: ">", with: "&gt;")
            }
            var xml = "<\(root)>"
            for field in try parameters.textFields(context.options) {
                xml += "<field name=\"\(escaped(field.name))\">\(escaped(field.value))</field>"
            }
            xml += "</\(root)>"
            return .body(.data(Data(xml.utf8)), contentType: "application/xml")
        }
    }

    @Test func aCustomEncoderWritesTheBodyAndSeesOnlyWhatIsLeft() throws {
        struct Order: Encodable, Sendable {
            let shop: String
            let item: String
            let tags: [String]
        }
        let endpoint = POST<Order>(
            wrappedValue: .init { $0 }, "/shops/{shop}/orders", encoding: ParameterEncoding(XMLParameterEncoder()))

        let request = try endpoint.makeRequest(
            with: Order(shop: "s1", item: "a<b", tags: ["x", "y"]), using: testConfiguration)

        #expect(request.url.path == "/v2/shops/s1/orders")
        #expect(
            request.bodyText
                == #"<request><field name="item">a&lt;b</field><field name="tags">x</field><field name="tags">y</field></request>"#
        )
        #expect(request.headers[.contentType] == "application/xml")
        #expect(ParameterEncoding(XMLParameterEncoder()) == ParameterEncoding(XMLParameterEncoder()))
        #expect(ParameterEncoding(XMLParameterEncoder()) != ParameterEncoding(XMLParameterEncoder(root: "x")))
        #expect(ParameterEncoding(XMLParameterEncoder()) != .json)
    }
}
