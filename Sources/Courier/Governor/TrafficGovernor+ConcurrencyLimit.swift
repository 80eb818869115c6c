extension TrafficGovernor {
    /// Takes one of the origin's slots, waiting in order for one within the limit's `maxWait` and the call's
    /// deadline; `false` when the governor has no limit. Throws `concurrencyLimit` when the queue is full or no slot
    /// came within `maxWait`, `timedOut` when the call's deadline came first, and `cancelled` when the task was
    /// cancelled while it waited.
    func acquireSlot(of origin: Origin, _ request: APIRequest) async throws(APIError) -> Bool {
        guard let concurrencyLimit else { return false }
        let left = request.timeLeft
        let wait = min(concurrencyLimit.maxWait, left ?? concurrencyLimit.maxWait)
        let id = withOrigin(origin) { state in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        // The wait's bound, stopped once the wait ends (a slot given before it started lets it run out harmlessly).
        let timer = LockedBox<Task<Void, Never>?>(nil)
        let gotSlot = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let decision = withOrigin(origin) { state -> ConcurrencyLimitMachine.Request in
                    guard !Task.isCancelled else { return .refuse }
                    let decision = state.limit?.requested(id) ?? .go
                    if decision == .wait { state.waiters[id] = continuation }
                    return decision
                }
                switch decision {
                case .go: continuation.resume(returning: true)
                case .refuse: continuation.resume(returning: false)
                case .wait:
                    request.recorder?.record(.governor, detail: "waiting for a slot to \(origin)")
                    timer.value = Task { [self] in
                        guard (try? await Task.sleep(for: wait)) != nil else { return }
                        endWait(id, of: origin)
                    }
                }
            }
        } onCancel: {
            endWait(id, of: origin)
        }
        let waitTimer = timer.value
        waitTimer?.cancel()
        if gotSlot { return true }
        if Task.isCancelled {
            throw APIError(.transport(.cancelled), endpoint: request.endpoint, request: request)
        }
        if waitTimer != nil, let left, left < concurrencyLimit.maxWait {
            request.recorder?.record(.governor, detail: "no slot to \(origin) before the deadline")
            throw request.deadlinePassed()
        }
        report(Event(.refused, at: origin, refusal: .concurrencyLimit), request)
        throw APIError(.governorRefused(.concurrencyLimit), endpoint: request.endpoint, request: request)
    }

    /// Gives the slot of an attempt that ended to the first waiting call, or frees it.
    func releaseSlot(of origin: Origin) {
        let resumed = withOrigin(origin) { state -> CheckedContinuation<Bool, Never>? in
            guard case .resume(let id) = state.limit?.released() else { return nil }
            return state.waiters.removeValue(forKey: id)
        }
        resumed?.resume(returning: true)
    }

    /// Ends the wait of call `id`: refused if it still waits; nothing if it has its slot already.
    private func endWait(_ id: Int, of origin: Origin) {
        let refused = withOrigin(origin) { state -> CheckedContinuation<Bool, Never>? in
            guard state.limit?.waitEnded(id) == .refuse else { return nil }
            return state.waiters.removeValue(forKey: id)
        }
        refused?.resume(returning: false)
    }
}
