// Services: larger apps put a small typed client in front of the address book, as layered API clients do.
// The client groups endpoints by resource (`client.users.get(id:)`), holds its own configuration, and turns
// APIError into the app's own errors. The endpoints stay declared once, in the book.
import Courier
import CourierTesting
import Foundation

@MainActor
enum BinRoutes {
    @GET("/anything/users/{id}")
    static var user: APIParameterBuilder<Int>? = .init { ["id": $0] }

    @POST("/anything/users")
    static var createUser: APIParameterBuilder<NewUser>? = .init { $0 }

    @GET("/anything/users")
    static var searchUsers: APIParameterBuilder<(name: String, limit: Int)>? = .init {
        ["name": $0.name, "limit": $0.limit]
    }

    @DELETE("/status/{code}")
    static var deleteNote: APIParameterBuilder<Int>? = .init { ["code": $0] }
}

struct NewUser: Codable, Sendable {
    var name: String
    var email: String
}

/// The app's view of a call to httpbin, which echoes requests instead of storing users: what the server got.
struct Receipt: Sendable, CustomStringConvertible {
    var method: String
    var path: String
    var query: String

    init(_ echo: Echo) {
        method = echo.method ?? "?"
        path = echo.url.flatMap { URL(string: $0)?.path } ?? "?"
        query = echo.argsText
    }

    var description: String { "server got \(method) \(path), query \(query)" }
}

/// A typed client over `BinRoutes`. Each service is a small struct; all of them share one configuration.
struct BinClient: Sendable {
    /// The app's errors: callers switch over these, not over HTTP details.
    enum Failure: Error, CustomStringConvertible {
        case notFound
        case signedOut
        case unavailable
        /// The server answered, but not with what the app needs.
        case malformed
        case unexpected(APIError)

        init(_ error: APIError) {
            switch error.reason {
            case .unacceptableStatus(.notFound): self = .notFound
            case .unacceptableStatus(.unauthorized): self = .signedOut
            case .unacceptableStatus(.serverError): self = .unavailable
            case _ where error.reason.transportProblem != nil: self = .unavailable
            default: self = .unexpected(error)
            }
        }

        var description: String {
            switch self {
            case .notFound: "BinClient.Failure.notFound"
            case .signedOut: "BinClient.Failure.signedOut"
            case .unavailable: "BinClient.Failure.unavailable"
            case .malformed: "BinClient.Failure.malformed"
            case .unexpected(let error): "BinClient.Failure.unexpected(\(error))"
            }
        }
    }

    let users: Users
    let notes: Notes

    /// `nil` uses `APIConfiguration.current`; pass one to point the client elsewhere (staging, a stub).
    init(configuration: APIConfiguration? = nil) {
        users = Users(configuration: configuration)
        notes = Notes(configuration: configuration)
    }

    // Each method hides one endpoint and turns APIError into the app's Failure.
    struct Users: Sendable {
        let configuration: APIConfiguration?

        func get(id: Int) async throws(Failure) -> Receipt {
            do {
                return Receipt(try await BinRoutes.$user.request(with: id, using: configuration))
            } catch {
                throw Failure(error)  // `error` is an APIError: Courier's calls use typed throws
            }
        }

        func search(name: String, limit: Int = 10) async throws(Failure) -> Receipt {
            do {
                return Receipt(try await BinRoutes.$searchUsers.request(with: (name, limit), using: configuration))
            } catch {
                throw Failure(error)
            }
        }

        func create(name: String, email: String) async throws(Failure) -> NewUser {
            let echo: JSONEcho<NewUser>
            do {
                echo = try await BinRoutes.$createUser.request(
                    with: NewUser(name: name, email: email), using: configuration)
            } catch {
                throw Failure(error)
            }
            guard let created = echo.json else { throw .malformed }
            return created
        }
    }

    struct Notes: Sendable {
        let configuration: APIConfiguration?

        /// httpbin answers `/status/{code}` with that code: 204 for success, 404 for a missing note.
        func delete(simulatingStatus code: Int) async throws(Failure) {
            do {
                try await BinRoutes.$deleteNote.request(with: code, using: configuration)
            } catch {
                throw Failure(error)
            }
        }
    }
}

@MainActor
enum ServicesPage {
    static func run(_ stage: Stage) async throws {
        let client = BinClient()

        Console.step("`let client = BinClient(); try await client.users.get(id: 42)`")
        Console.result("\(try await client.users.get(id: 42))")

        Console.step("`client.users.search(name: \"ann\", limit: 3)`")
        Console.result("\(try await client.users.search(name: "ann", limit: 3))")

        Console.step("`client.users.create(name:email:)` returns the app's model, decoded from the response")
        let created = try await client.users.create(name: "Ann", email: "ann@example.com")
        Console.result("NewUser(name: \(created.name), email: \(created.email))")

        Console.step("Errors arrive as the app's own: `client.notes.delete(…)` meets a 404")
        try await client.notes.delete(simulatingStatus: 204)
        Console.result("204: deleted")
        do {
            try await client.notes.delete(simulatingStatus: 404)
        } catch {
            Console.result("404: \(error)")  // `error` is BinClient.Failure: the methods use typed throws
        }

        Console.step("The whole client can point at a stub, e.g. for SwiftUI previews or tests")
        let canned = #"{"json": {"name": "Preview", "email": "preview@example.com"}}"#  // shaped like httpbin's echo
        let stub = StubExecutor().stub(BinRoutes.$createUser, with: .json(canned))
        let preview = LoggingExecutor(wrapping: stub, label: "stub")
        let previewClient = BinClient(configuration: APIConfiguration.default.with { $0.executor = preview })
        let fake = try await previewClient.users.create(name: "Ann", email: "ann@example.com")
        Console.result("NewUser(name: \(fake.name), email: \(fake.email))")
    }
}
