import Courier
import Foundation
import Testing

/// Query strings reach httpbin intact: values and names are RFC 3986 escaped on the way out and decoded
/// back to the same text by the server (its `args` field).
@Suite("Integration: query strings", .httpbin)
struct QueryIntegrationTests {
    @Test("GET /get echoes the parameters as query arguments")
    func getEchoesQuery() async throws {
        let configuration = try HTTPBin.configuration()

        let echo: HTTPBinEcho = try await HTTPBinAPI.$get.request(with: (a: "x", b: 1), using: configuration)

        #expect(echo.args == ["a": .one("x"), "b": .one("1")])
        #expect(try echo.url == HTTPBin.baseText() + "/get?a=x&b=1")
    }

    struct EscapeCase: Sendable, CustomTestStringConvertible {
        var value: String
        /// How Courier writes the value in the query string.
        var encoded: String

        var testDescription: String { "\(value.debugDescription) → \(encoded)" }
    }

    static let escapeCases: [EscapeCase] = [
        EscapeCase(value: "a+b", encoded: "a%2Bb"),
        EscapeCase(value: "a&b=c", encoded: "a%26b%3Dc"),
        EscapeCase(value: "#fragment", encoded: "%23fragment"),
        EscapeCase(value: "two words", encoded: "two%20words"),
        EscapeCase(value: "é", encoded: "%C3%A9"),
        EscapeCase(value: "+ & = # space é", encoded: "%2B%20%26%20%3D%20%23%20space%20%C3%A9"),
        EscapeCase(value: "100%", encoded: "100%25"),
        EscapeCase(value: "a/b?c", encoded: "a%2Fb%3Fc"),
        EscapeCase(value: "🚀", encoded: "%F0%9F%9A%80"),
        EscapeCase(value: "-._~", encoded: "-._~"),
    ]

    @Test("A query value round-trips through httpbin's args", arguments: escapeCases)
    func valueRoundTrips(_ escape: EscapeCase) async throws {
        let configuration = try HTTPBin.configuration()

        let raw: APIResponse = try await HTTPBinAPI.$anything.request(
            with: [QueryPair("q", escape.value), QueryPair("after", "1")],
            using: configuration
        )
        let echo = try configuration.responseDecoder.decode(HTTPBinEcho.self, from: raw.data)

        let sentQuery = URLComponents(url: raw.request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery
        #expect(sentQuery == "q=\(escape.encoded)&after=1")
        #expect(echo.args == ["q": .one(escape.value), "after": .one("1")])
    }

    @Test("Names are escaped like values")
    func namesRoundTrip() async throws {
        let configuration = try HTTPBin.configuration()
        let name = "a b&c=d+é"

        let echo: HTTPBinEcho = try await HTTPBinAPI.$anything.request(
            with: [QueryPair(name, "v")],
            using: configuration
        )

        #expect(echo.args == [name: .one("v")])
    }

    @Test("Declaration order is kept and a repeated name reaches httpbin as a list")
    func orderAndRepeatedNames() async throws {
        let configuration = try HTTPBin.configuration()

        let raw: APIResponse = try await HTTPBinAPI.$anything.request(
            with: [QueryPair("z", "1"), QueryPair("a", "2"), QueryPair("z", "3")],
            using: configuration
        )
        let echo = try configuration.responseDecoder.decode(HTTPBinEcho.self, from: raw.data)

        #expect(
            URLComponents(url: raw.request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery == "z=1&a=2&z=3")
        #expect(echo.args == ["z": .many(["1", "3"]), "a": .one("2")])
    }

    @Test("An array parameter repeats its key")
    func arrayRepeatsKey() async throws {
        let configuration = try HTTPBin.configuration()

        let echo: HTTPBinEcho = try await HTTPBinAPI.$tags.request(with: ["x y", "z&"], using: configuration)

        #expect(echo.args == ["tag": .many(["x y", "z&"])])
    }

    @Test("DELETE sends its parameters in the query by default")
    func deleteUsesQuery() async throws {
        let configuration = try HTTPBin.configuration()

        let echo: HTTPBinEcho = try await HTTPBinAPI.$deleteWithQuery.request(with: "42/a b", using: configuration)

        #expect(echo.args == ["id": .one("42/a b")])
        #expect(echo.data == "")
    }
}
