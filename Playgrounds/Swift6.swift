// Swift 6: an endpoint declared as `@GET(...) static var` is a static *stored* variable (the wrapper's
// storage), and Swift 6 rejects unprotected global mutable state. Without an isolation the compiler says:
//
//     error: static property 'book' is not concurrency-safe because it is nonisolated global shared
//     mutable state
//
// Three settings make the same declarations compile:
//   1. Swift 6 mode + a global-actor namespace: `@MainActor enum Library { ... }` (this target, below);
//   2. a module with default MainActor isolation, the default of new Xcode app targets; in Package.swift
//        .target(name: "App", swiftSettings: [.defaultIsolation(MainActor.self)])
//      then a plain `enum Library { ... }` is MainActor-isolated without the attribute;
//   3. a module in Swift 5 mode: `swiftSettings: [.swiftLanguageMode(.v5)]`, plain `enum`, at most a warning
//      under complete concurrency checking.
// In all three the call sites are the same, and the endpoint value (`Library.$book`) is Sendable.
import Courier
import Foundation

@MainActor
enum Library {
    @GET("/anything/books/{isbn}")
    static var book: APIParameterBuilder<String>? = .init { ["isbn": $0] }
}

// For code that must stay nonisolated (a library target, say), an endpoint can also be a `static let` value,
// legal in every mode because `API` is Sendable. The call drops the `$`: `Catalog.book.request(with:)`.
enum Catalog {
    static let book = GET<String>(wrappedValue: .init { ["isbn": $0] }, "/anything/catalog/{isbn}")
}

@MainActor
enum Swift6Page {
    static func run(_ stage: Stage) async throws {
        Console.step("Setting 1, this target: `@MainActor enum Library`, called from the main actor")
        let here: Echo = try await Library.$book.request(with: "978-0-13-468599-1")
        Console.result("\(path(here)), called on the main actor")

        Console.step("From nonisolated code the call is the same; its `await` also covers reading the endpoint")
        let elsewhere = try await fetchOffTheMainActor(isbn: "978-1-59327-584-6")
        Console.result("\(path(elsewhere)), called from a nonisolated function")

        Console.step("Once in hand, the endpoint is a Sendable value: pass it to tasks that run in parallel")
        let endpoint = Library.$book  // no `await`: this page runs on the main actor
        let paths = try await withThrowingTaskGroup(of: String.self) { group in
            for isbn in ["1", "2", "3"] {
                group.addTask { path(try await endpoint.request(with: isbn)) }  // no main actor involved
            }
            var paths: [String] = []
            for try await path in group { paths.append(path) }
            return paths.sorted()
        }
        Console.result(paths.joined(separator: ", "))

        Console.step("Settings 2 and 3 compile the same book without `@MainActor`; only the module's settings change")
        Console.note("default isolation: .target(name: \"App\", swiftSettings: [.defaultIsolation(MainActor.self)])")
        Console.note("Swift 5 mode:      .target(name: \"Legacy\", swiftSettings: [.swiftLanguageMode(.v5)])")
        Console.note(
            "the calls above compile unchanged in both; see Tests/DefaultIsolationBookTests and Swift5BookTests")

        Console.step("A `static let` endpoint needs no isolation at all: `Catalog.book.request(with: \"42\")`")
        let fromLet: Echo = try await Catalog.book.request(with: "42")
        Console.result(path(fromLet))
    }

    /// Runs on the cooperative pool, not on the main actor.
    nonisolated static func fetchOffTheMainActor(isbn: String) async throws(APIError) -> Echo {
        try await Library.$book.request(with: isbn)
    }

    nonisolated static func path(_ echo: Echo) -> String {
        "server got \(echo.method ?? "?") \(echo.url.flatMap { URL(string: $0)?.path } ?? "?")"
    }
}
