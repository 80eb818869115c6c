// Cassettes: CourierTesting's Cassette records real traffic once into a HAR file, every secret masked, and
// replays it offline: tests run without the service, without credentials, in CI.
import Courier
import CourierTesting
import Foundation

/// A login that sends a password in its JSON body, to httpbin's `/anything`, which echoes it. (The page also calls
/// `Bin.$search` of the Basics page.)
@MainActor
enum Accounts {
    @POST("/anything/login")
    static var login: APIParameterBuilder<(user: String, password: String)>? = .init {
        ["user": $0.user, "password": $0.password]
    }
}

/// The query items httpbin echoes.
struct Echoed: Decodable, Sendable {
    var args: [String: String]
}

@MainActor
enum CassettesPage {
    static func run(_ stage: Stage) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cassettes-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("search.har")
        // The credentials a real service would need: a bearer token, an API key in the query, a cookie.
        var live = stage.configuration
        live.plugins = [AuthPlugin.bearer("secret-token-1"), AuthPlugin.apiKey("secret-key-2", queryItem: "api_key")]
        live.headers = ["Cookie": "session=secret-cookie-3"]

        let ada = (user: "ada", password: "secret-password-4")

        Console.step("Record once: Cassette(file) in mode .once sends the calls and writes what came back")
        let cassette = Cassette(file, recordingWith: LoggingExecutor(wrapping: stage.transport), recordsInCI: true)
        let recorded: Echoed = try await cassette.activate(in: live) {
            let _: Data = try await Accounts.$login.request(with: ada)
            return try await Bin.$search.request(with: (query: "tea", page: 2))
        }
        Console.result("page \(recorded.args["page"] ?? "?"), api_key echoed as \(recorded.args["api_key"] ?? "-")")

        Console.step("Check the cassette for secrets: the file holds none of the four credentials")
        let text = try String(contentsOf: file, encoding: .utf8)
        let leaked = ["secret-token-1", "secret-key-2", "secret-cookie-3", "secret-password-4"].filter(text.contains)
        let verdict = leaked.isEmpty ? "no secret in them" : "LEAKED: \(leaked)"
        Console.result("\(text.utf8.count) bytes of HAR 1.2, \(verdict)")
        let masked = text.split(separator: "\n").filter { $0.contains("***") }.prefix(3)
        for line in masked { Console.note(line.trimmingCharacters(in: .whitespaces)) }

        Console.step("Replay offline: mode .none, a base URL that resolves nowhere, no call leaves the process")
        var offline = live
        offline.baseURL = URL(string: "http://offline.invalid")
        let replay = Cassette(file, mode: .none)
        let replayed: Echoed = try await replay.activate(in: offline) {
            let _: Data = try await Accounts.$login.request(with: ada)
            return try await Bin.$search.request(with: (query: "tea", page: 2))
        }
        let key = replayed.args["api_key"] ?? "-"
        Console.result("page \(replayed.args["page"] ?? "?"), api_key \(key) (masked in the file)")

        Console.step("A request the cassette has no answer for fails, naming the closest one and the difference")
        do {
            let _: Echoed = try await replay.activate(in: offline) {
                try await Bin.$search.request(with: (query: "tea", page: 3))
            }
        } catch let error as APIError {
            Console.caught(error)
            if let problem = error.underlyingError as? Cassette.Problem {
                Console.note("difference: \(problem.difference ?? "-")")
            }
        }
    }
}
