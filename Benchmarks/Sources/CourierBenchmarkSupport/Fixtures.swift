import Foundation

/// The JSON bodies of the decode and end-to-end benchmarks: arrays of repositories of about 2 KB and
/// 200 KB, the same bytes every run.
package enum Fixtures {
    package static let small = repositories(approximateBytes: 2 * 1024)
    package static let large = repositories(approximateBytes: 200 * 1024)

    package static func repositories(approximateBytes: Int) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var items: [Repository] = []
        var data = Data("[]".utf8)
        while data.count < approximateBytes {
            items.append(repository(items.count))
            data = (try? encoder.encode(items)) ?? data
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
