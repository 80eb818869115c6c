import Courier
import CourierTesting
import Foundation
import Testing

@Suite struct ResponseDecodingTests {
    struct User: Codable, Sendable, Equatable {
        let login: String
        let joined: Date?
    }

    struct ServerProblem: Decodable, Sendable {
        let message: String
    }

    static let user = GET<String>(wrappedValue: .init { ["login": $0] }, "/users/{login}")
    static let ping = HEAD<Void>("/ping")

    func configuration(_ stub: StubExecutor) -> APIConfiguration {
        testConfiguration.with { $0.executor = stub }
    }

    @Test func decodesJSONWithTheConfiguredDecoder() async throws {
        let stub = StubExecutor().stubEverything(with: .json(#"{"login":"octocat","joined":"2011-01-25T18:44:36Z"}"#))
        let user: User = try await Self.user.request(with: "octocat", using: configuration(stub))
        #expect(user == User(login: "octocat", joined: Date(timeIntervalSince1970: 1_295_981_076)))
        #expect(stub.requests.map(\.url.path) == ["/v2/users/octocat"])
    }

    @Test func returnsDataAsIs() async throws {
        let bytes = Data([0, 1, 2, 255])
        let data: Data = try await Self.user.request(
            with: "a", using: configuration(StubExecutor().stubEverything(with: .data(bytes))))
        #expect(data == bytes)
    }

    @Test(arguments: [
        ("text/plain; charset=utf-8", Data("héllo".utf8), "héllo"),
        ("text/plain", Data("héllo".utf8), "héllo"),
        ("text/plain; charset=ISO-8859-1", Data([0x68, 0xE9]), "hé"),
        ("text/plain;charset=\"utf-16le\"", Data([0x68, 0x00, 0xE9, 0x00]), "hé"),
    ])
    func decodesTextInTheCharsetOfContentType(contentType: String, body: Data, expected: String) async throws {
        let stub = StubExecutor().stubEverything(with: .data(body, headers: ["Content-Type": contentType]))
        let text: String = try await Self.user.request(with: "a", using: configuration(stub))
        #expect(text == expected)
    }

    @Test func optionalIsNilForAnEmptyBody() async throws {
        let stub = StubExecutor().stubEverything(with: .status(204))
        let user: User? = try await Self.user.request(with: "a", using: configuration(stub))
        #expect(user == nil)
        let head: Data? = try await Self.ping.request(
            using: configuration(StubExecutor().stubEverything(with: .status(200))))
        #expect(head == nil)
    }

    @Test func optionalDecodesANonEmptyBody() async throws {
        let stub = StubExecutor().stubEverything(with: .json(#"{"login":"a"}"#))
        let user: User? = try await Self.user.request(with: "a", using: configuration(stub))
        #expect(user?.login == "a")
        let text: String? = try await Self.user.request(with: "a", using: configuration(stub))
        #expect(text == #"{"login":"a"}"#)
    }

    @Test func rawResponseCarriesStatusHeadersBodyAndRequest() async throws {
        let stub = StubExecutor().stubEverything(with: .data(Data("ok".utf8), status: 201, headers: ["ETag": "\"v1\""]))
        let response: APIResponse = try await Self.user.request(with: "a", using: configuration(stub))
        #expect(response.statusCode == 201)
        #expect(response.headers[.eTag] == "\"v1\"")
        #expect(response.data == Data("ok".utf8))
        #expect(response.request.endpoint.path == "/users/{login}")
        #expect(response.url?.path == "/v2/users/a")
    }

    @Test func discardingTheResultStillValidatesTheStatus() async throws {
        try await Self.user.request(with: "a", using: configuration(StubExecutor().stubEverything(with: .status(200))))
        await #expect(throws: APIError.self) {
            try await Self.user.request(
                with: "a", using: configuration(StubExecutor().stubEverything(with: .status(500))))
        }
    }

    @Test func explicitTypeAndDecoderForms() async throws {
        let stub = StubExecutor().stubEverything(with: .json(#"{"login":"a"}"#))
        let user = try await Self.user.request(with: "a", using: configuration(stub)) as User
        #expect(user.login == "a")
        let custom = JSONDecoder()
        let again = try await Self.user.request(with: "a", using: configuration(stub), decoder: .json(custom)) as User
        #expect(again.login == "a")
    }

    @Test func propertyListDecoder() async throws {
        let plist = try PropertyListEncoder().encode(User(login: "p", joined: nil))
        let user: User = try await Self.user.request(
            with: "a",
            using: configuration(StubExecutor().stubEverything(with: .data(plist))),
            decoder: .propertyList
        )
        #expect(user.login == "p")
    }

    @Test func malformedBodyIsADecodingFailureWithAnExcerpt() async throws {
        let html = "<html><body>" + String(repeating: "x", count: 500) + "</body></html>"
        let stub = StubExecutor().stubEverything(with: .data(Data(html.utf8), headers: ["Content-Type": "text/html"]))
        let error = try await #require(throws: APIError.self) {
            let _: User = try await Self.user.request(with: "a", using: configuration(stub))
        }
        #expect(error.reason == .decodingFailed)
        #expect(error.underlyingError is DecodingError)
        #expect(error.bodyExcerpt?.hasPrefix("<html><body>xxx") == true)
        #expect(error.bodyExcerpt?.count == 201)
        #expect(error.description.hasPrefix("GET /users/{login}: the response body could not be decoded: "))
        #expect(error.response?.statusCode == 200)
    }

    @Test func missingKeyIsNamedInTheDescription() async throws {
        let stub = StubExecutor().stubEverything(with: .json(#"{"name":"a"}"#))
        let error = try await #require(throws: APIError.self) {
            let _: User = try await Self.user.request(with: "a", using: configuration(stub))
        }
        #expect(
            error.description
                == "GET /users/{login}: the response body could not be decoded: missing key 'login' at top level")
    }

    @Test func emptyBodyForANonOptionalTypeIsADecodingFailure() async throws {
        let error = try await #require(throws: APIError.self) {
            let _: User = try await Self.ping.request(
                using: configuration(StubExecutor().stubEverything(with: .status(200))))
        }
        #expect(error.reason == .decodingFailed)
    }

    @Test(arguments: [
        (400, APIError.StatusCategory.badRequest),
        (401, .unauthorized),
        (403, .forbidden),
        (404, .notFound),
        (409, .clientError),
        (429, .clientError),
        (500, .serverError),
        (503, .serverError),
        (304, .unexpected),
    ])
    func unacceptableStatusIsClassified(status: Int, category: APIError.StatusCategory) async throws {
        let stub = StubExecutor().stubEverything(with: .data(Data(#"{"message":"nope"}"#.utf8), status: status))
        let error = try await #require(throws: APIError.self) {
            let _: User = try await Self.user.request(with: "a", using: configuration(stub))
        }
        #expect(error.reason == .unacceptableStatus(category))
        #expect(error.statusCode == status)
        #expect(error.decodeBody(as: ServerProblem.self)?.message == "nope")
        #expect(error.description == "GET /users/{login}: unacceptable status \(status) (\(category))")
    }

    @Test func endpointAcceptableStatusCodesOverrideTheConfiguration() async throws {
        let lenient = GET<Void>("/maybe", acceptableStatusCodes: [200, 404])
        let response = try await lenient.request(
            using: configuration(StubExecutor().stubEverything(with: .status(404))))
        #expect(response.statusCode == 404)
        var everything = configuration(StubExecutor().stubEverything(with: .status(500)))
        everything.acceptableStatusCodes = .any
        #expect(try await Self.ping.request(using: everything).statusCode == 500)
    }

    @Test func descriptionsNeverContainHeaderValuesOrRequestBodies() async throws {
        let login = POST<String>(
            wrappedValue: .init { ["password": $0] },
            "/login",
            headers: ["Authorization": "Bearer s3cr3t-token"]
        )
        let stub = StubExecutor().stubEverything(with: .data(Data(), status: 401))
        let error = try await #require(throws: APIError.self) {
            try await login.request(with: "hunter2", using: configuration(stub))
        }
        for text in [
            error.description, error.errorDescription ?? "", String(describing: error),
            "\(error.request?.headers ?? [:])",
        ] {
            #expect(!text.contains("s3cr3t-token"))
            #expect(!text.contains("hunter2"))
        }
    }

    @Test func serverErrorModelsDecodeWithISO8601DatesByDefault() async throws {
        struct Problem: Decodable, Sendable {
            let message: String
            let retryAt: Date
        }
        let stub = StubExecutor().stubEverything(
            with: .data(Data(#"{"message":"slow","retryAt":"2030-01-01T00:00:00Z"}"#.utf8), status: 429))
        let error = try await #require(throws: APIError.self) {
            try await Self.user.request(with: "a", using: configuration(stub))
        }
        #expect(error.decodeBody(as: Problem.self)?.retryAt == Date(timeIntervalSince1970: 1_893_456_000))
    }

    @Test(arguments: [
        (APIError.Reason.transport(.offline), "transport failure: the device is offline"),
        (.unacceptableStatus(.notFound), "unacceptable status: not found"),
        (.invalidRequest(.missingPathValue(name: "id")), "invalid request: missing value for path parameter 'id'"),
        (.decodingFailed, "decoding failed"),
        (.rejectedByService(code: "7", message: nil), "rejected by the service with code 7"),
    ])
    func reasonsDescribeThemselves(reason: APIError.Reason, text: String) {
        #expect(reason.description == text)
    }
}
