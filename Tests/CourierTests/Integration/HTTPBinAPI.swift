import Courier
import Foundation

/// The httpbin endpoints the integration tests call, declared the way users declare theirs.
@MainActor
enum HTTPBinAPI {
    // MARK: Query echo

    @GET("/get")
    static var get: APIParameterBuilder<(a: String, b: Int)>? = .init { ["a": $0.a, "b": $0.b] }

    /// Sends the pairs in order as the query string; a name may repeat.
    @GET("/anything")
    static var anything: APIParameterBuilder<[QueryPair]>? = .init { pairs in
        var parameters: Parameters = [:]
        for pair in pairs { parameters.append(pair.name, pair.value) }
        return parameters
    }

    @GET("/get")
    static var tags: APIParameterBuilder<[String]>? = .init { ["tag": $0] }

    // MARK: Bodies

    @POST("/post")
    static var post: APIParameterBuilder<HTTPBinPayload>? = .init { $0 }

    @PUT("/put")
    static var put: APIParameterBuilder<HTTPBinPayload>? = .init { $0 }

    @PATCH("/patch")
    static var patch: APIParameterBuilder<HTTPBinPayload>? = .init { $0 }

    /// DELETE puts parameters in the query by default; this one asks for a JSON body.
    @DELETE("/delete", encoding: .json)
    static var delete: APIParameterBuilder<HTTPBinPayload>? = .init { $0 }

    @DELETE("/delete")
    static var deleteWithQuery: APIParameterBuilder<String>? = .init { ["id": $0] }

    @POST("/post", encoding: .form)
    static var form: APIParameterBuilder<[QueryPair]>? = .init { pairs in
        var parameters: Parameters = [:]
        for pair in pairs { parameters.append(pair.name, pair.value) }
        return parameters
    }

    // MARK: Headers

    /// httpbin leaves proxy headers such as `X-Request-Id` and `X-Forwarded-For` out of its echo, so the
    /// builder sets `X-Trace-Id`.
    @GET(
        "/headers",
        headers: ["X-Static": "from-endpoint", "X-Shadowed": "from-endpoint"],
        headerBuilder: { ["X-Trace-Id": $0, "X-Shadowed": "from-builder"] }
    )
    static var headers: APIParameterBuilder<String>?

    @GET("/response-headers")
    static var responseHeaders: APIParameterBuilder<[QueryPair]>? = .init { pairs in
        var parameters: Parameters = [:]
        for pair in pairs { parameters.append(pair.name, pair.value) }
        return parameters
    }

    // MARK: Paths and statuses

    @GET("/anything/{a}/{b}")
    static var path: APIParameterBuilder<(a: String, b: String)>? = .init { ["a": $0.a, "b": $0.b] }

    @GET("/status/{code}")
    static var status: APIParameterBuilder<Int>? = .init { ["code": $0] }

    /// `/get` answers 200, which this endpoint does not accept.
    @GET("/get", acceptableStatusCodes: [201])
    static var getExpecting201: APIParameterBuilder<Void>?

    /// Answers 401 with `WWW-Authenticate: Basic realm="Fake Realm"` unless the credentials match.
    @GET("/basic-auth/{user}/{password}")
    static var basicAuth: APIParameterBuilder<(user: String, password: String)>? = .init {
        ["user": $0.user, "password": $0.password]
    }

    @HEAD("/get")
    static var head: APIParameterBuilder<Void>?

    // MARK: Response forms

    @GET("/encoding/utf8")
    static var utf8: APIParameterBuilder<Void>?

    @GET("/bytes/{n}")
    static var bytes: APIParameterBuilder<Int>? = .init { ["n": $0] }

    @GET("/redirect/{n}")
    static var redirect: APIParameterBuilder<Int>? = .init { ["n": $0] }

    @GET("/html")
    static var html: APIParameterBuilder<Void>?

    // MARK: Timing

    @GET("/delay/{seconds}")
    static var delay: APIParameterBuilder<Int>? = .init { ["seconds": $0] }

    @GET("/delay/{seconds}", timeout: .seconds(1))
    static var delayWithOneSecondTimeout: APIParameterBuilder<Int>? = .init { ["seconds": $0] }

    @GET("/delay/{seconds}", timeout: .milliseconds(500))
    static var delayWithHalfSecondTimeout: APIParameterBuilder<Int>? = .init { ["seconds": $0] }

    @GET("/delay/{seconds}", timeout: .seconds(8))
    static var delayWithEightSecondTimeout: APIParameterBuilder<Int>? = .init { ["seconds": $0] }
}

/// One `name=value` pair of a query string or form body.
struct QueryPair: Sendable, Hashable {
    var name: String
    var value: String

    init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A JSON body with a few kinds of value, sent to httpbin and echoed back in its `json` field.
struct HTTPBinPayload: Codable, Sendable, Equatable {
    struct Nested: Codable, Sendable, Equatable {
        var flag: Bool
        var ratio: Double
    }

    var name: String
    var count: Int
    var tags: [String]
    var nested: Nested
    var note: String?

    static let sample = HTTPBinPayload(
        name: "Zoë & \"co\" / 東京 🚀",
        count: 3,
        tags: ["a b", "c+d", "é"],
        nested: Nested(flag: true, ratio: 0.25),
        note: nil
    )
}

/// A query argument as httpbin echoes it: one string, or a list when the name repeats.
enum HTTPBinArgument: Decodable, Sendable, Equatable {
    case one(String)
    case many([String])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let list = try? container.decode([String].self) {
            self = .many(list)
        } else {
            self = .one(try container.decode(String.self))
        }
    }
}

/// What httpbin echoes about a request (`/get`, `/anything`, `/post`, `/headers`, ...). Fields that an
/// endpoint does not return are `nil`.
struct HTTPBinEcho: Decodable, Sendable {
    var args: [String: HTTPBinArgument]?
    var form: [String: HTTPBinArgument]?
    var headers: [String: String]
    var url: String?
    var method: String?
    var data: String?

    /// The value of the header `name` that httpbin received, ignoring case.
    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// httpbin's echo of a request with a JSON body, decoded into the type that was sent.
struct HTTPBinJSONEcho<Body: Decodable & Sendable>: Decodable, Sendable {
    var json: Body?
    var data: String
    var headers: [String: String]
    var url: String

    /// The value of the header `name` that httpbin received, ignoring case.
    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}
