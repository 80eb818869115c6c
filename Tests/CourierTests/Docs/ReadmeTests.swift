import Foundation
import Testing

/// Keeps README.md honest: every ```swift block must appear in ReadmeSnippets.swift (which the compiler
/// checks), line by line and in order. Blocks fenced as ```swift Package.swift are manifest excerpts and
/// are checked by hand.
@Suite struct ReadmeTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let readme = here.appendingPathComponent("../../../README.md").standardizedFileURL
    static let snippets = here.appendingPathComponent("ReadmeSnippets.swift")

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

    @Test func theReadmeHasSwiftBlocks() throws {
        let blocks = Self.swiftBlocks(in: try String(contentsOf: Self.readme, encoding: .utf8))
        #expect(blocks.count >= 6)
    }

    @Test func everySwiftBlockIsCompiledBySnippets() throws {
        let blocks = Self.swiftBlocks(in: try String(contentsOf: Self.readme, encoding: .utf8))
        let compiled = try String(contentsOf: Self.snippets, encoding: .utf8)
        for missing in Self.missingLines(of: blocks, in: compiled) {
            Issue.record("README \(missing): not found in ReadmeSnippets.swift (in order)")
        }
    }

    @Test func theCheckNoticesADifference() {
        let blocks = Self.swiftBlocks(in: "text\n```swift\nlet a = 1  // one\n\nlet b = 2\n```\n```sh\nls\n```\n")
        #expect(blocks == [["let a = 1 // one", "let b = 2"]])
    }
}
