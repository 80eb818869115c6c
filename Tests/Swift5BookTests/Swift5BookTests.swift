// Setting 3 of the DocC article Swift6AndStaticProperties.md
// ("Swift 6 and static properties"): a module in Swift 5 language mode, where a
// plain `enum` address book compiles (static mutable state is only a warning under complete checking).
import Courier
import Foundation
import Testing

enum Swift5Book {
    @GET("/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }

    @DELETE("/users/{login}/sessions")
    static var signOut: APIParameterBuilder<(login: String, everywhere: Bool)>? = .init {
        ["login": $0.login, "everywhere": $0.everywhere]
    }

    @GET("/zen")
    static var zen: APIParameterBuilder<Void>? = nil
}

@Suite struct Swift5BookTests {
    let configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com"))

    @Test func buildsInSwift5Mode() throws {
        let request = try Swift5Book.$user.makeRequest(with: "octocat", using: configuration)
        #expect(request.url.absoluteString == "https://api.example.com/users/octocat")
    }

    @Test func deletePutsParametersInTheQuery() throws {
        let request = try Swift5Book.$signOut.makeRequest(with: (login: "me", everywhere: true), using: configuration)
        #expect(request.url.absoluteString == "https://api.example.com/users/me/sessions?everywhere=true")
    }

    @Test func voidEndpointsTakeNoArgument() throws {
        let request = try Swift5Book.$zen.makeRequest(using: configuration)
        #expect(request.url.path == "/zen")
    }
}
