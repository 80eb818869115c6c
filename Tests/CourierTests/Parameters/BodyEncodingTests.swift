import Courier
import CourierTesting
import Foundation
import Testing

@Suite struct BodyEncodingTests {
    struct NewIssue: Encodable, Sendable {
        let owner: String
        let title: String
        let body: String?
        let labels: [String]
        let due: Date?
    }

    static let issue = NewIssue(owner: "me", title: "Crash / \"quoted\"", body: nil, labels: ["bug"], due: nil)

    /// One rule set: the configured encoder writes dictionaries as it writes models (the default one sorts keys).
    @Test func dictionaryBodyIsWrittenByTheConfiguredEncoderByteForByte() throws {
        let endpoint = POST<(title: String, count: Int, flag: Bool, ratio: Double, tags: [String], note: String?)>(
            wrappedValue: .init {
                [
                    "title": $0.title, "count": $0.count, "flag": $0.flag, "ratio": $0.ratio, "tags": $0.tags,
                    "note": $0.note,
                ]
            },
            "/things"
        )
        let request = try endpoint.makeRequest(
            with: (title: "a/b \"c\"\n", count: 3, flag: true, ratio: 1.5, tags: ["x", "é"], note: nil),
            using: testConfiguration
        )
        #expect(request.bodyText == #"{"count":3,"flag":true,"ratio":1.5,"tags":["x","é"],"title":"a/b \"c\"\n"}"#)
        #expect(request.headers[.contentType] == "application/json")
        #expect(request.rawQuery == nil)
    }

    @Test func nestedDictionaryValuesAndModelsInsideADictionary() throws {
        struct Point: Encodable, Sendable {
            let x: Int
            let y: Int
        }
        let endpoint = POST<Void>(
            wrappedValue: .init {
                [
                    "point": Point(x: 1, y: 2), "meta": ["k": "v"], "when": Date(timeIntervalSince1970: 0),
                    "none": [String?.none],
                ]
            },
            "/shapes"
        )
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(
            request.bodyText == #"{"meta":{"k":"v"},"none":[null],"point":{"x":1,"y":2},"when":"1970-01-01T00:00:00Z"}"#
        )
    }

    @Test func modelBodyUsesTheConfiguredJSONEncoder() throws {
        let endpoint = POST<NewIssue>(wrappedValue: .init { $0 }, "/issues")
        let request = try endpoint.makeRequest(with: Self.issue, using: testConfiguration)
        #expect(request.bodyText == #"{"labels":["bug"],"owner":"me","title":"Crash / \"quoted\""}"#)
    }

    @Test func modelKeysThatFillThePathLeaveTheBody() throws {
        let endpoint = POST<NewIssue>(wrappedValue: .init { $0 }, "/repos/{owner}/issues")
        let issue = NewIssue(owner: "me", title: "T", body: "B", labels: [], due: Date(timeIntervalSince1970: 60))
        let request = try endpoint.makeRequest(with: issue, using: testConfiguration)
        #expect(request.url.path == "/v2/repos/me/issues")
        #expect(request.bodyText == #"{"body":"B","due":"1970-01-01T00:01:00Z","labels":[],"title":"T"}"#)
    }

    @Test func modelBodyHonoursACustomEncoder() throws {
        struct Profile: Encodable, Sendable {
            let userName: String
            let joinedAt: Date
        }
        var configuration = testConfiguration
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        configuration.encoder = .init(encoder)
        let endpoint = PUT<Profile>(wrappedValue: .init { $0 }, "/me")
        let request = try endpoint.makeRequest(
            with: Profile(userName: "a", joinedAt: Date(timeIntervalSince1970: 10)),
            using: configuration
        )
        #expect(request.bodyText == #"{"joined_at":10,"user_name":"a"}"#)
    }

    @Test func arrayLiteralIsAJSONArrayBody() throws {
        let endpoint = POST<(Int, String)>(wrappedValue: .init { [$0.0, $0.1, nil] }, "/batch")
        let request = try endpoint.makeRequest(with: (1, "two"), using: testConfiguration)
        #expect(request.bodyText == #"[1,"two"]"#)
    }

    @Test func encodableArrayModelIsAJSONArrayBody() throws {
        let endpoint = POST<[Int]>(wrappedValue: .init { $0 }, "/ids")
        let request = try endpoint.makeRequest(with: [3, 1, 2], using: testConfiguration)
        #expect(request.bodyText == "[3,1,2]")
    }

    @Test func formBodyIsURLEncodedByteForByte() throws {
        let endpoint = POST<(user: String, password: String, remember: Bool, scopes: [String])>(
            wrappedValue: .init {
                ["user": $0.user, "password": $0.password, "remember": $0.remember, "scopes": $0.scopes]
            },
            "/login",
            encoding: .form
        )
        let request = try endpoint.makeRequest(
            with: (user: "a b@c.d", password: "p&s=s+w/é", remember: true, scopes: ["read", "write"]),
            using: testConfiguration
        )
        #expect(
            request.bodyText == "user=a+b%40c.d&password=p%26s%3Ds%2Bw%2F%C3%A9&remember=true&scopes=read&scopes=write"
        )
        #expect(request.headers[.contentType] == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(request.rawQuery == nil)
    }

    @Test func formBodyFromAModelWithAPathValue() throws {
        let endpoint = PATCH<NewIssue>(wrappedValue: .init { $0 }, "/issues/{owner}", encoding: .form)
        let request = try endpoint.makeRequest(with: Self.issue, using: testConfiguration)
        #expect(request.url.path == "/v2/issues/me")
        #expect(request.bodyText == "title=Crash+%2F+%22quoted%22&labels=bug")
    }

    @Test func queryOverrideOnAPostSendsNoBody() throws {
        let endpoint = POST<Int>(wrappedValue: .init { ["page": $0] }, "/search", encoding: .query)
        let request = try endpoint.makeRequest(with: 2, using: testConfiguration)
        #expect(request.rawQuery == "page=2")
        #expect(request.body.isEmpty)
        #expect(request.headers[.contentType] == nil)
    }

    @Test func jsonOverrideOnADeleteSendsABody() throws {
        let endpoint = DELETE<[Int]>(wrappedValue: .init { ["ids": $0] }, "/items", encoding: .json)
        let request = try endpoint.makeRequest(with: [1, 2], using: testConfiguration)
        #expect(request.bodyText == #"{"ids":[1,2]}"#)
    }

    @Test func noParametersMeansNoBodyAndNoContentType() throws {
        let endpoints = [
            try POST<Void>("/ping").makeRequest(using: testConfiguration),
            try POST<Void>(wrappedValue: .init { [:] }, "/ping").makeRequest(using: testConfiguration),
            try POST<String>(wrappedValue: .init { ["id": $0] }, "/items/{id}").makeRequest(
                with: "1", using: testConfiguration),
        ]
        for request in endpoints {
            #expect(request.body.isEmpty)
            #expect(request.headers[.contentType] == nil)
        }
    }

    @Test func anExplicitContentTypeIsKept() throws {
        let endpoint = POST<Void>(
            wrappedValue: .init { ["a": 1] },
            "/x",
            headers: ["content-type": "application/vnd.api+json"]
        )
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(request.headers.values(for: .contentType) == ["application/vnd.api+json"])
    }

    static let bodylessMethods: [(String, @Sendable () throws -> APIRequest)] = [
        (
            "GET",
            {
                try GET<Int>(wrappedValue: .init { ["a": $0] }, "/x", encoding: .json).makeRequest(
                    with: 1, using: testConfiguration)
            }
        ),
        (
            "HEAD",
            {
                try HEAD<Int>(wrappedValue: .init { ["a": $0] }, "/x", encoding: .form).makeRequest(
                    with: 1, using: testConfiguration)
            }
        ),
        (
            "TRACE",
            {
                try TRACE<Int>(wrappedValue: .init { ["a": $0] }, "/x", encoding: .json).makeRequest(
                    with: 1, using: testConfiguration)
            }
        ),
        ("CONNECT", { try CONNECT<Void>("/x", encoding: .json).makeRequest(using: testConfiguration) }),
    ]

    @Test(arguments: bodylessMethods)
    func aBodyOnAMethodThatCannotCarryOneIsAnError(method: String, build: @Sendable () throws -> APIRequest) throws {
        let error = try #require(buildError { try build() })
        #expect(error.reason == .invalidRequest(.bodyNotAllowed))
        #expect(error.description == "\(method) /x: this method cannot carry a request body; use the .query encoding")
    }

    @Test func unencodableModelIsAnError() throws {
        struct Refuses: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "no"))
            }
        }
        let endpoint = POST<Refuses>(wrappedValue: .init { $0 }, "/x")
        let error = try #require(buildError { try endpoint.makeRequest(with: Refuses(), using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.unencodableParameters))
        #expect(error.underlyingError is EncodingError)
    }

    struct Payment: Encodable, Sendable {
        let amount: Decimal
        let ratio: Float
    }

    static let nonFiniteBodies: [(String, @Sendable () throws -> APIRequest)] = [
        (
            "dictionary Decimal.nan",
            {
                try POST<Decimal>(wrappedValue: .init { ["amount": $0] }, "/pay").makeRequest(
                    with: .nan, using: testConfiguration)
            }
        ),
        (
            "list Decimal.nan",
            {
                try POST<Decimal>(wrappedValue: .init { [$0] }, "/pay").makeRequest(
                    with: .nan, using: testConfiguration)
            }
        ),
        (
            "dictionary Float.nan",
            {
                try POST<Float>(wrappedValue: .init { ["ratio": $0] }, "/pay").makeRequest(
                    with: .nan, using: testConfiguration)
            }
        ),
        (
            "form Decimal.nan",
            {
                try POST<Decimal>(wrappedValue: .init { ["amount": $0] }, "/pay", encoding: .form).makeRequest(
                    with: .nan, using: testConfiguration)
            }
        ),
        (
            "model Decimal.nan",
            {
                try POST<Payment>(wrappedValue: .init { $0 }, "/pay").makeRequest(
                    with: Payment(amount: .nan, ratio: 1), using: testConfiguration)
            }
        ),
        (
            "nested model Decimal.nan",
            {
                try POST<[Payment]>(wrappedValue: .init { $0 }, "/pay").makeRequest(
                    with: [Payment(amount: 1, ratio: 1), Payment(amount: .nan, ratio: 1)], using: testConfiguration)
            }
        ),
        (
            "model Float.infinity",
            {
                try POST<Payment>(wrappedValue: .init { $0 }, "/pay").makeRequest(
                    with: Payment(amount: 1, ratio: .infinity), using: testConfiguration)
            }
        ),
    ]

    /// `Decimal.nan` was sent as `{"amount":NaN}` (not JSON) and `amount=NaN`.
    @Test(arguments: nonFiniteBodies)
    func nonFiniteNumbersInBodiesAreAnEncodingError(name: String, build: @Sendable () throws -> APIRequest) throws {
        let error = try #require(buildError { try build() })
        #expect(error.reason == .invalidRequest(.unencodableParameters))
        #expect(error.underlyingError is EncodingError)
    }

    @Test func scalarModelCannotFillAQuery() throws {
        let endpoint = GET<String>(wrappedValue: .init { $0 }, "/x")
        let error = try #require(buildError { try endpoint.makeRequest(with: "plain", using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.unsupportedParameters))
        #expect(error.description == "GET /x: this encoding needs named parameters (a dictionary or a keyed model)")
    }
}
