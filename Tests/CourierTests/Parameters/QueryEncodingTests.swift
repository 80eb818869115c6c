import Courier
import Foundation
import Testing

@Suite struct QueryEncodingTests {
    static let search = GET<String>(wrappedValue: .init { ["q": $0] }, "/search")

    /// (value, expected percent-encoded query) — RFC 3986: only `A-Z a-z 0-9 - . _ ~` stay as they are.
    static let escapes: [(String, String)] = [
        ("a+b", "q=a%2Bb"),
        ("a&b", "q=a%26b"),
        ("a=b", "q=a%3Db"),
        ("a#b", "q=a%23b"),
        ("a b", "q=a%20b"),
        ("é", "q=%C3%A9"),
        ("a/b?c", "q=a%2Fb%3Fc"),
        ("100%", "q=100%25"),
        ("-._~", "q=-._~"),
        ("🚀", "q=%F0%9F%9A%80"),
        ("", "q="),
    ]

    @Test(arguments: escapes)
    func valuesAreEscaped(value: String, expectedQuery: String) throws {
        let request = try Self.search.makeRequest(with: value, using: testConfiguration)
        #expect(request.rawQuery == expectedQuery)
        #expect(request.queryItems == [URLQueryItem(name: "q", value: value)])
    }

    @Test func keysAreEscapedToo() throws {
        let endpoint = GET<Void>(wrappedValue: .init { ["a b&c": 1] }, "/x")
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(request.rawQuery == "a%20b%26c=1")
    }

    @Test func declarationOrderIsKeptAndNilIsDropped() throws {
        let endpoint = GET<(z: String, a: Int?, m: Bool)>(
            wrappedValue: .init { ["z": $0.z, "a": $0.a, "m": $0.m] },
            "/x"
        )
        let request = try endpoint.makeRequest(with: (z: "last", a: nil, m: false), using: testConfiguration)
        #expect(request.rawQuery == "z=last&m=false")
    }

    @Test func repeatedKeysAreAllSent() throws {
        let endpoint = GET<Void>(wrappedValue: .init { ["tag": "a", "tag": "b", "other": 1, "tag": "c"] }, "/x")
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(request.rawQuery == "tag=a&tag=b&other=1&tag=c")
    }

    @Test func noParametersMeansNoQuery() throws {
        let endpoint = GET<Void>(wrappedValue: .init { [:] }, "/x")
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(request.url.absoluteString == "https://api.example.com/v2/x")
    }

    static let list = GET<[String?]>(wrappedValue: .init { ["tag": $0] }, "/x")

    /// (array style, expected query for ["a", nil, "b c"])
    static let arrayCases: [(ParameterEncodingOptions.ArrayStyle, String)] = [
        (.repeatedKeys, "tag=a&tag=b%20c"),
        (.brackets, "tag%5B%5D=a&tag%5B%5D=b%20c"),
        (.indexed, "tag%5B0%5D=a&tag%5B2%5D=b%20c"),
        (.commaSeparated, "tag=a,b%20c"),
    ]

    @Test(arguments: arrayCases)
    func arrayStyles(style: ParameterEncodingOptions.ArrayStyle, expectedQuery: String) throws {
        var configuration = testConfiguration
        configuration.parameterOptions.arrays = style
        let request = try Self.list.makeRequest(with: ["a", nil, "b c"], using: configuration)
        #expect(request.rawQuery == expectedQuery)
    }

    @Test func commasInsideCommaSeparatedElementsAreEncoded() throws {
        var configuration = testConfiguration
        configuration.parameterOptions.arrays = .commaSeparated
        let request = try Self.list.makeRequest(with: ["a,b", nil, "c d", ",", ""], using: configuration)
        #expect(request.rawQuery == "tag=a%2Cb,c%20d,%2C,")
        let form = POST<[String]>(
            wrappedValue: .init { ["tag": $0] }, "/x", encoding: .form(.init(arrays: .commaSeparated)))
        #expect(try form.makeRequest(with: ["a,b", "c d"], using: testConfiguration).bodyText == "tag=a%2Cb,c+d")
    }

    @Test func arraysRepeatTheirKeyByDefault() throws {
        let request = try Self.list.makeRequest(with: ["x", "y"], using: testConfiguration)
        #expect(request.queryItems == [URLQueryItem(name: "tag", value: "x"), URLQueryItem(name: "tag", value: "y")])
    }

    @Test func emptyArraysAreLeftOut() throws {
        let request = try Self.list.makeRequest(with: [], using: testConfiguration)
        #expect(request.rawQuery == nil)
    }

    static let flag = GET<Bool>(wrappedValue: .init { ["on": $0] }, "/x")

    @Test(arguments: [
        (ParameterEncodingOptions.BoolStyle.literal, true, "on=true"),
        (.literal, false, "on=false"),
        (.numeric, true, "on=1"),
        (.numeric, false, "on=0"),
    ])
    func boolStyles(style: ParameterEncodingOptions.BoolStyle, value: Bool, expectedQuery: String) throws {
        var configuration = testConfiguration
        configuration.parameterOptions.bools = style
        let request = try Self.flag.makeRequest(with: value, using: configuration)
        #expect(request.rawQuery == expectedQuery)
    }

    static let since = GET<Date>(wrappedValue: .init { ["since": $0] }, "/x")
    static let moment = Date(timeIntervalSince1970: 1_714_979_289.125)

    @Test(arguments: [
        (ParameterEncodingOptions.DateStyle.iso8601, "since=2024-05-06T07%3A08%3A09Z"),
        (.iso8601WithFractionalSeconds, "since=2024-05-06T07%3A08%3A09.125Z"),
        (.secondsSince1970, "since=1714979289.125"),
        (.millisecondsSince1970, "since=1714979289125"),
    ])
    func dateStyles(style: ParameterEncodingOptions.DateStyle, expectedQuery: String) throws {
        var configuration = testConfiguration
        configuration.parameterOptions.dates = style
        let request = try Self.since.makeRequest(with: Self.moment, using: configuration)
        #expect(request.rawQuery == expectedQuery)
    }

    @Test func datesAreISO8601ByDefault() throws {
        let request = try Self.since.makeRequest(with: Date(timeIntervalSince1970: 0), using: testConfiguration)
        #expect(request.queryItems.first?.value == "1970-01-01T00:00:00Z")
    }

    struct Filter: Encodable, Sendable {
        let name: String
        let range: [Int]
        let owner: Owner?

        struct Owner: Encodable, Sendable {
            let id: Int
            let verified: Bool
        }
    }

    static let filtered = GET<Filter>(wrappedValue: .init { ["filter": $0, "page": 1] }, "/x")

    @Test(arguments: [
        (
            ParameterEncodingOptions.NestingStyle.brackets,
            "filter[name]=n&filter[range]=1&filter[range]=2&filter[owner][id]=7&filter[owner][verified]=true&page=1"
        ),
        (
            .dotted,
            "filter.name=n&filter.range=1&filter.range=2&filter.owner.id=7&filter.owner.verified=true&page=1"
        ),
    ])
    func nestedValues(style: ParameterEncodingOptions.NestingStyle, expectedDecodedQuery: String) throws {
        var configuration = testConfiguration
        configuration.parameterOptions.nesting = style
        let filter = Filter(name: "n", range: [1, 2], owner: .init(id: 7, verified: true))
        let request = try Self.filtered.makeRequest(with: filter, using: configuration)
        let decoded = request.queryItems.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&")
        #expect(decoded == expectedDecodedQuery)
    }

    @Test func nilInsideAModelIsLeftOut() throws {
        let request = try Self.filtered.makeRequest(
            with: Filter(name: "n", range: [], owner: nil),
            using: testConfiguration
        )
        #expect(request.rawQuery == "filter%5Bname%5D=n&page=1")
    }

    @Test func endpointOptionsOverrideTheConfiguration() throws {
        let endpoint = GET<[Int]>(
            wrappedValue: .init { ["id": $0] },
            "/x",
            encoding: .query(.init(arrays: .commaSeparated))
        )
        let request = try endpoint.makeRequest(with: [1, 2, 3], using: testConfiguration)
        #expect(request.rawQuery == "id=1,2,3")
    }

    @Test func numbersUseTheirShortestForm() throws {
        let endpoint = GET<Void>(
            wrappedValue: .init { ["i": -3, "d": 0.1, "whole": 2.0, "big": 1e20, "u": UInt8(255)] },
            "/x"
        )
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(request.rawQuery == "i=-3&d=0.1&whole=2&big=1e%2B20&u=255")
    }

    @Test func aModelCanBeTheWholeQuery() throws {
        struct Page: Encodable, Sendable {
            let page: Int
            let perPage: Int
        }
        let endpoint = GET<Page>(wrappedValue: .init { $0 }, "/x")
        let request = try endpoint.makeRequest(with: Page(page: 2, perPage: 50), using: testConfiguration)
        #expect(request.rawQuery == "page=2&perPage=50")
    }

    @Test func foundationValuesKeepAMeaningfulForm() throws {
        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        let endpoint = GET<Void>(
            wrappedValue: .init {
                ["url": URL(string: "https://a.example/b"), "id": id, "amount": Decimal(string: "12.50")]
            },
            "/x"
        )
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(
            request.queryItems.map { "\($0.name)=\($0.value ?? "")" } == [
                "url=https://a.example/b", "id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "amount=12.5",
            ]
        )
    }

    @Test func aListCannotBeAQuery() throws {
        let endpoint = GET<Void>(wrappedValue: .init { ["a", "b"] }, "/x")
        let error = try #require(buildError { try endpoint.makeRequest(using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.unsupportedParameters))
    }

    static let nonFinite: [(String, @Sendable () throws -> APIRequest)] = [
        (
            "Decimal.nan",
            {
                try GET<Decimal>(wrappedValue: .init { ["x": $0] }, "/x").makeRequest(
                    with: .nan, using: testConfiguration)
            }
        ),
        (
            "[Decimal.nan]",
            {
                try GET<[Decimal]>(wrappedValue: .init { ["x": $0] }, "/x").makeRequest(
                    with: [.nan], using: testConfiguration)
            }
        ),
        (
            "Float.nan",
            {
                try GET<Float>(wrappedValue: .init { ["x": $0] }, "/x").makeRequest(
                    with: .nan, using: testConfiguration)
            }
        ),
        (
            "-Float.infinity",
            {
                try GET<[Float]>(wrappedValue: .init { ["x": $0] }, "/x").makeRequest(
                    with: [-.infinity], using: testConfiguration)
            }
        ),
        (
            "Decimal.nan in a path",
            {
                try GET<Decimal>(wrappedValue: .init { ["x": $0] }, "/x/{x}").makeRequest(
                    with: .nan, using: testConfiguration)
            }
        ),
    ]

    @Test(arguments: nonFinite)
    func nonFiniteDecimalsAndFloatsAreAnEncodingError(name: String, build: @Sendable () throws -> APIRequest) throws {
        let error = try #require(buildError { try build() })
        #expect(error.reason == .invalidRequest(.unencodableParameters))
        #expect(error.underlyingError is EncodingError)
    }

    @Test func floatsUseTheirShortestForm() throws {
        let endpoint = GET<Void>(wrappedValue: .init { ["f": Float(0.1), "g": [Float(2.5), Float(3)]] }, "/x")
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(request.rawQuery == "f=0.1&g=2.5&g=3")
    }

    @Test func nonFiniteNumbersAreAnEncodingError() throws {
        let endpoint = GET<Double>(wrappedValue: .init { ["x": [$0]] }, "/x")
        let error = try #require(buildError { try endpoint.makeRequest(with: .nan, using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.unencodableParameters))
        #expect(error.underlyingError is EncodingError)
        #expect(error.description == "GET /x: the parameters could not be encoded")
    }
}
