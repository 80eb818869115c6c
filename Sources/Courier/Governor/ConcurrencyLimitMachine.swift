/// The concurrency limit of one origin (a bulkhead): at most `limit` calls in flight, then at most `queue` calls
/// waiting in order for a slot; a call beyond both is refused at once.
///
/// A value changed only by events, each returning what to do; waiting calls are named by an identifier the
/// governor gives them. How long a call waits is the governor's (it ends the wait with ``waitEnded(_:)``).
struct ConcurrencyLimitMachine: Sendable, Equatable {
    /// What a call that asks for a slot does.
    enum Request: Sendable, Equatable {
        /// It has a slot: it goes.
        case go
        /// It waits, in order, until ``released()`` gives it the slot.
        case wait
        /// The limit and the queue are full: it is refused at once.
        case refuse
    }

    /// What a released slot does.
    enum Release: Sendable, Equatable {
        /// The waiting call `id` has the slot now: it goes.
        case resume(id: Int)
        /// Nobody waits: the slot is free.
        case free
    }

    /// What the end of a call's wait (its wait bound passed, or it was cancelled) does.
    enum WaitEnd: Sendable, Equatable {
        /// The call was still waiting: it leaves the queue and is refused.
        case refuse
        /// The call had been given a slot already: it holds it (and releases it if it no longer goes).
        case alreadyResumed
    }

    /// The most calls in flight.
    let limit: Int
    /// The most calls waiting.
    let queue: Int
    /// The calls in flight (those resumed from the queue included).
    private(set) var inFlight = 0
    /// The waiting calls, first first.
    private(set) var waiting: [Int] = []

    init(limit: Int, queue: Int = 0) {
        self.limit = Swift.max(1, limit)
        self.queue = Swift.max(0, queue)
    }

    /// The call `id` asks for a slot.
    mutating func requested(_ id: Int) -> Request {
        if inFlight < limit {
            inFlight += 1
            return .go
        }
        guard waiting.count < queue else { return .refuse }
        waiting.append(id)
        return .wait
    }

    /// A call in flight ended: its slot goes to the first waiting call, if any.
    mutating func released() -> Release {
        guard !waiting.isEmpty else {
            inFlight = Swift.max(0, inFlight - 1)
            return .free
        }
        return .resume(id: waiting.removeFirst())
    }

    /// The wait of call `id` ended, before it was given a slot or after.
    mutating func waitEnded(_ id: Int) -> WaitEnd {
        guard let index = waiting.firstIndex(of: id) else { return .alreadyResumed }
        waiting.remove(at: index)
        return .refuse
    }
}
