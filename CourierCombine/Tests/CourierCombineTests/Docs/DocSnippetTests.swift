import Foundation
import Testing

/// Keeps the Combine examples honest: every line of every code example in the Combine article
/// (Courier.docc/Combine.md, where README.md sends Combine users) and in the `///` comments of CourierCombine's
/// sources must appear in this test target's sources (which the compiler checks), in order, in one file.
///
/// The article's examples are its ```swift blocks, except manifest excerpts (a block that starts with
/// `dependencies: [`), which are checked by hand.
@Suite struct DocSnippetTests {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    static let package = tests.appendingPathComponent("../..").standardizedFileURL
    static let article = package.appendingPathComponent("../Sources/Courier/Courier.docc/Combine.md")
        .standardizedFileURL
    static let sources = package.appendingPathComponent("Sources/CourierCombine")

    /// A code example and where it comes from.
    struct Example {
        let origin: String
        let lines: [String]
    }

    /// The fenced blocks of `markdown` whose info string is `info`, each as its trimmed, non-empty lines.
    static func blocks(in markdown: String, info: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```" + info {
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

    /// The ```swift blocks of the `///` comments of `source`.
    static func documentationBlocks(in source: String) -> [[String]] {
        let comments = source.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("///") ? String(trimmed.dropFirst(3)) : ""
        }
        return blocks(in: comments.joined(separator: "\n"), info: "swift")
    }

    /// Trailing comments are compared without the spaces before them (swift format changes those).
    static func normalized(_ line: String) -> String {
        guard let range = line.range(of: "  //") ?? line.range(of: " //") else { return line }
        let code = line[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
        let comment = line[range.lowerBound...].trimmingCharacters(in: .whitespaces)
        return code.isEmpty ? comment : code + " " + comment
    }

    /// The `.swift` files under `directory`, recursively, as (name, contents).
    static func swiftFiles(under directory: URL) throws -> [(name: String, text: String)] {
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        var files: [(name: String, text: String)] = []
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            files.append((url.lastPathComponent, try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.name < $1.name }
    }

    /// The examples of the Combine article and of the `///` comments.
    static func examples() throws -> [Example] {
        let article = blocks(in: try String(contentsOf: article, encoding: .utf8), info: "swift")
            .filter { $0.first != "dependencies: [" }
        let comments = try swiftFiles(under: sources).flatMap { file in
            documentationBlocks(in: file.text).map { Example(origin: file.name, lines: $0) }
        }
        return article.map { Example(origin: "Combine.md", lines: $0) } + comments
    }

    /// Whether `lines` all appear in `text`'s normalized lines, in order.
    static func contains(_ text: String, inOrder lines: [String]) -> Bool {
        let compiled = text.split(separator: "\n")
            .map { normalized($0.trimmingCharacters(in: .whitespaces)) }
            .filter { !$0.isEmpty }
        var position = compiled.startIndex
        for line in lines {
            guard let found = compiled[position...].firstIndex(of: line) else { return false }
            position = compiled.index(after: found)
        }
        return true
    }

    /// Whether some source of this target, other than this file, has `example`'s lines in order.
    static func isCompiled(_ example: Example) throws -> Bool {
        try swiftFiles(under: tests).filter { $0.name != "DocSnippetTests.swift" }
            .contains { Self.contains($0.text, inOrder: example.lines) }
    }

    @Test("Every kind of documentation has its examples")
    func examplesAreFound() throws {
        let origins = try Self.examples().map(\.origin)
        #expect(origins.filter { $0 == "Combine.md" }.count >= 3)
        #expect(origins.filter { $0 == "APIPublisher.swift" }.count >= 4)
    }

    @Test("Every example of the article and the doc comments is compiled by this target, in order")
    func everyExampleIsCompiled() throws {
        for example in try Self.examples() {
            #expect(
                try Self.isCompiled(example),
                "an example of \(example.origin) is not compiled: \(example.lines.joined(separator: "\n"))"
            )
        }
    }

    @Test("The check reads fences and comments, and notices a missing or reordered line")
    func theCheckNoticesADifference() {
        let markdown = "```swift CourierCombine\nlet a = 1  // one\n\nlet b = 2\n```\n```swift\nlet c = 3\n```\n"
        #expect(Self.blocks(in: markdown, info: "swift CourierCombine") == [["let a = 1 // one", "let b = 2"]])
        #expect(Self.blocks(in: markdown, info: "swift") == [["let c = 3"]])
        let source = "/// Text.\n///\n/// ```swift\n/// let d = 4\n/// ```\nlet e = 5\n"
        #expect(Self.documentationBlocks(in: source) == [["let d = 4"]])
        #expect(Self.contains("let a = 1 // one\nx\nlet b = 2", inOrder: ["let a = 1 // one", "let b = 2"]))
        #expect(!Self.contains("let b = 2\nlet a = 1 // one", inOrder: ["let a = 1 // one", "let b = 2"]))
        #expect(!Self.contains("let a = 1", inOrder: ["let a = 1", "let b = 2"]))
    }
}
