extension TrafficGovernor {
    /// When an origin's circuit breaker opens and for how long.
    ///
    /// The defaults open it when at least half of at least 20 calls over the last 10 s failed, keep it open 5 s,
    /// then let one probe through, and close it when that probe succeeds. A failure is a transport failure that
    /// says the origin is unwell (a timeout, a refused or lost connection) or a status of ``statusCodes``
    /// (429 and every 5xx).
    public struct CircuitBreaker: Sendable, Equatable {
        /// The share of failed calls in the window at which the breaker opens (0.5: half of them).
        public var failureRate: Double
        /// The fewest calls in the window before the rate counts.
        public var minimumCalls: Int
        /// The span of time over which calls are counted.
        public var window: Duration
        /// How long the breaker stays open before it lets a probe through.
        public var coolDown: Duration
        /// The probes that must succeed, one at a time, for the breaker to close.
        public var probes: Int
        /// The statuses that count as failures.
        public var statusCodes: Set<Int>
        /// The transport failures that count as failures; any other error (a cancelled call, a body too large)
        /// counts neither way.
        public var transportProblems: Set<APIError.TransportProblem>

        /// A breaker; every argument has the documented default.
        public init(
            failureRate: Double = 0.5,
            minimumCalls: Int = 20,
            window: Duration = .seconds(10),
            coolDown: Duration = .seconds(5),
            probes: Int = 1,
            statusCodes: Set<Int> = Set([429]).union(500...599),
            transportProblems: Set<APIError.TransportProblem> = [.timedOut, .cannotConnect, .connectionLost]
        ) {
            self.failureRate = failureRate
            self.minimumCalls = minimumCalls
            self.window = window
            self.coolDown = coolDown
            self.probes = probes
            self.statusCodes = statusCodes
            self.transportProblems = transportProblems
        }
    }

    /// How many retries an origin's calls may make together (Finagle's retry budget).
    ///
    /// Over the last `window`, retries may be `share` of the calls, or `minimumPerSecond` a second when that is
    /// more: with the defaults, 256 calls that all fail send at most 307 requests (256 + 20 %), not 768, and a
    /// quiet origin can still be retried 10 times in 10 s.
    public struct RetryBudget: Sendable, Equatable {
        /// Retries allowed per call in the window (0.2: one retry per five calls).
        public var share: Double
        /// Retries allowed a second however few the calls.
        public var minimumPerSecond: Double
        /// The span of time over which calls and retries are counted.
        public var window: Duration

        /// A budget; every argument has the documented default.
        public init(share: Double = 0.2, minimumPerSecond: Double = 1, window: Duration = .seconds(10)) {
            self.share = share
            self.minimumPerSecond = minimumPerSecond
            self.window = window
        }
    }

    /// How many calls may be in flight to an origin at once (a bulkhead), and how many may wait for a slot.
    ///
    /// By default up to 1,000 calls wait, each up to 10 s (and never past its own deadline); `maxWaiting: 0` refuses
    /// a call beyond `maxCalls` at once.
    public struct ConcurrencyLimit: Sendable, Equatable {
        /// The most calls in flight (at least 1).
        public var maxCalls: Int
        /// The most calls waiting for a slot, in the order they came; a call beyond them is refused at once.
        public var maxWaiting: Int
        /// The longest a call waits for a slot before it is refused; a call whose deadline comes sooner fails with
        /// ``APIError/TransportProblem/timedOut`` at its deadline.
        public var maxWait: Duration

        /// A limit of `maxCalls`, with `maxWaiting` calls waiting up to `maxWait` each.
        public init(maxCalls: Int, maxWaiting: Int = 1_000, maxWait: Duration = .seconds(10)) {
            self.maxCalls = maxCalls
            self.maxWaiting = maxWaiting
            self.maxWait = maxWait
        }
    }
}
