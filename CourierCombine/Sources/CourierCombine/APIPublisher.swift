import Courier
import Foundation

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// A publisher that makes one Courier call for each subscription and emits its result: exactly one value
/// followed by `.finished`, or one ``/Courier/APIError``.
///
/// Get one from an endpoint with `publisher(with:)` (or `publisher()` when the endpoint takes no parameter):
///
/// ```swift
/// @MainActor final class ProfileModel {
///     var name = ""
///     private var subscriptions: Set<AnyCancellable> = []
///
///     func load(login: String) {
///         GitHub.$user.publisher(with: login, as: User.self)
///             .receive(on: mainQueue)  // DispatchQueue.main; with OpenCombine, DispatchQueue.main.ocombine
///             .map(\.name)  // after receive(on:), so closures written here may run on the main actor
///             .replaceError(with: "unknown")
///             .sink { [weak self] name in self?.name = name }
///             .store(in: &subscriptions)
///     }
/// }
/// ```
///
/// - **Lazy.** Creating the publisher does nothing; the call starts when a subscriber attaches, and each
///   subscription makes a call of its own (like `Deferred`).
/// - **Cancellable.** Cancelling the subscription cancels the Swift task that runs the call, and with it the
///   network work; a cancelled subscription receives nothing more.
/// - **Demand.** The call starts at subscription, but its value is held until the subscriber has asked for
///   at least one; a failure is delivered at once, as completions need no demand.
/// - **No particular queue.** Values and completions arrive on whatever thread the call's task finished on
///   (or, when the value was held for demand, on the thread that asked for it). Use `receive(on:)` to move
///   them, for example to the main queue before touching UI.
/// - **Main-actor closures trap before `receive(on:)`.** A closure written in `@MainActor` code (a method of a
///   `@MainActor` type, a SwiftUI view, a module with main-actor default isolation) and given to an operator
///   such as `map`, `flatMap`, `filter` or `sink` is isolated to the main actor, and Swift 6 checks that when
///   it runs: if the value reaches it on another thread, the process traps (in `dispatch_assert_queue`,
///   called by `swift_task_isCurrentExecutor`). Put `receive(on:)` with the main queue before the first such
///   closure, or make the closures before it nonisolated: `{ @Sendable user in user.name }`, a `nonisolated`
///   function, or a key path.
/// - **Configuration.** The call's `using:` argument when given; otherwise `APIConfiguration.current` at
///   subscription, so a task-scoped configuration (`APIConfiguration.withCurrent`, a stub's `activate`) in
///   effect where the subscriber attaches applies, as it would to `request(with:)` called there.
public struct APIPublisher<Output: Sendable>: Publisher, Sendable {
    /// The call's error: always an ``/Courier/APIError``.
    public typealias Failure = APIError

    /// Makes the call; run once per subscription, in a task of its own.
    private let call: @Sendable () async throws(APIError) -> Output

    /// A publisher that runs `call` for each subscriber and emits what it returns or throws.
    ///
    /// The endpoints' `publisher(with:)` methods are the usual way to get one; this initializer wraps any
    /// other async Courier call, for example one that first awaits a token:
    ///
    /// ```swift
    /// let profile = APIPublisher<User> { () async throws(APIError) in
    ///     try await GitHub.$user.request(with: "octocat")
    /// }
    /// ```
    ///
    /// Write the closure's `throws(APIError)`: without it, Swift infers `throws(any Error)` for the closure
    /// and rejects it.
    public init(_ call: @escaping @Sendable () async throws(APIError) -> Output) {
        self.call = call
    }

    /// Attaches `subscriber` and starts a new call for it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == APIError {
        let subscription = CallSubscription(subscriber: AnySubscriber(subscriber))
        subscriber.receive(subscription: subscription)
        subscription.start(call)
    }
}

// MARK: - Endpoints

extension API where Parameter: Sendable {
    /// A publisher that calls the endpoint with `parameter` for each subscriber and emits the response decoded
    /// as `Output`, the type the subscriber asks for: a `Decodable` model (JSON by default), `Data`, `String`
    /// or an optional (`nil` for an empty body), as in `request(with:)`.
    ///
    /// ```swift
    /// let user = GitHub.$user.publisher(with: "octocat", as: User.self)  // APIPublisher<User>
    /// let raw: APIPublisher<Data> = GitHub.$user.publisher(with: "octocat")
    /// ```
    ///
    /// Nothing happens until a subscriber attaches; see ``APIPublisher`` for the semantics.
    /// - Parameters:
    ///   - parameter: The call's parameter.
    ///   - type: The type to decode; inferred from the context when omitted.
    ///   - configuration: The configuration for every call; `nil` for `APIConfiguration.current` at
    ///     subscription.
    ///   - decoder: Decodes the body; `nil` for the endpoint's decoder, else the configuration's `responseDecoder`.
    public func publisher<Output: Decodable & Sendable>(
        with parameter: Parameter,
        as type: Output.Type = Output.self,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) -> APIPublisher<Output> {
        APIPublisher { () async throws(APIError) -> Output in
            try await self.request(with: parameter, using: configuration, decoder: decoder)
        }
    }

    /// A publisher that calls the endpoint with `parameter` for each subscriber and emits the decoded value
    /// together with the response's status and headers, as `request(with:)` does when it returns a
    /// ``/Courier/DecodedResponse``:
    ///
    /// ```swift
    /// let page = GitHub.$repos.publisher(with: "apple", as: DecodedResponse<[Repo]>.self)
    /// let pages: APIPublisher<DecodedResponse<[Repo]>> = GitHub.$repos.publisher(with: "apple")
    /// ```
    /// - Parameters:
    ///   - parameter: The call's parameter.
    ///   - type: The `DecodedResponse` to produce; inferred from the context when omitted.
    ///   - configuration: The configuration for every call; `nil` for `APIConfiguration.current` at
    ///     subscription.
    ///   - decoder: Decodes the body; `nil` for the endpoint's decoder, else the configuration's `responseDecoder`.
    public func publisher<Value: Decodable & Sendable>(
        with parameter: Parameter,
        as type: DecodedResponse<Value>.Type = DecodedResponse<Value>.self,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) -> APIPublisher<DecodedResponse<Value>> {
        APIPublisher { () async throws(APIError) -> DecodedResponse<Value> in
            try await self.request(with: parameter, using: configuration, decoder: decoder)
        }
    }

    /// A publisher that calls the endpoint with `parameter` for each subscriber and emits the raw response:
    /// status, headers, body and the request that produced it. The status is validated as in every call form.
    ///
    /// This is the form chosen when nothing asks for another type:
    /// `GitHub.$user.publisher(with: "octocat")` is an `APIPublisher<APIResponse>`.
    /// - Parameters:
    ///   - parameter: The call's parameter.
    ///   - type: `APIResponse.self`; it may be omitted.
    ///   - configuration: The configuration for every call; `nil` for `APIConfiguration.current` at
    ///     subscription.
    public func publisher(
        with parameter: Parameter,
        as type: APIResponse.Type = APIResponse.self,
        using configuration: APIConfiguration? = nil
    ) -> APIPublisher<APIResponse> {
        APIPublisher { () async throws(APIError) -> APIResponse in
            try await self.request(with: parameter, using: configuration)
        }
    }
}

extension API where Parameter == Void {
    /// A publisher that calls the endpoint for each subscriber and emits the response decoded as `Output`,
    /// the type the subscriber asks for, as `publisher(with:as:using:decoder:)` does.
    /// - Parameters:
    ///   - type: The type to decode; inferred from the context when omitted.
    ///   - configuration: The configuration for every call; `nil` for `APIConfiguration.current` at
    ///     subscription.
    ///   - decoder: Decodes the body; `nil` for the endpoint's decoder, else the configuration's `responseDecoder`.
    public func publisher<Output: Decodable & Sendable>(
        as type: Output.Type = Output.self,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) -> APIPublisher<Output> {
        publisher(with: (), as: type, using: configuration, decoder: decoder)
    }

    /// A publisher that calls the endpoint for each subscriber and emits the decoded value with the response's
    /// status and headers, as `publisher(with:as:using:decoder:)` does for a ``/Courier/DecodedResponse``.
    /// - Parameters:
    ///   - type: The `DecodedResponse` to produce; inferred from the context when omitted.
    ///   - configuration: The configuration for every call; `nil` for `APIConfiguration.current` at
    ///     subscription.
    ///   - decoder: Decodes the body; `nil` for the endpoint's decoder, else the configuration's `responseDecoder`.
    public func publisher<Value: Decodable & Sendable>(
        as type: DecodedResponse<Value>.Type = DecodedResponse<Value>.self,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) -> APIPublisher<DecodedResponse<Value>> {
        publisher(with: (), as: type, using: configuration, decoder: decoder)
    }

    /// A publisher that calls the endpoint for each subscriber and emits the raw response; the form chosen
    /// when nothing asks for another type.
    /// - Parameters:
    ///   - type: `APIResponse.self`; it may be omitted.
    ///   - configuration: The configuration for every call; `nil` for `APIConfiguration.current` at
    ///     subscription.
    public func publisher(
        as type: APIResponse.Type = APIResponse.self,
        using configuration: APIConfiguration? = nil
    ) -> APIPublisher<APIResponse> {
        publisher(with: (), as: type, using: configuration)
    }
}

// MARK: - Subscription

/// One subscriber's call. Every state change happens under the lock of ``State``; the subscriber is only
/// ever called by whoever took it out of the state, so it never receives two calls at once.
private final class CallSubscription<Output: Sendable>: Subscription, Sendable {
    private let state: State<Output>

    /// The subscriber is type-erased so that the call's task captures no metatype but `Output`'s.
    init(subscriber: AnySubscriber<Output, APIError>) {
        state = State(subscriber: subscriber)
    }

    /// Starts the call in a new task, unless the subscriber already cancelled. The task inherits the
    /// subscribing task's task-local values (among them the current configuration) and priority.
    func start(_ call: @escaping @Sendable () async throws(APIError) -> Output) {
        let state = self.state
        state.startTask {
            Task {
                let result: Result<Output, APIError>
                do throws(APIError) {
                    result = .success(try await call())
                } catch {
                    result = .failure(error)
                }
                state.finish(with: result)
            }
        }
    }

    func request(_ demand: Subscribers.Demand) {
        state.add(demand)
    }

    func cancel() {
        state.cancel()
    }
}

/// What one subscription knows: its subscriber (until it terminates), the demand so far, a value waiting
/// for demand, and the task that runs the call.
// @unchecked Sendable: every stored property is read and written only while `lock` is held.
private final class State<Output: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    /// `nil` once the subscription finished, failed or was cancelled.
    private var subscriber: AnySubscriber<Output, APIError>?
    private var demand = Subscribers.Demand.none
    /// The call's value, when it arrived before any demand.
    private var pending: Output?
    private var task: Task<Void, Never>?

    init(subscriber: AnySubscriber<Output, APIError>) {
        self.subscriber = subscriber
    }

    /// Stores the task that `makeTask` creates, unless the subscription already ended; under the lock, so a
    /// concurrent `cancel()` either comes first (no task) or finds the task to cancel.
    func startTask(_ makeTask: () -> Task<Void, Never>) {
        lock.withLock {
            guard subscriber != nil, task == nil else { return }
            task = makeTask()
        }
    }

    /// Called by the task with the call's outcome: delivers it now, or keeps a value until there is demand.
    func finish(with result: Result<Output, APIError>) {
        lock.lock()
        guard let subscriber else {
            lock.unlock()
            return
        }
        task = nil
        switch result {
        case .failure(let error):
            self.subscriber = nil
            lock.unlock()
            subscriber.receive(completion: .failure(error))
        case .success(let value):
            guard demand > .none else {
                pending = value
                lock.unlock()
                return
            }
            self.subscriber = nil
            lock.unlock()
            Self.deliver(value, to: subscriber)
        }
    }

    /// Adds the subscriber's demand, and delivers a value that was waiting for it.
    func add(_ newDemand: Subscribers.Demand) {
        lock.lock()
        guard let subscriber, newDemand > .none else {
            lock.unlock()
            return
        }
        demand += newDemand
        guard let value = pending else {
            lock.unlock()
            return
        }
        pending = nil
        self.subscriber = nil
        lock.unlock()
        Self.deliver(value, to: subscriber)
    }

    /// Forgets the subscriber and a waiting value, and cancels the call's task.
    func cancel() {
        let task = lock.withLock {
            let task = self.task
            self.task = nil
            subscriber = nil
            pending = nil
            return task
        }
        task?.cancel()
    }

    /// The one value and the end of the stream; the demand the subscriber returns is moot after one value.
    private static func deliver(_ value: Output, to subscriber: AnySubscriber<Output, APIError>) {
        _ = subscriber.receive(value)
        subscriber.receive(completion: .finished)
    }
}
