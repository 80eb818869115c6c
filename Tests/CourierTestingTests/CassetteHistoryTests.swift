@_spi(CourierInternals) import Courier
import Foundation
import Testing

@testable import CourierTesting

/// A recording is evidence: appending new episodes keeps the old entries as they were written, and a HAR date read
/// back and written again is the same text.
@Suite struct CassetteHistoryTests {
    let base = APIConfiguration(baseURL: URL(string: "https://shop.example/api"))

    @Test(
        "A millisecond date read back and written again is the same text",
        arguments: [
            "2026-11-27T03:39:45.992Z", "2026-11-27T03:39:45.001Z", "2026-11-27T03:39:45.999Z",
            "2026-11-27T03:39:45.000Z", "1970-01-01T00:00:00.001Z", "2001-01-01T00:00:00.999Z",
            "1969-12-31T23:59:59.999Z", "2099-12-31T23:59:59.994Z", "2026-02-28T12:00:00.123Z",
        ])
    func millisecondDatesRoundTrip(text: String) throws {
        let date = try #require(HAR.date(fromDateTime: text))

        #expect(HAR.dateTime(date) == text)
    }

    @Test(
        "Fractional seconds of other lengths read to the nearest millisecond",
        arguments: [
            ("2026-11-27T03:39:45Z", "2026-11-27T03:39:45.000Z"),
            ("2026-11-27T03:39:45.9Z", "2026-11-27T03:39:45.900Z"),
            ("2026-11-27T03:39:45.99Z", "2026-11-27T03:39:45.990Z"),
            ("2026-11-27T03:39:45.9921Z", "2026-11-27T03:39:45.992Z"),
            ("2026-11-27T03:39:45.991999Z", "2026-11-27T03:39:45.992Z"),
            ("2026-11-27T03:39:45.123456789Z", "2026-11-27T03:39:45.123Z"),
            ("2026-11-27T05:39:45.992+02:00", "2026-11-27T03:39:45.992Z"),
        ])
    func otherFractionLengths(text: String, written: String) throws {
        let date = try #require(HAR.date(fromDateTime: text))

        #expect(HAR.dateTime(date) == written)
    }

    @Test("newEpisodes keeps the old entries byte for byte: the file only grows by the new episodes")
    func newEpisodesKeepsOldEntries() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let stub = StubExecutor().stub(where: { $0.endpoint.path == "/items" }) { request in
            let page = Int(request.queryItems.first { $0.name == "page" }?.value ?? "") ?? 0
            return .json(#"{"page": \#(page), "names": ["a\#(page)"]}"#)
        }
        // GIVEN a cassette of one call, whose date has a fraction a Double cannot hold (….992)
        let _: Page = try await Cassette.local(folder.file(), recordingWith: stub).activate(in: base) {
            try await Shop.$items.request(with: (page: 1, sort: "name"))
        }
        var original = try String(contentsOf: folder.file(), encoding: .utf8)
        let recordedDate = try #require(original.firstMatch(of: /"startedDateTime" : "([^"]+)"/)?.output.1)
        original = original.replacingOccurrences(of: String(recordedDate), with: "2026-11-27T03:39:45.992Z")
        // and a `time` with a fraction, as another tool writes it
        original = original.replacing(/"time" : [0-9.]+/, with: #""time" : 12.345"#)
        try Data(original.utf8).write(to: folder.file())

        // WHEN it replays that call and records two new ones
        try await Cassette.local(folder.file(), mode: .newEpisodes, recordingWith: stub).activate(in: base) {
            for page in 1...3 { let _: Page = try await Shop.$items.request(with: (page: page, sort: "name")) }
        }

        // THEN the old entry is in the file as it was, and two entries follow it
        let after = try String(contentsOf: folder.file(), encoding: .utf8)
        let oldEntry = try #require(Self.entries(of: original).first)
        let entries = Self.entries(of: after)
        #expect(entries.count == 3)
        #expect(entries.first == oldEntry)
        #expect(after.hasPrefix(original.prefix(upTo: try #require(original.range(of: oldEntry)).upperBound)))
        #expect(stub.requests.count == 3, "the first call replayed: one request to record it, two new")
    }

    /// The text of each entry of a cassette as Courier writes it (pretty-printed, four spaces in).
    static func entries(of text: String) -> [String] {
        text.matches(of: /\n      \{\n.*?\n      \}/.dotMatchesNewlines()).map { String($0.output) }
    }
}
