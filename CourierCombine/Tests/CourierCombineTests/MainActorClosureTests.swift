import Courier
import CourierCombine
import Foundation
import Testing

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// Closures written in `@MainActor` code and handed to Combine operators: which ones trap when the value
/// arrives off the main actor (as a publisher's value does), and the patterns the documentation gives instead.
///
/// Each case runs in a child process (an exit test), so that a trap fails one test instead of the whole run.
@Suite struct MainActorClosureTests {
    @Test(
        "A closure written in @MainActor code and run before receive(on:) traps",
        arguments: [GreetingModel.Pattern.mapBeforeReceive, .flatMapBeforeReceive, .sinkWithoutReceive]
    )
    func traps(pattern: GreetingModel.Pattern) async {
        let result = await #expect(processExitsWith: .failure) { [pattern] in
            // Past this line only when nothing trapped: the child then exits normally, which fails the test.
            _ = await GreetingModel.greetings(loading: pattern)
        }
        // A trap is a signal (SIGILL or SIGTRAP, by architecture), not an exit code.
        if case .signal = result?.exitStatus {
        } else {
            Issue.record("expected a trap, got \(String(describing: result?.exitStatus))")
        }
    }

    @Test(
        "receive(on:) first, @Sendable closures, a nonisolated function or a key path: no trap, the value arrives",
        arguments: [
            GreetingModel.Pattern.receiveFirst, .sendableClosure, .sendableFlatMap, .nonisolatedFunction, .keyPath,
        ]
    )
    func safe(pattern: GreetingModel.Pattern) async {
        await #expect(processExitsWith: .success) { [pattern] in
            let greetings = await GreetingModel.greetings(loading: pattern)
            if greetings != ["Hello, User 7"] { exit(EXIT_FAILURE) }
        }
    }
}

/// A main-actor model, as in an app, that loads a greeting through a publisher in one of several ways.
@MainActor final class GreetingModel {
    /// A way to write the subscription.
    enum Pattern: String, Codable, Sendable, CustomTestStringConvertible {
        /// `map { … }` with a closure written here, then `receive(on:)`: traps.
        case mapBeforeReceive
        /// `flatMap { … }` with a closure written here, reading a main-actor endpoint: traps.
        case flatMapBeforeReceive
        /// `sink { … }` with a closure written here, without `receive(on:)`: traps.
        case sinkWithoutReceive
        /// `receive(on:)` first, then closures written here.
        case receiveFirst
        /// `@Sendable` closures before `receive(on:)`.
        case sendableClosure
        /// `flatMap` into a second call with a `@Sendable` closure, the endpoint read before.
        case sendableFlatMap
        /// A `nonisolated` function before `receive(on:)`.
        case nonisolatedFunction
        /// A key path before `receive(on:)`.
        case keyPath

        var testDescription: String { rawValue }
    }

    private(set) var greetings: [String] = []
    private var subscriptions: Set<AnyCancellable> = []
    /// Main-actor state that the closures read.
    let salutation = "Hello, "

    /// A greeting, from a function that is not isolated to the main actor.
    nonisolated static func greeting(for user: User) -> String { "Hello, " + user.name }

    /// Loads user 7 from a stub with `pattern`, and returns the greetings received within 10 s.
    static func greetings(loading pattern: Pattern) async -> [String] {
        let world = StubWorld()
        let model = GreetingModel()
        model.load(Book.$user.publisher(with: 7, as: User.self, using: world.configuration), pattern, world)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while model.greetings.isEmpty, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return model.greetings
    }

    private func load(_ user: APIPublisher<User>, _ pattern: Pattern, _ world: StubWorld) {
        let configuration = world.configuration
        let greetings: AnyPublisher<String, APIError>
        switch pattern {
        case .mapBeforeReceive:
            greetings = user.map { self.salutation + $0.name }.receive(on: mainQueue).eraseToAnyPublisher()
        case .flatMapBeforeReceive:
            greetings = user.flatMap { Book.$user.publisher(with: $0.id, as: User.self, using: configuration) }
                .map { @Sendable in "Hello, " + $0.name }
                .receive(on: mainQueue).eraseToAnyPublisher()
        case .sinkWithoutReceive:
            user.sink(receiveCompletion: { _ in }, receiveValue: { self.greetings.append(self.salutation + $0.name) })
                .store(in: &subscriptions)
            return
        case .receiveFirst:
            greetings = user.receive(on: mainQueue).map { self.salutation + $0.name }.eraseToAnyPublisher()
        case .sendableClosure:
            greetings = user.map { @Sendable user in "Hello, " + user.name }.receive(on: mainQueue)
                .eraseToAnyPublisher()
        case .sendableFlatMap:
            let endpoint = Book.$user
            greetings = user.flatMap { @Sendable user in
                endpoint.publisher(with: user.id, as: User.self, using: configuration)
            }
            .map { @Sendable user in "Hello, " + user.name }
            .receive(on: mainQueue).eraseToAnyPublisher()
        case .nonisolatedFunction:
            greetings = user.map(Self.greeting(for:)).receive(on: mainQueue).eraseToAnyPublisher()
        case .keyPath:
            greetings = user.map(\.name).map { @Sendable in "Hello, " + $0 }.receive(on: mainQueue)
                .eraseToAnyPublisher()
        }
        greetings.replaceError(with: "failed")
            .sink { [weak self] greeting in self?.greetings.append(greeting) }
            .store(in: &subscriptions)
    }
}
