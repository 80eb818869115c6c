import Courier
import CourierTesting
import Foundation
import Testing

/// Runs the articles' extension-point examples: each ```swift block of the sections below must appear in
/// ArticleSnippets.swift (without `@_spi`), line by line and in order, and the examples there work.
/// (scripts/check-doc-snippets compiles every block of every article as written; this runs some.)
@Suite struct ArticleSnippetsTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let catalog = here.appendingPathComponent("../../../Sources/Courier/Courier.docc")
        .standardizedFileURL
    static let snippets = here.appendingPathComponent("ArticleSnippets.swift")

    /// The ```swift blocks of `markdown`, each as its trimmed, non-empty lines.
    static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current ?? [])
                current = nil
            } else if current != nil, !trimmed.isEmpty {
                current?.append(normalized(trimmed))
            }
        }
        return blocks
    }

    /// Trailing comments are compared without the spaces before them (swift format changes those).
    static func normalized(_ line: String) -> String {
        guard let range = line.range(of: "  //") ?? line.range(of: " //") else { return line }
        let code = line[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
        let comment = line[range.lowerBound...].trimmingCharacters(in: .whitespaces)
        return code.isEmpty ? comment : code + " " + comment
    }

    /// The first line of each block that `compiled` (a Swift file's text) does not hold, in order, as
    /// "block N: line".
    static func missingLines(of blocks: [[String]], in compiled: String) -> [String] {
        let lines = compiled.split(separator: "\n")
            .map { normalized($0.trimmingCharacters(in: .whitespaces)) }
            .filter { !$0.isEmpty }
        var missing: [String] = []
        for (index, block) in blocks.enumerated() {
            var position = lines.startIndex
            for line in block {
                guard let found = lines[position...].firstIndex(of: line) else {
                    missing.append("block \(index + 1): \(line)")
                    break
                }
                position = lines.index(after: found)
            }
        }
        return missing
    }

    @Test func theCheckNoticesADifference() {
        let blocks = Self.swiftBlocks(in: "text\n```swift\nlet a = 1  // one\n\nlet b = 2\n```\n```sh\nls\n```\n")
        #expect(blocks == [["let a = 1 // one", "let b = 2"]])
    }

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
        let blocks = Self.swiftBlocks(in: Self.section(heading, in: markdown))
        #expect(!blocks.isEmpty, "\(article): no Swift block under \(heading)")
        let compiled = try String(contentsOf: Self.snippets, encoding: .utf8)
        for missing in Self.missingLines(of: blocks, in: compiled) {
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
