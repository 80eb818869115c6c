import Courier
import CourierTesting
import Foundation
import Testing

/// A configuration of our own: other suites in the same test process change `APIConfiguration.default`, which
/// `activate()` would otherwise start from.
let blank = APIConfiguration()

struct User: Codable, Sendable, Equatable {
    let login: String
}

struct NewIssue: Codable, Sendable, Equatable {
    let owner: String
    let repo: String
    let title: String
}

@MainActor
enum GitHub {
    @GET("/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }

    @GET("/repos/{owner}/{repo}/issues")
    static var issues: APIParameterBuilder<(owner: String, repo: String, state: String?)>? = .init {
        ["owner": $0.owner, "repo": $0.repo, "state": $0.state]
    }

    @POST("/repos/{owner}/{repo}/issues", headers: ["Accept": "application/vnd.github+json"])
    static var createIssue: APIParameterBuilder<NewIssue>? = .init { $0 }

    @POST("/session", encoding: .form)
    static var signIn: APIParameterBuilder<(user: String, password: String)>? = .init {
        ["user": $0.user, "password": $0.password]
    }

    @GET("/zen")
    static var zen: APIParameterBuilder<Void>?
}

@Suite struct StubMatchingTests {
    @Test func matchesByEndpoint() async throws {
        let stub = await StubExecutor()
            .stub(GitHub.$user, with: .json(#"{"login":"octocat"}"#))
            .stub(GitHub.$zen, with: .text("Keep it logically awesome."))
        try await stub.activate(in: blank) {
            let user: User = try await GitHub.$user.request(with: "octocat")
            let zen: String = try await GitHub.$zen.request()
            #expect(user == User(login: "octocat"))
            #expect(zen == "Keep it logically awesome.")
        }
    }

    @Test func matchesByMethodAndPathTemplate() async throws {
        let stub = StubExecutor().stub(.post, "/repos/{owner}/{repo}/issues", with: .status(201))
        try await stub.activate(in: blank) {
            let response = try await GitHub.$createIssue.request(with: NewIssue(owner: "o", repo: "r", title: "t"))
            #expect(response.statusCode == 201)
        }
    }

    @Test func matchesByPredicateAndTheFirstMatchWins() async throws {
        let stub = StubExecutor()
            .stub(where: { $0.queryValue("state") == "closed" }, with: .json("[1]"))
            .stub(where: { _ in true }, with: .json("[2, 3]"))
        try await stub.activate(in: blank) {
            let closed: [Int] = try await GitHub.$issues.request(with: (owner: "o", repo: "r", state: "closed"))
            let open: [Int] = try await GitHub.$issues.request(with: (owner: "o", repo: "r", state: "open"))
            #expect(closed == [1])
            #expect(open == [2, 3])
        }
    }

    @Test func respondsDynamically() async throws {
        let stub = await StubExecutor().stub(GitHub.$user) { request in
            .json(User(login: request.url.lastPathComponent.uppercased()))
        }
        try await stub.activate(in: blank) {
            let user: User = try await GitHub.$user.request(with: "ann")
            #expect(user.login == "ANN")
        }
    }

    @Test func statusesAndHeadersReachTheCaller() async throws {
        let stub = await StubExecutor()
            .stub(
                GitHub.$user,
                with: .json(#"{"message":"Not Found"}"#, status: 404, headers: ["X-RateLimit-Remaining": "59"]))
        try await stub.activate(in: blank) {
            let error = try await #require(throws: APIError.self) {
                let _: User = try await GitHub.$user.request(with: "ghost")
            }
            #expect(error.reason == .unacceptableStatus(.notFound))
            #expect(error.response?.headers["x-ratelimit-remaining"] == "59")
        }
    }

    @Test func anUnstubbedRequestIsAClearErrorNamingTheEndpoint() async throws {
        let stub = await StubExecutor().stub(GitHub.$zen, with: .text("zen"))
        try await stub.activate(in: blank) {
            let error = try await #require(throws: APIError.self) {
                let _: User = try await GitHub.$user.request(with: "octocat")
            }
            let unstubbed = try #require(error.underlyingError as? UnstubbedRequest)
            #expect(unstubbed.endpoint == "GET /users/{login}")
            #expect(
                error.description
                    == "GET /users/{login}: no stub for GET /users/{login} (https://stub.invalid/users/octocat); "
                    + "add one with stub(_:with:)"
            )
        }
        #expect(stub.requests.count == 1)
    }
}

@Suite struct StubFallbackTests {
    @Test func rulesComeBeforeTheFallback() async throws {
        let stub = StubExecutor().stubEverything(with: .status(202))
            .stub(.get, "/zen", with: .text("ruled"))
        let zen: String = try await stub.activate(in: blank) { try await GitHub.$zen.request() }
        let other = try await stub.activate(in: blank) { try await GitHub.$user.request(with: "x") }
        #expect(zen == "ruled")
        #expect(other.statusCode == 202)
    }

    @Test func eachDerivedExecutorKeepsItsOwnLog() async throws {
        let base = StubExecutor().stubEverything(with: .status(200))
        let derived = base.stub(.get, "/zen", with: .text("z"))
        try await base.activate(in: blank) { try await GitHub.$zen.request() }
        #expect(base.requests.count == 1)
        #expect(derived.requests.isEmpty)
    }
}

@Suite struct StubRecordingTests {
    @Test func recordsMethodURLQueryHeadersAndBody() async throws {
        // GIVEN a stub that accepts everything
        let stub = StubExecutor().stubEverything(with: .status(200))
        // WHEN the code under test makes three calls
        try await stub.activate(in: blank) {
            try await GitHub.$issues.request(with: (owner: "apple", repo: "swift", state: "open"))
            try await GitHub.$createIssue.request(with: NewIssue(owner: "apple", repo: "swift", title: "Bug"))
            try await GitHub.$signIn.request(with: (user: "ann", password: "p&ss"))
        }
        // THEN each request can be inspected
        let requests = stub.requests
        try #require(requests.count == 3)
        #expect(requests[0].method == .get)
        #expect(requests[0].url.path == "/repos/apple/swift/issues")
        #expect(requests[0].queryValue("state") == "open")
        #expect(requests[1].headers[.accept] == "application/vnd.github+json")
        #expect(try requests[1].decodedBody(as: [String: String].self) == ["title": "Bug"])
        #expect(
            requests[2].formFields == [
                URLQueryItem(name: "user", value: "ann"), URLQueryItem(name: "password", value: "p&ss"),
            ])
        #expect(await stub.requests(to: GitHub.$createIssue).count == 1)
    }

    @Test func clearingKeepsTheStubs() async throws {
        let stub = await StubExecutor().stub(GitHub.$zen, with: .text("a"))
        try await stub.activate(in: blank) { try await GitHub.$zen.request() }
        stub.clearRequests()
        #expect(stub.requests.isEmpty)
        let text: String = try await stub.activate(in: blank) { try await GitHub.$zen.request() }
        #expect(text == "a")
    }
}

@Suite struct StubTimingAndErrorTests {
    @Test func delaysAnswerLater() async throws {
        let stub = await StubExecutor().stub(GitHub.$zen, with: .text("late").delayed(by: .milliseconds(150)))
        let start = ContinuousClock.now
        let text: String = try await stub.activate(in: blank) { try await GitHub.$zen.request() }
        #expect(text == "late")
        #expect(ContinuousClock.now - start >= .milliseconds(140))
    }

    @Test func aDelayEndsWhenTheTaskIsCancelled() async throws {
        let stub = await StubExecutor().stub(GitHub.$zen, with: .text("never").delayed(by: .seconds(30)))
        let task = Task { try await stub.activate(in: blank) { try await GitHub.$zen.request() } }
        try await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        task.cancel()
        let error = try await #require(throws: APIError.self) { try await task.value }
        #expect(error.reason == .transport(.cancelled))
        #expect(
            ContinuousClock.now - start < .seconds(10), "the 30 s delay should end at once; slack for a loaded machine")
    }

    @Test(arguments: [
        (URLError(.notConnectedToInternet), APIError.Reason.transport(.offline)),
        (URLError(.timedOut), .transport(.timedOut)),
        (URLError(.cannotConnectToHost), .transport(.cannotConnect)),
    ])
    func injectedURLErrorsAreClassifiedLikeRealOnes(error: URLError, reason: APIError.Reason) async throws {
        let stub = await StubExecutor().stub(GitHub.$zen, with: .error(error))
        let thrown = try await #require(throws: APIError.self) {
            try await stub.activate(in: blank) { try await GitHub.$zen.request() }
        }
        #expect(thrown.reason == reason)
    }

    @Test func injectedCustomErrorsArePassedOn() async throws {
        struct Teapot: Error {}
        let stub = await StubExecutor().stub(GitHub.$zen, with: .error(Teapot()))
        let thrown = try await #require(throws: APIError.self) {
            try await stub.activate(in: blank) { try await GitHub.$zen.request() }
        }
        #expect(thrown.underlyingError is Teapot)
    }

    @Test func unencodableJSONStubsThrowTheEncodingError() async throws {
        let stub = await StubExecutor().stub(GitHub.$zen, with: .json(Double.nan))
        let thrown = try await #require(throws: APIError.self) {
            try await stub.activate(in: blank) { try await GitHub.$zen.request() }
        }
        #expect(thrown.underlyingError is EncodingError)
    }
}

/// Many tests run at once under Swift Testing; each installs its own stub for its own task tree.
@Suite struct StubIsolationTests {
    @Test(arguments: 0..<16)
    func parallelTestsNeverSeeEachOthersStubs(index: Int) async throws {
        let stub = await StubExecutor().stub(GitHub.$user, with: .json(#"{"login":"user-\#(index)"}"#))
        try await stub.activate(in: blank) {
            for _ in 0..<10 {
                let user: User = try await GitHub.$user.request(with: "x")
                #expect(user.login == "user-\(index)")
                await Task.yield()
            }
        }
        #expect(stub.requests.count == 10)
    }

    @Test func childTasksInheritTheStubAndOtherTasksDoNot() async throws {
        let stub = await StubExecutor().stub(GitHub.$zen, with: .text("scoped"))
        let outside = await StubExecutor().stub(GitHub.$zen, with: .text("outside"))
        try await outside.activate(in: blank) {
            let texts: [String] = try await stub.activate(in: blank) {
                try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<4 { group.addTask { try await GitHub.$zen.request() } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            #expect(texts == Array(repeating: "scoped", count: 4))
            let after: String = try await GitHub.$zen.request()
            #expect(after == "outside")
        }
    }
}
