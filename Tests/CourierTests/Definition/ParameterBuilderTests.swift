import CourierTesting
import Foundation
import Testing

@_spi(Testing) @testable import Courier

@Suite struct ParameterBuilderTests {
    struct Profile: Codable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    @MainActor enum Book {
        @GET("/users/{login}")
        static var user: APIParameterBuilder<String>? = .init { ["login": $0] }

        @GET("/repos/{owner}/{repo}/issues")
        static var issues: APIParameterBuilder<(owner: String, repo: String, state: String?)>? = .init {
            ["owner": $0.owner, "repo": $0.repo, "state": $0.state]
        }

        @GET("/mixed")
        static var mixed: APIParameterBuilder<Profile>? = .init {
            ["id": $0.id, "name": $0.name, "tags": ["a"], "score": 1.5, "active": true, "none": String?.none]
        }

        @POST("/profiles")
        static var createProfile: APIParameterBuilder<Profile>? = .init { $0 }

        @POST("/pairs")
        static var pairs: APIParameterBuilder<(Int, Int)>? = .init { [$0.0, $0.1] }

        @GET("/conditional")
        static var conditional: APIParameterBuilder<Int?>? = .init { limit in
            var parameters: Parameters = ["sort": "name"]
            if let limit, limit > 0 { parameters.append("limit", limit) }
            return parameters
        }

        @GET("/zen")
        static var zen: APIParameterBuilder<Void>? = nil

        @GET("/zen-implicit")
        static var zenImplicit: APIParameterBuilder<Void>?
    }

    @Test @MainActor func dictionaryLiteralWithOneValue() throws {
        let request = try Book.$user.makeRequest(with: "octocat", using: testConfiguration)
        #expect(request.url.path == "/v2/users/octocat")
    }

    @Test @MainActor func tupleParameterWithOptionalDroppedWhenNil() throws {
        let open = try Book.$issues.makeRequest(with: (owner: "o", repo: "r", state: "open"), using: testConfiguration)
        let all = try Book.$issues.makeRequest(with: (owner: "o", repo: "r", state: nil), using: testConfiguration)
        #expect(open.url.absoluteString == "https://api.example.com/v2/repos/o/r/issues?state=open")
        #expect(all.url.absoluteString == "https://api.example.com/v2/repos/o/r/issues")
    }

    @Test @MainActor func dictionaryLiteralWithMixedValueTypesKeepsOrder() throws {
        let request = try Book.$mixed.makeRequest(with: Profile(id: 7, name: "n"), using: testConfiguration)
        #expect(request.rawQuery == "id=7&name=n&tags=a&score=1.5&active=true")
    }

    @Test @MainActor func modelBuilder() throws {
        let request = try Book.$createProfile.makeRequest(with: Profile(id: 1, name: "a"), using: testConfiguration)
        #expect(request.bodyText == #"{"id":1,"name":"a"}"#)
    }

    @Test @MainActor func arrayBuilder() throws {
        let request = try Book.$pairs.makeRequest(with: (4, 2), using: testConfiguration)
        #expect(request.bodyText == "[4,2]")
    }

    @Test @MainActor func multiStatementBuilder() throws {
        let limited = try Book.$conditional.makeRequest(with: 10, using: testConfiguration)
        let unlimited = try Book.$conditional.makeRequest(with: nil, using: testConfiguration)
        #expect(limited.rawQuery == "sort=name&limit=10")
        #expect(unlimited.rawQuery == "sort=name")
    }

    @Test @MainActor func nilBuilderMeansNoParameters() throws {
        let explicit = try Book.$zen.makeRequest(using: testConfiguration)
        let implicit = try Book.$zenImplicit.makeRequest(using: testConfiguration)
        #expect(explicit.url.absoluteString == "https://api.example.com/v2/zen")
        #expect(implicit.url.absoluteString == "https://api.example.com/v2/zen-implicit")
        #expect(explicit.body.isEmpty && implicit.body.isEmpty)
    }

    @Test func theEndpointIsASendableValueUsableOffTheMainActor() async throws {
        let endpoint = await Book.$user
        let request = try await Task.detached { try endpoint.makeRequest(with: "x", using: testConfiguration) }.value
        #expect(request.url.path == "/v2/users/x")
    }

    @Test func builderCanBeCalledDirectly() {
        let builder = APIParameterBuilder<Int> { ["n": $0] }
        #expect(!builder.parameters(for: 1).isEmpty)
        #expect(Parameters.none.isEmpty)
        let empty: Parameters = []
        #expect(empty.isEmpty)
    }

    @Test func namesCannotBeAddedToAModel() throws {
        let endpoint = POST<Profile>(
            wrappedValue: .init { profile in
                var parameters = Parameters(model: profile)
                parameters.append("extra", 1)
                return parameters
            },
            "/x"
        )
        let error = try #require(
            buildError { try endpoint.makeRequest(with: Profile(id: 1, name: "a"), using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.mixedParameters))
    }

    @Test func theBuilderCanBeReplacedAtRunTime() throws {
        var endpoint = GET<Int>(wrappedValue: .init { ["a": $0] }, "/x")
        endpoint.wrappedValue = .init { ["b": $0] }
        let request = try endpoint.makeRequest(with: 1, using: testConfiguration)
        #expect(request.rawQuery == "b=1")
    }

    enum StaticBook {
        static let book = GET<String>("/books/{isbn}", headers: ["Accept": "application/json"]) { ["isbn": $0] }
        static let search = GET<(q: String, page: Int)>("/search") { ["q": $0.q, "page": $0.page] }
    }

    @Test func pathFirstInitializerWithATrailingBuilder() throws {
        let book = try StaticBook.book.makeRequest(with: "978-0", using: testConfiguration)
        let search = try StaticBook.search.makeRequest(with: (q: "swift", page: 2), using: testConfiguration)
        #expect(book.url.path == "/v2/books/978-0")
        #expect(book.headers[.accept] == "application/json")
        #expect(search.rawQuery == "q=swift&page=2")
    }

    /// The value spelling with a trailing closure that returns the parameter itself: each kind as `.init { $0 }`
    /// sends it (a model as its JSON, bytes as they are, a file from disk).
    enum ValueBook {
        static let create = POST<Profile>("/profiles/{id}", timeout: .seconds(3)) { $0 }
        static let bytes = POST<Data>("/bytes") { $0 }
        static let file = PUT<URL>("/files") { $0 }
    }

    @Test func valueSpellingWithAModelBuilder() throws {
        let request = try ValueBook.create.makeRequest(with: Profile(id: 7, name: "Ada"), using: testConfiguration)

        #expect(request.url.path == "/v2/profiles/7")
        #expect(request.bodyText == #"{"name":"Ada"}"#)
        #expect(request.timeout == .seconds(3))
    }

    @Test func valueSpellingWithBytesOrAFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-value-\(UUID()).bin")
        try Data("on disk".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let bytes = try ValueBook.bytes.makeRequest(with: Data([0, 1, 2]), using: testConfiguration)
        let upload = try ValueBook.file.makeRequest(with: file, using: testConfiguration)

        #expect(bytes.body.data == Data([0, 1, 2]))
        #expect(bytes.headers[.contentType] == "application/octet-stream")
        #expect(upload.body.isInMemory == false)
        #expect(upload.body.count == 7)
        #expect(upload.headers[.contentType] == "application/octet-stream")
    }
}
