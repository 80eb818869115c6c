import Courier
import CourierTesting
import Foundation
import Testing

/// Keeps the articles' extension-point sections honest: each ```swift block of the sections below must appear in
/// ArticleSnippets.swift (compiled, without `@_spi`), line by line and in order; and the examples work.
@Suite struct ArticleSnippetsTests {
    static let catalog = ReadmeTests.here.appendingPathComponent("../../../Sources/Courier/Courier.docc")
        .standardizedFileURL
    static let snippets = ReadmeTests.here.appendingPathComponent("ArticleSnippets.swift")

    /// The extension points (article, section): a body format, cache storage and its clock, an executor.
    static let sections = [
        ("Transfers.md", "### Formats of your own"),
        ("Caching.md", "### Storages of your own"),
        ("WritingAnExecutor.md", "### Answer from fixtures"),
        ("WritingAnExecutor.md", "### Transfers beyond memory"),
    ]

    /// The text of the section that starts with `heading`, up to the next heading of any level.
    static func section(_ heading: String, in markdown: String) -> String {
        var lines: [Substring] = []
        var inside = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") {
                if inside { break }
                inside = line == heading
            }
            if inside { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }

    @Test(arguments: sections)
    func everyBlockIsCompiled(article: String, heading: String) throws {
        let markdown = try String(contentsOf: Self.catalog.appendingPathComponent(article), encoding: .utf8)
        let blocks = ReadmeTests.swiftBlocks(in: Self.section(heading, in: markdown))
        #expect(!blocks.isEmpty, "\(article): no Swift block under \(heading)")
        let compiled = try String(contentsOf: Self.snippets, encoding: .utf8)
        for missing in ReadmeTests.missingLines(of: blocks, in: compiled) {
            Issue.record("\(article), \(heading), \(missing): not found in ArticleSnippets.swift (in order)")
        }
    }

    @Test func noArticleNeedsAnSPIImport() throws {
        let articles = try FileManager.default.contentsOfDirectory(atPath: Self.catalog.path).filter {
            $0.hasSuffix(".md")
        }
        #expect(!articles.isEmpty)
        for article in articles {
            let text = try String(contentsOf: Self.catalog.appendingPathComponent(article), encoding: .utf8)
            #expect(!text.contains("@_spi"), "\(article) mentions an @_spi import")
        }
    }

    @MainActor
    @Test func theXMLEncoderWritesTheBody() throws {
        let request = try Orders.$create.makeRequest(
            with: Order(item: "a<\"b\">", quantity: 2), using: testConfiguration)
        #expect(request.headers[.contentType] == "application/xml")
        #expect(
            request.bodyText
                == #"<request><field name="item">a&lt;&quot;b&quot;&gt;</field><field name="quantity">2</field></request>"#
        )
    }

    @Test func theStorageAndTheClockServeAndExpire() async throws {
        let (cache, clock) = cacheWithAStorageAndAClockOfItsOwn()
        let server = NumberingServer()
        let configuration = cachingConfiguration(server, cache: cache)
        let first: Numbered = try await GET<Void>("/items").request(using: configuration)
        let second: Numbered = try await GET<Void>("/items").request(using: configuration)
        #expect(first == second)
        #expect(server.hits == 1)
        advancingTheClock(clock)
        let third: Numbered = try await GET<Void>("/items").request(using: configuration)
        #expect(third.n == 2)
    }

    @Test func theFixtureExecutorAnswersByEndpoint() async throws {
        let configuration = testConfiguration.with { $0.executor = demo }
        let user: [String: String] = try await GET<String>(wrappedValue: .init { ["login": $0] }, "/users/{login}")
            .request(with: "octocat", using: configuration)
        #expect(user == ["login": "octocat"])
    }

    @Test func theChunkAdapterStreamsAndReportsProgress() async throws {
        let client = ChunkClient { _ in
            let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
            continuation.yield(Data("ab".utf8))
            continuation.yield(Data("cd".utf8))
            continuation.finish()
            let head = ChunkClient.Head(status: 200, headerFields: [("Content-Length", "4")], expectedLength: 4)
            return (head, ChunkClient.Chunks(stream: stream, stop: {}))
        }
        let executor = LoggingExecutor(wrapped: ChunkClientExecutor(client: client))
        #expect(executor.supportedTransfers == [.streamedResponses, .progress])
        let configuration = testConfiguration.with { $0.executor = executor }
        let text: String = try await GET<Void>("/text").request(using: configuration)
        #expect(text == "abcd")
        let stream = try await GET<Void>("/text").stream(using: configuration)
        var received = Data()
        for try await chunk in stream { received.append(chunk) }
        #expect(received == Data("abcd".utf8))
    }
}
