// Basics: an address book of endpoints, the four kinds of parameter, and the ways to call an endpoint.
import Courier
import Foundation

// An address book is a namespace of endpoints. Each declaration holds everything about one endpoint: the
// method (the attribute), the path, and the parameter type every call must pass. `@MainActor` is what makes
// `static var` wrappers legal in Swift 6 mode (the Swift6 page shows the alternatives).
@MainActor
enum Bin {
    // Void: no parameters. Leave the builder nil.
    @GET("/get")
    static var get: APIParameterBuilder<Void>? = nil

    // One value. `{login}` takes the parameter named "login"; it fills the path and is sent nowhere else.
    @GET("/anything/users/{login}")
    static var user: APIParameterBuilder<String>? = .init { ["login": $0] }

    // A tuple: several values with labels. A GET sends them as the query string, in this order.
    @GET("/get")
    static var search: APIParameterBuilder<(query: String, page: Int)>? = .init { ["q": $0.query, "page": $0.page] }

    // A model: any Encodable value. A POST sends it as a JSON body.
    @POST("/post")
    static var createNote: APIParameterBuilder<Note>? = .init { $0 }

    @GET("/uuid")
    static var uuid: APIParameterBuilder<Void>? = nil
}

struct Note: Codable, Sendable {
    var title: String
    var pinned: Bool
    var tags: [String]
}

struct UUIDAnswer: Decodable, Sendable {
    var uuid: String
}

@MainActor
enum BasicsPage {
    static func run(_ stage: Stage) async throws {
        // The base URL and the executor come from `APIConfiguration.default`, which main.swift set at start-up:
        //     APIConfiguration.default = APIConfiguration(baseURL: httpbinURL, ...)
        Console.step("A Void endpoint takes no argument: `let echo: Echo = try await Bin.$get.request()`")
        let echo: Echo = try await Bin.$get.request()
        Console.result("\(stage.serverName) saw \(echo.url ?? "?") with query \(echo.argsText)")

        Console.step("One value fills the path: `Bin.$user.request(with: \"octocat\")`")
        let user: Echo = try await Bin.$user.request(with: "octocat")
        Console.result("server got \(user.method ?? "?") \(URL(string: user.url ?? "")?.path ?? "?")")

        Console.step("A tuple's values go to the query: `Bin.$search.request(with: (query: \"swift\", page: 2))`")
        let search: Echo = try await Bin.$search.request(with: (query: "swift", page: 2))
        Console.result("query the server parsed: \(search.argsText)")

        Console.step("A model becomes the JSON body of a POST; httpbin echoes it in its `json` field")
        let note = Note(title: "Buy milk", pinned: true, tags: ["home"])
        let posted: JSONEcho<Note> = try await Bin.$createNote.request(with: note)
        Console.result("echoed back as a Note: \(posted.json.map { "\($0.title), pinned \($0.pinned)" } ?? "nothing")")

        Console.step("The result type picks the decoding")
        let answer: UUIDAnswer = try await Bin.$uuid.request()
        let text: String = try await Bin.$uuid.request()
        Console.result("as UUIDAnswer: \(answer.uuid)")
        Console.result("as String: \(Console.shorten(text, to: 60))")

        Console.step("Only success matters? Call without a result: `try await Bin.$createNote.request(with: note)`")
        let response = try await Bin.$createNote.request(with: note)
        Console.result("no decoding; the discardable APIResponse says \(response.statusCode)")

        Console.step("`makeRequest(with:)` builds the request without any I/O, to inspect, test, or send yourself")
        let request = try Bin.$createNote.makeRequest(with: note)
        Console.result("\(request.method) \(request.url.absoluteString)")
        Console.result("headers \(request.headers) (names only: values may hold credentials)")
        Console.result("body \(String(decoding: request.body.data ?? Data(), as: UTF8.self))")
        Console.note("no → line: nothing was sent. `request.urlRequest` converts it for URLSession.")

        Console.step("Every call site is type-checked against the declaration")
        Console.note(
            "`Bin.$user.request(with: 42)`: cannot convert value of type 'Int' to expected argument type 'String'")
        Console.note(
            "`Bin.$get.request(with: \"x\")`: cannot convert value of type 'String' to expected argument type 'Void'")
    }
}
