/// Lets identical requests in flight at once share one network call.
///
/// The first caller for a key starts the call in a task of its own; later callers for the same key wait for
/// its result. A waiter whose task is cancelled leaves at once with a cancellation error while the others keep
/// waiting; when the last waiter leaves, the call is cancelled.
final class InFlightCalls: Sendable {
    private typealias Waiter = CheckedContinuation<APIResponse, any Error>

    private struct Call {
        let generation: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter]
    }

    private struct State {
        var calls: [CacheKey: Call] = [:]
        var counter: UInt64 = 0
    }

    private let state = LockedBox(State())

    /// The number of calls in flight, for tests.
    var count: Int { state.withLock { $0.calls.count } }

    /// Runs `operation` once for every caller with the same `key` that arrives while it runs; `joined` is called when
    /// this caller waits for a call already running.
    func run(
        key: CacheKey, joined: () -> Void = {}, _ operation: @escaping @Sendable () async throws -> APIResponse
    ) async throws -> APIResponse {
        let id = state.withLock { state in
            state.counter += 1
            return state.counter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let generation: UInt64? = state.withLock { state in
                    if state.calls[key] != nil {
                        state.calls[key]?.waiters[id] = continuation
                        return nil
                    }
                    state.calls[key] = Call(generation: id, task: nil, waiters: [id: continuation])
                    return id
                }
                if let generation { start(key: key, generation: generation, operation) } else { joined() }
                // Cancelled before the waiter was registered: the handler found nothing to remove.
                if Task.isCancelled { leave(key: key, id: id) }
            }
        } onCancel: {
            leave(key: key, id: id)
        }
    }

    private func start(
        key: CacheKey, generation: UInt64, _ operation: @escaping @Sendable () async throws -> APIResponse
    ) {
        let task = Task {
            let result: Result<APIResponse, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            let waiters = state.withLock { state -> [UInt64: Waiter] in
                guard state.calls[key]?.generation == generation else { return [:] }
                return state.calls.removeValue(forKey: key)?.waiters ?? [:]
            }
            for waiter in waiters.values { waiter.resume(with: result) }
        }
        let abandoned = state.withLock { state -> Bool in
            guard state.calls[key]?.generation == generation else { return true }
            state.calls[key]?.task = task
            return false
        }
        // Every waiter left (or the call already finished) before the task was recorded.
        if abandoned { task.cancel() }
    }

    /// Removes waiter `id`: it resumes with a cancellation error; the call is cancelled if it was the last.
    private func leave(key: CacheKey, id: UInt64) {
        let (waiter, task) = state.withLock { state -> (Waiter?, Task<Void, Never>?) in
            guard var call = state.calls[key], let waiter = call.waiters.removeValue(forKey: id) else {
                return (nil, nil)
            }
            if call.waiters.isEmpty {
                state.calls.removeValue(forKey: key)
                return (waiter, call.task)
            }
            state.calls[key] = call
            return (waiter, nil)
        }
        waiter?.resume(throwing: CancellationError())
        task?.cancel()
    }
}
