import Courier
import CourierTesting
import Foundation
import Testing

/// The call forms' decoding choices, definition errors and typed throws, above the executor (stubs).
@Suite struct CallFormTests {
    struct User: Codable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    struct Problem: Codable, Sendable, Equatable {
        let message: String
    }

    static let envelope = #"{"data":{"id":1,"name":"Ada"},"meta":{"total":3,"next":"abc"}}"#

    static let user = GET<Int>("/users/{id}") { ["id": $0] }
    static let enveloped = GET<Int>("/users/{id}", decoder: .at("data")) { ["id": $0] }
    static let plist = GET<Int>("/settings/{id}", decoder: .propertyList) { ["id": $0] }
    static let upload = POST<Data>(wrappedValue: nil, "/uploads")
    static let traced = GET<String>(wrappedValue: nil, "/trace", headerBuilder: { ["X-Trace": $0] })
    static let pet = GET<Int>("/pets/{petID}") { ["petId": $0, "limit": 5] }

    func configuration(_ stub: StubExecutor) -> APIConfiguration {
        testConfiguration.with { $0.executor = stub }
    }

    // MARK: Key paths

    @Test("A value inside an envelope decodes at a key path, per call or per endpoint")
    func decodesAtAKeyPath() async throws {
        let configuration = configuration(StubExecutor().stubEverything(with: .json(Self.envelope)))

        let user: User = try await Self.user.request(with: 1, using: configuration, decoder: .at("data"))
        let total: Int = try await Self.user.request(with: 1, using: configuration, decoder: .at("meta.total"))
        let next: String = try await Self.user.request(with: 1, using: configuration, decoder: .at("meta.next"))
        let declared: User = try await Self.enveloped.request(with: 1, using: configuration)

        #expect(user == User(id: 1, name: "Ada"))
        #expect(total == 3)
        #expect(next == "abc")  // a String at a key path is decoded, not the whole body as text
        #expect(declared == user)
    }

    @Test("A missing key in the path is a decoding failure that names the key")
    func missingKeyIsADecodingFailure() async throws {
        let configuration = configuration(StubExecutor().stubEverything(with: .json(Self.envelope)))

        let error = try await #require(throws: APIError.self) {
            try await Self.user.request(with: 1, using: configuration, decoder: .at("meta.user")) as User
        }

        #expect(error.reason == .decodingFailed)
        #expect(error.description.contains("missing key 'user' at meta"))
    }

    @Test("A key path decodes with the decoder the call would use otherwise, or the one it names")
    func keyPathUsesTheNextDecoder() async throws {
        let plist = try PropertyListEncoder().encode(["items": [User(id: 2, name: "Bo")]])
        let configuration = configuration(StubExecutor().stubEverything(with: .data(plist))).with {
            $0.responseDecoder = .propertyList
        }

        let viaConfiguration: [User] = try await Self.user.request(with: 2, using: configuration, decoder: .at("items"))
        let named: [User] = try await Self.user.request(
            with: 2, using: testConfiguration.with { $0.executor = StubExecutor().stubEverything(with: .data(plist)) },
            decoder: .propertyList.at("items"))

        #expect(viaConfiguration == [User(id: 2, name: "Bo")])
        #expect(named == viaConfiguration)
    }

    // MARK: Default decoders

    @Test("The call's decoder wins over the endpoint's, which wins over the configuration's")
    func decoderOrder() async throws {
        let plist = try PropertyListEncoder().encode(User(id: 3, name: "Cy"))
        let json = #"{"id":4,"name":"Di"}"#

        let fromEndpoint: User = try await Self.plist.request(
            with: 3, using: configuration(StubExecutor().stubEverything(with: .data(plist))))
        let fromConfiguration: User = try await Self.user.request(
            with: 3,
            using: configuration(StubExecutor().stubEverything(with: .data(plist))).with {
                $0.responseDecoder = .propertyList
            })
        let fromCall: User = try await Self.plist.request(
            with: 4, using: configuration(StubExecutor().stubEverything(with: .json(json))),
            decoder: .json(JSONDecoder()))

        #expect(fromEndpoint == User(id: 3, name: "Cy"))
        #expect(fromConfiguration == fromEndpoint)
        #expect(fromCall == User(id: 4, name: "Di"))
    }

    @Test("error.decodeBody decodes with the failed call's decoder by default, or the one given")
    func decodeBodyUsesTheCallsDecoder() async throws {
        let plist = try PropertyListEncoder().encode(Problem(message: "nope"))
        let stub = StubExecutor().stubEverything(with: .data(plist, status: 409))

        let error = try await #require(throws: APIError.self) {
            try await Self.plist.request(with: 1, using: configuration(stub)) as User
        }

        #expect(error.decodeBody(as: Problem.self) == Problem(message: "nope"))
        #expect(error.decodeBody(as: Problem.self, using: .json(JSONDecoder())) == nil)
        #expect(error.decodeBody(as: Problem.self, using: .propertyList) == Problem(message: "nope"))
    }

    @Test("An error body is decoded without the success envelope's key path")
    func decodeBodyIgnoresTheKeyPath() async throws {
        let stub = StubExecutor().stubEverything(with: .json(#"{"message":"gone"}"#, status: 410))

        let error = try await #require(throws: APIError.self) {
            try await Self.enveloped.request(with: 1, using: configuration(stub)) as User
        }

        #expect(error.decodeBody(as: Problem.self) == Problem(message: "gone"))
    }

    // MARK: Definition errors and diagnostics (items 9, 12)

    @Test("A nil builder on an endpoint with a parameter is a definition error, before any I/O")
    func nilBuilderOnAParameterIsAnError() async throws {
        let stub = StubExecutor()

        let error = try await #require(throws: APIError.self) {
            try await Self.upload.request(with: Data("x".utf8), using: configuration(stub))
        }

        #expect(error.reason == .invalidRequest(.missingParameterBuilder("Data")))
        #expect(error.description.contains("parameter builder is nil"))
        #expect(stub.requests.isEmpty)
        // A parameter that only a header builder reads is fine.
        let request = try Self.traced.makeRequest(with: "t-1", using: testConfiguration)
        #expect(request.headers["X-Trace"] == "t-1")
    }

    @Test("A missing path value names the unused parameters and suggests the close one")
    func missingPathValueSuggests() throws {
        let error = try #require(throws: APIError.self) {
            try Self.pet.makeRequest(with: 7, using: testConfiguration)
        }

        #expect(error.reason == .invalidRequest(.missingPathValue(name: "petID")))
        #expect(
            error.description
                == "GET /pets/{petID}: missing value for path parameter 'petID' "
                + "(did you mean 'petId'? unused parameters: 'petId', 'limit')")
    }

    @Test("Decoding a model from an empty body says the body was empty and suggests an Optional")
    func emptyBodySuggestsOptional() async throws {
        let configuration = configuration(StubExecutor().stubEverything(with: .status(200)))

        let error = try await #require(throws: APIError.self) {
            try await Self.user.request(with: 1, using: configuration) as User
        }
        let none: User? = try await Self.user.request(with: 1, using: configuration)

        #expect(error.reason == .decodingFailed)
        #expect(error.underlyingError is DecodingError)
        #expect(error.description.contains("the response body is empty; decode an Optional (User?)"))
        #expect(none == nil)
    }

    // MARK: Typed throws

    @Test("withCurrent and activate keep the closure's error type")
    func typedThrowsAreKept() async throws {
        let stub = StubExecutor().stubEverything(with: .status(404))

        do {
            try await APIConfiguration.withCurrent(configuration(stub)) { () async throws(APIError) in
                try await Self.user.request(with: 1)
            }
            Issue.record("expected a 404 failure")
        } catch {
            let typed: APIError = error  // compiles only if the error type survived
            #expect(typed.reason == .unacceptableStatus(.notFound))
        }
        do {
            try await stub.activate(in: testConfiguration) { () async throws(APIError) in
                try await Self.user.request(with: 1)
            }
            Issue.record("expected a 404 failure")
        } catch {
            let typed: APIError = error
            #expect(typed.statusCode == 404)
        }
        // A closure that cannot throw needs no `try`.
        let value = APIConfiguration.withCurrent(testConfiguration) { APIConfiguration.current.baseURL }
        #expect(value == testConfiguration.baseURL)
    }
}
