@_spi(CourierInternals) import Courier
import CourierObservability
import CourierTesting
import Foundation
import Testing

/// `HARRecorder` and `CallTimeline.har()`: the calls as a HAR 1.2 file a browser's devtools open, secrets masked.
@Suite("HARRecorder")
struct HARRecorderTests {
    static let search = GET<String>("/search") { ["q": $0, "api_key": "k3y-in-the-query"] }
    static let login = POST<String>("/login") { ["user": $0, "password": "pa55-in-the-body"] }
    static let missing = GET<Void>("/missing")

    /// The secrets the calls below send; none may appear in the file.
    static let secrets = ["t0ken-in-a-header", "c00kie-value", "k3y-in-the-query", "pa55-in-the-body", "pl-t0ken"]

    static func configuration(observers: [any CallObserver]) -> APIConfiguration {
        let executor = StubExecutor()
            .stub(search, with: .json(#"{"items":[]}"#))
            .stub(login, with: .json(#"{"ok":true}"#))
            .stub(missing, with: .status(404))
        return APIConfiguration(
            baseURL: URL(string: "https://api.example.com"),
            headers: ["Authorization": "Bearer t0ken-in-a-header", "Cookie": "session=c00kie-value"],
            sensitiveNames: ["api_key"], executor: executor, plugins: [.apiKey("pl-t0ken", queryItem: "key")],
            observers: observers)
    }

    /// The file's entries, parsed as plain JSON.
    static func entries(_ data: Data) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let log = try #require(object["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        return try #require(log["entries"] as? [[String: Any]])
    }

    /// A JSON number as parsed (an integral one may come as an `Int`).
    static func number(_ value: Any?) -> Double? {
        if let value = value as? Double { return value }
        if let value = value as? Int { return Double(value) }
        return (value as? NSNumber)?.doubleValue
    }

    @Test("Three calls: valid JSON, the entries in order, non-negative timings that add up to the time, no secret")
    func threeCalls() async throws {
        let har = HARRecorder()
        let configuration = Self.configuration(observers: [har])

        _ = try await Self.search.request(with: "swift", using: configuration) as Data
        _ = try await Self.login.request(with: "ada", using: configuration) as Data
        await #expect(throws: APIError.self) { try await Self.missing.request(using: configuration) as Data }

        let data = try har.har()
        let entries = try Self.entries(data)
        #expect(entries.map { $0["_endpoint"] as? String } == ["GET /search", "POST /login", "GET /missing"])
        #expect(entries.map { ($0["response"] as? [String: Any])?["status"] as? Int } == [200, 200, 404])
        #expect(entries[2]["_error"] != nil)
        #expect(entries[0]["_error"] == nil)
        // A stub does not say which HTTP it spoke.
        #expect(
            entries.map { ($0["response"] as? [String: Any])?["httpVersion"] as? String }
                == .init(repeating: "unknown", count: 3))
        for entry in entries {
            let timings = try #require(entry["timings"] as? [String: Any])
            let phases = ["blocked", "send", "wait", "receive", "_decode"].map { Self.number(timings[$0]) ?? -1 }
            #expect(phases.allSatisfy { $0 >= 0 }, "\(timings)")
            let time = try #require(Self.number(entry["time"]))
            #expect(abs(phases.reduce(0, +) - time) < 0.001)
            #expect(time < 60_000)
        }
        // HAR 1.2's dates have fractional seconds: calls a few milliseconds apart keep their order.
        let started = entries.compactMap { $0["startedDateTime"] as? String }
        let milliseconds = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/
        #expect(started.count == 3 && started.allSatisfy { $0.wholeMatch(of: milliseconds) != nil }, "\(started)")
        #expect(started.compactMap(HAR.date(fromDateTime:)).isSorted, "\(started)")
        let request = try #require(entries[0]["request"] as? [String: Any])
        #expect((request["url"] as? String)?.hasPrefix("https://api.example.com/search?q=swift") == true)
        let text = try #require(String(data: data, encoding: .utf8))
        for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) in the HAR file") }
        #expect(text.contains("Authorization"))
    }

    @Test(
        "HTTP versions as HAR writes them, and read back",
        arguments: [("1.1", "HTTP/1.1"), ("2", "HTTP/2"), ("3", "HTTP/3"), ("1.0", "HTTP/1.0"), (nil, "unknown")])
    func httpVersions(version: String?, written: String) {
        #expect(HAR.httpVersion(version) == written)
        #expect(HAR.version(ofHTTPVersion: written) == version)
    }

    @Test(
        "Other spellings of a HAR file's httpVersion", arguments: [("HTTP/2.0", "2"), ("h2", "2"), ("http/1.1", "1.1")])
    func otherSpellings(text: String, version: String) {
        #expect(HAR.version(ofHTTPVersion: text) == version)
    }

    @Test("A failing call's timeline, from its error, as a file of its own; the recorder keeps the last calls only")
    func oneCallAndLimit() async throws {
        let har = HARRecorder(keepingLast: 2)
        let configuration = Self.configuration(observers: [har])
        for query in ["a", "b", "c"] { _ = try await Self.search.request(with: query, using: configuration) as Data }
        let error = try await #require(throws: APIError.self) {
            try await Self.missing.request(using: configuration) as Data
        }

        let one = try Self.entries(try #require(error.timeline).har())
        #expect(one.count == 1)
        #expect(one.first?["_endpoint"] as? String == "GET /missing")
        let kept = try Self.entries(try har.har())
        let urls = kept.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
        #expect(urls.count == 2)
        #expect(urls.first?.contains("q=c") == true)
        #expect(urls.last?.contains("/missing") == true)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("calls-\(UUID()).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try har.write(to: file)
        #expect(try Self.entries(Data(contentsOf: file)).count == 2)
    }
}

extension Array where Element: Comparable {
    /// Whether the elements are in ascending order.
    fileprivate var isSorted: Bool { zip(self, dropFirst()).allSatisfy { $0 <= $1 } }
}
