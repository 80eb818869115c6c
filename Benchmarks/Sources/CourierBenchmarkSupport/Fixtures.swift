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
