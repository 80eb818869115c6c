// Setting 2 of the DocC article Swift6AndStaticProperties.md
// ("Swift 6 and static properties"): the module uses default MainActor isolation
// (`swiftSettings: [.defaultIsolation(MainActor.self)]`, the default of new Xcode app targets), so a
// plain `enum` address book compiles without annotations.
import Courier
import Foundation
import Testing

enum DefaultIsolationBook {
    @GET("/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }

    @PUT("/users/{login}/status")
    static var setStatus: APIParameterBuilder<(login: String, emoji: String)>? = .init {
        ["login": $0.login, "emoji": $0.emoji]
    }

    @GET("/zen")
    static var zen: APIParameterBuilder<Void>? = nil
}

@Suite struct DefaultIsolationBookTests {
    let configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com"))

    @Test func buildsWithoutAnnotations() throws {
        let request = try DefaultIsolationBook.$user.makeRequest(with: "octocat", using: configuration)
        #expect(request.url.absoluteString == "https://api.example.com/users/octocat")
    }

    @Test func pathValuesLeaveTheBody() throws {
        let request = try DefaultIsolationBook.$setStatus.makeRequest(
            with: (login: "me", emoji: "🚀"),
            using: configuration
        )
        #expect(request.url.path == "/users/me/status")
        #expect(request.body.data.map { String(decoding: $0, as: UTF8.self) } == #"{"emoji":"🚀"}"#)
    }

    @Test func voidEndpointsTakeNoArgument() throws {
        let request = try DefaultIsolationBook.$zen.makeRequest(using: configuration)
        #expect(request.method == .get)
    }
}
