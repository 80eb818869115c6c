import Foundation

/// The JSON bodies of the decode and end-to-end benchmarks: arrays of repositories of about 2 KB and
/// 200 KB, the same bytes every run.
package enum Fixtures {
    package static let small = repositories(approximateBytes: 2 * 1024)
    package static let large = repositories(approximateBytes: 200 * 1024)

    package static func repositories(approximateBytes: Int) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func encoded(_ count: Int) -> Data {
            (try? encoder.encode((0..<count).map(repository))) ?? Data()
        }
        // Estimate the count from a sample, then grow to the first count that reaches the size.
        let sample = 20
        var count = max(1, approximateBytes * sample / max(1, encoded(sample).count) - 1)
        var data = encoded(count)
        while data.count < approximateBytes {
            count += 1
            data = encoded(count)
        }
        while count > 1, encoded(count - 1).count >= approximateBytes {
            count -= 1
            data = encoded(count)
        }
        return data
    }

    private static func repository(_ index: Int) -> Repository {
        let languages = ["Swift", "C++", "Python", "Rust", "Go", nil]
        let name = "project-\(index)"
        return Repository(
            id: 100_000 + index * 7,
            name: name,
            fullName: "octocat/\(name)",
            owner: .init(login: "octocat", id: 583_231, siteAdmin: false),
            description: index.isMultiple(of: 4) ? nil : "A sample repository number \(index) — with “quotes”.",
            fork: index.isMultiple(of: 3),
            htmlURL: "https://example.com/octocat/\(name)",
            stargazersCount: (index * 7919) % 100_000,
            language: languages[index % languages.count],
            topics: ["swift", "http", "sample-\(index % 10)"],
            score: Double(index % 100) / 7
        )
    }
}

/// A nested, string-heavy document (about 60 KB): discussion threads with authors, long comment bodies (escapes,
/// quotes, non-ASCII text) and replies two levels deep, decoded into ``Discussion``.
extension Fixtures {
    package static let nested: Data = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let text =
            "Line one of a long comment — with “typographic quotes”, a \"quoted\" word, a tab\tand a newline\n"
            + "plus some ünïcödé, an emoji 🚀 and a path /usr/local/bin that JSONEncoder escapes. "
        func comment(_ thread: Int, _ index: Int, depth: Int) -> Discussion.Comment {
            Discussion.Comment(
                id: thread * 1000 + index, body: String(repeating: text, count: 1 + index % 3),
                author: .init(login: "user\(index)", displayName: "User Number \(index)", isStaff: index % 5 == 0),
                reactions: ["+1": index % 7, "heart": index % 3, "rocket": 1],
                replies: depth == 0 ? [] : (0..<2).map { comment(thread, index * 10 + $0, depth: depth - 1) })
        }
        let threads = (0..<12).map { thread in
            Discussion(
                title: "Thread \(thread): why does the decoder \"escape\" slashes?", labels: ["question", "json"],
                author: .init(login: "octocat", displayName: "The Octocat", isStaff: true),
                comments: (0..<4).map { comment(thread, $0, depth: 2) })
        }
        return (try? encoder.encode(threads)) ?? Data()
    }()
}

/// One thread of ``Fixtures/nested``.
package struct Discussion: Codable, Sendable, Equatable {
    package struct Author: Codable, Sendable, Equatable {
        var login: String
        var displayName: String
        var isStaff: Bool
    }

    package struct Comment: Codable, Sendable, Equatable {
        var id: Int
        var body: String
        var author: Author
        var reactions: [String: Int]
        var replies: [Comment]
    }

    var title: String
    var labels: [String]
    var author: Author
    var comments: [Comment]
}
