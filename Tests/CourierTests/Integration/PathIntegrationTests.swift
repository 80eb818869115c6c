import Courier
import Foundation
import Testing

/// Path template values are percent-encoded as single segments and reach httpbin's `/anything/{a}/{b}`.
///
/// httpbin reports the path it received in its `url` field *after* the WSGI server decoded it and
/// re-quoted only some characters (space → `%20`, `?` → `%3F`, `#` → `%23`), so `%2F` shows as `/`, `%25`
/// as `%`, and non-ASCII text as itself. The tests therefore check both sides: the exact percent-encoded
/// path Courier sent, and the path httpbin shows for it.
@Suite("Integration: path templates", .httpbin)
struct PathIntegrationTests {
    struct SegmentCase: Sendable, CustomTestStringConvertible {
        var value: String
        /// The segment as Courier sends it.
        var encoded: String
        /// The segment as httpbin shows it in its `url` field.
        var shownByHTTPBin: String

        var testDescription: String { "\(value.debugDescription) → \(encoded)" }
    }

    static let segmentCases: [SegmentCase] = [
        SegmentCase(value: "plain", encoded: "plain", shownByHTTPBin: "plain"),
        SegmentCase(value: "hello world", encoded: "hello%20world", shownByHTTPBin: "hello%20world"),
        SegmentCase(value: "a/b", encoded: "a%2Fb", shownByHTTPBin: "a/b"),
        SegmentCase(value: "what?", encoded: "what%3F", shownByHTTPBin: "what%3F"),
        SegmentCase(value: "100%", encoded: "100%25", shownByHTTPBin: "100%"),
        SegmentCase(value: "#hash", encoded: "%23hash", shownByHTTPBin: "%23hash"),
        SegmentCase(value: "a+b=c&d", encoded: "a%2Bb%3Dc%26d", shownByHTTPBin: "a+b=c&d"),
        SegmentCase(value: "café", encoded: "caf%C3%A9", shownByHTTPBin: "café"),
        SegmentCase(value: "東京", encoded: "%E6%9D%B1%E4%BA%AC", shownByHTTPBin: "東京"),
        SegmentCase(value: "🚀 ok", encoded: "%F0%9F%9A%80%20ok", shownByHTTPBin: "🚀%20ok"),
        SegmentCase(value: "...", encoded: "...", shownByHTTPBin: "..."),
    ]

    @Test("A path value is sent as one percent-encoded segment and reaches httpbin", arguments: segmentCases)
    func segmentEncoding(_ segment: SegmentCase) async throws {
        let configuration = try HTTPBin.configuration()

        // WHEN the value fills {a}, next to a plain {b}
        let raw: APIResponse = try await HTTPBinAPI.$path.request(
            with: (a: segment.value, b: "end"),
            using: configuration
        )
        let echo = try configuration.responseDecoder.decode(HTTPBinEcho.self, from: raw.data)

        // THEN the sent path has exactly one segment for it, percent-encoded
        let sentPath = try #require(URLComponents(url: raw.request.url, resolvingAgainstBaseURL: false))
            .percentEncodedPath
        #expect(sentPath == "/anything/\(segment.encoded)/end")
        #expect(segment.encoded.removingPercentEncoding == segment.value)
        // AND httpbin received it (shown in its partly decoded form), with no query added
        #expect(try echo.url == HTTPBin.baseText() + "/anything/\(segment.shownByHTTPBin)/end")
        #expect(echo.args == [:])
    }

    @Test("Both placeholders are filled, and neither value leaks into the query")
    func bothPlaceholders() async throws {
        let configuration = try HTTPBin.configuration()

        let echo: HTTPBinEcho = try await HTTPBinAPI.$path.request(with: (a: "x y", b: "ü/v"), using: configuration)

        #expect(try echo.url == HTTPBin.baseText() + "/anything/x%20y/ü/v")
        #expect(echo.args == [:])
        #expect(echo.method == "GET")
    }
}
