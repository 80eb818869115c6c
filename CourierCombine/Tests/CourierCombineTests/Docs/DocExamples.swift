// The code examples of APIPublisher.swift's documentation comments and of the Combine article
// (Courier.docc/Combine.md), compiled here; DocSnippetTests checks that every line of every example appears
// in this target's sources, in order. The article's first example is in ArticleCombineExample.swift.
import Courier
import CourierCombine
import CourierTesting
import Foundation
import Testing

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// The examples' repository model.
struct Repo: Decodable, Sendable, Equatable {
    let name: String
}

/// The examples' address book.
@MainActor enum GitHub {
    @GET("/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }

    @GET("/users/{login}/repos")
    static var repos: APIParameterBuilder<String>? = .init { ["login": $0] }

    @GET("/zen")
    static var zen: APIParameterBuilder<Void>?
}

// MARK: - APIPublisher.swift

// `APIPublisher`:
@MainActor final class ProfileModel {
    var name = ""
    private var subscriptions: Set<AnyCancellable> = []

    func load(login: String) {
        GitHub.$user.publisher(with: login, as: User.self)
            .receive(on: mainQueue)  // DispatchQueue.main; with OpenCombine, DispatchQueue.main.ocombine
            .map(\.name)  // after receive(on:), so closures written here may run on the main actor
            .replaceError(with: "unknown")
            .sink { [weak self] name in self?.name = name }
            .store(in: &subscriptions)
    }
}

@MainActor enum APIPublisherDocExamples {
    // `APIPublisher.init(_:)`:
    static func initializer() -> APIPublisher<User> {
        let profile = APIPublisher<User> { () async throws(APIError) in
            try await GitHub.$user.request(with: "octocat")
        }
        return profile
    }

    // `publisher(with:as:using:decoder:)`:
    static func decoded() -> (APIPublisher<User>, APIPublisher<Data>) {
        let user = GitHub.$user.publisher(with: "octocat", as: User.self)  // APIPublisher<User>
        let raw: APIPublisher<Data> = GitHub.$user.publisher(with: "octocat")
        return (user, raw)
    }

    // `publisher(with:as:using:decoder:)` of a `DecodedResponse`:
    static func decodedResponse() -> (APIPublisher<DecodedResponse<[Repo]>>, APIPublisher<DecodedResponse<[Repo]>>) {
        let page = GitHub.$repos.publisher(with: "apple", as: DecodedResponse<[Repo]>.self)
        let pages: APIPublisher<DecodedResponse<[Repo]>> = GitHub.$repos.publisher(with: "apple")
        return (page, pages)
    }
}

// MARK: - Combine.md

@MainActor enum CombineArticleExamples {
    // "The output type is the one the subscriber asks for":
    static func outputTypes() {
        let user = GitHub.$user.publisher(with: "octocat", as: User.self)  // a publisher of User
        let bytes: APIPublisher<Data> = GitHub.$user.publisher(with: "octocat")
        let page = GitHub.$repos.publisher(with: "apple", as: DecodedResponse<[Repo]>.self)  // value, status, headers
        let raw = GitHub.$user.publisher(with: "octocat")  // a publisher of APIResponse
        let zen = GitHub.$zen.publisher(as: String.self)  // a Void endpoint takes no argument
        _ = (user, bytes, page, raw, zen)
    }
}

// "Main-actor closures", the nonisolated way:
@MainActor final class RepoListModel {
    var names: [String] = []
    private var subscriptions: Set<AnyCancellable> = []

    func load(login: String) {
        let repos = GitHub.$repos  // read the main-actor endpoint here, not in the closure below
        GitHub.$user.publisher(with: login, as: User.self)
            .flatMap { @Sendable user in repos.publisher(with: user.name, as: [Repo].self) }
            .map { @Sendable repos in repos.map(\.name) }  // @Sendable: not main-actor code
            .replaceError(with: [])
            .receive(on: mainQueue)  // main-actor code from here on
            .sink { [weak self] names in self?.names = names }
            .store(in: &subscriptions)
    }
}

@Suite struct DocExampleTests {
    /// Answers the examples' endpoints.
    static let stub = StubExecutor()
        .stub(where: { $0.url.path == "/users/octocat" }, with: .json(#"{"id": 1, "name": "octocat"}"#))
        .stub(where: { $0.url.path == "/users/octocat/repos" }, with: .json(#"[{"name": "a"}, {"name": "b"}]"#))

    @MainActor
    @Test("The APIPublisher example fills the model's name on the main actor")
    func profileModel() async {
        let model = ProfileModel()

        await Self.stub.activate { model.load(login: "octocat") }

        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while model.name.isEmpty, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        #expect(model.name == "octocat")
    }

    @MainActor
    @Test("The article's flatMap example chains two calls with @Sendable closures and no trap")
    func repoListModel() async {
        let model = RepoListModel()

        await Self.stub.activate { model.load(login: "octocat") }

        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while model.names.isEmpty, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        #expect(model.names == ["a", "b"])
        #expect(Self.stub.requests.map(\.url.path).contains("/users/octocat/repos"))
    }
}
