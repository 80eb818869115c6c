// Parameters: where values go (path, query, JSON or form body), how odd values are written, and headers.
import Courier
import Foundation

@MainActor
enum Encodings {
    // Path templates: each value is percent-encoded as ONE segment, so "/" cannot change the path's shape.
    // A template may sit mid-segment, as in "{name}.json".
    @GET("/anything/files/{folder}/{name}.json")
    static var file: APIParameterBuilder<(folder: String, name: String)>? = .init {
        ["folder": $0.folder, "name": $0.name]
    }

    // The same three values, three placements: GET → query string, POST → JSON body, `.form` → form body.
    @GET("/anything")
    static var asQuery: APIParameterBuilder<Profile>? = .init { $0 }

    @POST("/anything")
    static var asJSON: APIParameterBuilder<Profile>? = .init { $0 }

    @POST("/anything", encoding: .form)
    static var asForm: APIParameterBuilder<Profile>? = .init { $0 }

    // Dictionary builders keep their order, accept mixed types, drop nil values, and may repeat a name.
    @GET("/get")
    static var filter: APIParameterBuilder<(tags: [String], open: Bool, since: Date, author: String?)>? = .init {
        ["tag": $0.tags, "open": $0.open, "since": $0.since, "author": $0.author, "tag": "extra"]
    }

    // The same parameters with other options: comma-separated arrays, 1/0 booleans, seconds since 1970.
    @GET("/get", encoding: .query(.init(arrays: .commaSeparated, bools: .numeric, dates: .secondsSince1970)))
    static var filterCompact: APIParameterBuilder<(tags: [String], open: Bool, since: Date, author: String?)>? =
        .init { ["tag": $0.tags, "open": $0.open, "since": $0.since, "author": $0.author] }

    // A list built step by step: `append` may repeat a name.
    @GET("/get")
    static var pairs: APIParameterBuilder<[(String, String)]>? = .init { pairs in
        var parameters: Parameters = [:]
        for (name, value) in pairs { parameters.append(name, value) }
        return parameters
    }

    // Static headers on the endpoint, and a header builder that computes more from each call's parameter.
    @GET(
        "/headers",
        headers: ["Accept": "application/json", "X-Client": "courier-playground"],
        headerBuilder: { ["X-Trace-Id": $0] }
    )
    static var headers: APIParameterBuilder<String>? = nil

    // A GET cannot carry a body: asking for one is reported before anything is sent.
    @GET("/get", encoding: .json)
    static var getWithBody: APIParameterBuilder<String>? = .init { ["q": $0] }
}

struct Profile: Encodable, Sendable {
    var name: String
    var city: String
    var admin: Bool
}

@MainActor
enum ParametersPage {
    static func run(_ stage: Stage) async throws {
        Console.step("Path values are encoded as one segment each: \"/\" → %2F, space → %20, é → %C3%A9")
        // Without a result type the call returns the raw APIResponse, which carries the request that was sent.
        let file = try await Encodings.$file.request(with: (folder: "2024/Q1 reports", name: "Zoë & co"))
        let path = URLComponents(url: file.request.url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        Console.result("segments after /files: \(path.split(separator: "/").dropFirst(2).joined(separator: "  "))")

        Console.step("A value that would make a \"..\" segment is refused before anything is sent")
        do {
            let _: Echo = try await Encodings.$file.request(with: (folder: "..", name: "passwd"))
        } catch {
            Console.caught(error)
        }

        let profile = Profile(name: "Zoë", city: "São Paulo", admin: false)
        Console.step("The same model as a query string (GET's default)")
        let query: Echo = try await Encodings.$asQuery.request(with: profile)
        Console.result("args: \(query.argsText)")

        Console.step("… as a JSON body (POST's default)")
        let json: Echo = try await Encodings.$asJSON.request(with: profile)
        Console.result("data: \(json.data ?? "")")

        Console.step("… as a form body (`encoding: .form`)")
        let form: Echo = try await Encodings.$asForm.request(with: profile)
        Console.result("form: \(form.formText) (Content-Type \(form.header("Content-Type") ?? "?"))")

        let since = Date(timeIntervalSince1970: 1_714_979_289)
        Console.step("Arrays repeat their key, booleans are true/false, dates ISO 8601, nil is dropped")
        let filter: Echo = try await Encodings.$filter.request(
            with: (tags: ["bug", "ui"], open: true, since: since, author: nil))
        Console.result("args: \(filter.argsText)")

        Console.step("Options per endpoint (or per configuration): `.query(.init(arrays: .commaSeparated, …))`")
        let compact: Echo = try await Encodings.$filterCompact.request(
            with: (tags: ["bug", "ui"], open: true, since: since, author: "ann"))
        Console.result("args: \(compact.argsText)")
        Console.note("also: arrays .brackets (tag[]=a) / .indexed (tag[0]=a), nesting .brackets (a[b]=c) / .dotted")

        Console.step("Names may repeat, and reserved characters are escaped (RFC 3986)")
        let pairs: Echo = try await Encodings.$pairs.request(with: [("q", "a+b & c=d"), ("q", "100%"), ("lang", "日本")])
        Console.result("args: \(pairs.argsText)")

        Console.step("Static headers + a header builder: `Encodings.$headers.request(with: \"trace-42\")`")
        let headers: Echo = try await Encodings.$headers.request(with: "trace-42")
        let seen = ["Accept", "X-Client", "X-Trace-Id"].map { "\($0): \(headers.header($0) ?? "-")" }
        Console.result("received \(seen.joined(separator: ", "))")
        Console.note("`APIConfiguration.headers` adds headers to every call; endpoint headers replace same-named ones")

        Console.step("A body on a GET is refused before anything is sent")
        do {
            let _: Echo = try await Encodings.$getWithBody.request(with: "x")
        } catch {
            Console.caught(error)
        }
    }
}
