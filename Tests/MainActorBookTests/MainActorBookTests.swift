// Setting 1 of the DocC article Swift6AndStaticProperties.md
// ("Swift 6 and static properties"): Swift 6 language mode, the address book is a
// `@MainActor` namespace. Calls from nonisolated async code simply `await` the endpoint value.
import Courier
import Foundation
import Testing

@MainActor
enum MainActorBook {
    @GET("/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }

    @POST("/notes")
    static var addNote: APIParameterBuilder<(title: String, pinned: Bool)>? = .init {
        ["title": $0.title, "pinned": $0.pinned]
    }

    @GET("/zen")
    static var zen: APIParameterBuilder<Void>? = nil
}

private let configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com/v1"))

@Suite struct MainActorBookTests {
    @Test @MainActor func buildsOnTheMainActor() throws {
        let request = try MainActorBook.$user.makeRequest(with: "octocat", using: configuration)
        #expect(request.url.absoluteString == "https://api.example.com/v1/users/octocat")
    }

    @Test func buildsFromNonisolatedCodeOnceTheEndpointIsInHand() async throws {
        let endpoint = await MainActorBook.$addNote
        let request = try endpoint.makeRequest(with: (title: "a", pinned: true), using: configuration)
        #expect(request.method == .post)
        #expect(request.body.data.map { String(decoding: $0, as: UTF8.self) } == #"{"pinned":true,"title":"a"}"#)
    }

    @Test func voidEndpointsTakeNoArgument() async throws {
        let request = try await MainActorBook.$zen.makeRequest(using: configuration)
        #expect(request.url.path == "/v1/zen")
    }
}
