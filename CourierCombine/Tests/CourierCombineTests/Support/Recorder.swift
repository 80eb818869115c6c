import Courier
import Foundation

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// A subscriber that records what it receives, asks for `initialDemand` when it subscribes, and lets a test
/// ask for more or cancel later. Safe to use from any thread.
final class Recorder<Input: Sendable>: Subscriber, Sendable {
    typealias Failure = APIError

    /// One thing the subscriber received, in order.
    enum Event: Sendable {
        case value(Input)
        case finished
        case failure(APIError)

        var name: String {
            switch self {
            case .value: "value"
            case .finished: "finished"
            case .failure: "failure"
            }
        }
    }

    private let initialDemand: Subscribers.Demand
    private let lock = NSLock()
    // nonisolated(unsafe): every access goes through `lock`.
    nonisolated(unsafe) private var subscription: (any Subscription)?
    // nonisolated(unsafe): every access goes through `lock`.
    nonisolated(unsafe) private var recorded: [Event] = []
    // nonisolated(unsafe): every access goes through `lock`.
    nonisolated(unsafe) private var subscriptions = 0

    init(demand: Subscribers.Demand = .unlimited) {
        self.initialDemand = demand
    }

    func receive(subscription: any Subscription) {
        lock.withLock {
            self.subscription = subscription
            subscriptions += 1
        }
        if initialDemand > .none { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        lock.withLock { recorded.append(.value(input)) }
        return .none
    }

    func receive(completion: Subscribers.Completion<APIError>) {
        lock.withLock {
            switch completion {
            case .finished: recorded.append(.finished)
            case .failure(let error): recorded.append(.failure(error))
            }
        }
    }

    // MARK: - Driving it

    /// Asks the subscription for `demand` more values.
    func request(_ demand: Subscribers.Demand) {
        lock.withLock { subscription }?.request(demand)
    }

    /// Cancels the subscription.
    func cancel() {
        lock.withLock { subscription }?.cancel()
    }

    // MARK: - Reading it

    /// Everything received so far.
    var events: [Event] { lock.withLock { recorded } }
    /// The names of the events so far, for example `["value", "finished"]`.
    var eventNames: [String] { events.map(\.name) }
    /// The values received so far.
    var values: [Input] {
        events.compactMap {
            if case .value(let value) = $0 { return value }
            return nil
        }
    }
    /// The error of a failure completion, if one was received.
    var failure: APIError? {
        events.lazy.compactMap {
            if case .failure(let error) = $0 { return error }
            return nil
        }.first
    }
    /// How many times `receive(subscription:)` was called.
    var subscriptionCount: Int { lock.withLock { subscriptions } }

    /// Waits until a completion arrives or `timeout` passes, then returns the events.
    @discardableResult
    func waitForCompletion(timeout: Duration = .seconds(10)) async -> [Event] {
        await waitUntil(timeout: timeout) {
            self.events.contains { if case .value = $0 { false } else { true } }
        }
        return events
    }
}

/// Polls `condition` every 5 ms until it holds or `timeout` passes; returns whether it held.
@discardableResult
func waitUntil(timeout: Duration = .seconds(10), _ condition: @Sendable () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
