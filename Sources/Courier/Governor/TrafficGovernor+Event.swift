extension TrafficGovernor {
    /// Something a governor did at an origin: a change of its circuit breaker, a refusal, a retry its budget did not
    /// allow, or a pause asked by a `Retry-After`.
    ///
    /// The governor hands each one to its `onEvent` handler (for metrics, logs and alerts: CourierObservability's
    /// `GovernorMetrics` records them) and to the timeline of the call it happened in, as a
    /// ``CallTimeline/Event/Kind/governor`` event whose detail is this event's ``description``.
    ///
    /// ```swift
    /// let upstream = TrafficGovernor(onEvent: { event in
    ///     if event.kind == .circuitOpened { logger.warning("\(event)") }
    /// })
    /// ```
    public struct Event: Sendable, Hashable, CustomStringConvertible {
        /// What happened.
        public let kind: Kind
        /// The origin's scheme, lowercased: `https`.
        public let scheme: String
        /// The origin's host, lowercased: `api.example.com`.
        public let host: String
        /// The origin's port, the scheme's default when the URL gave none; `nil` for a scheme without one.
        public let port: Int?
        /// Why a call was refused, for a ``Kind/refused`` event; `nil` for any other.
        public let refusal: GovernorRefusal?
        /// How long the origin is paused, for a ``Kind/paused`` event; how long the breaker stays open, for a
        /// ``Kind/refused`` event of an open breaker (its cool-down, for a half-open one whose probe is in flight);
        /// `nil` otherwise.
        public let delay: Duration?

        init(_ kind: Kind, at origin: Origin, refusal: GovernorRefusal? = nil, delay: Duration? = nil) {
            self.kind = kind
            self.scheme = origin.scheme
            self.host = origin.host
            self.port = origin.port
            self.refusal = refusal
            self.delay = delay
        }

        /// `scheme://host:port`.
        public var origin: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") }

        /// One English line: `circuit opened for https://api.example.com:443`.
        public var description: String {
            switch kind.kind {
            case .circuitOpened: "circuit opened for \(origin)"
            case .circuitHalfOpened: "circuit half-open for \(origin)"
            case .circuitClosed: "circuit closed for \(origin)"
            case .refused: "refused at \(origin): \(refusal.map { "\($0)" } ?? "refused")"
            case .retryRefused: "retry refused at \(origin): the origin's retry budget is spent"
            case .paused:
                "\(origin) paused by Retry-After" + (delay.map { " for \($0)" } ?? "")
            }
        }
    }
}

extension TrafficGovernor.Event {
    /// The kind of a governor's event.
    ///
    /// A struct with a static member for each kind, not an enum, so that Courier can add kinds without breaking
    /// your code: it matches in a `switch` (end it with `default:`) and with `==`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        enum Name: String, Sendable, Hashable {
            case circuitOpened, circuitHalfOpened, circuitClosed, refused, retryRefused, paused
        }

        let kind: Name

        private init(_ kind: Name) {
            self.kind = kind
        }

        /// The origin's circuit breaker opened: its calls are refused until the cool-down ends.
        public static let circuitOpened = Kind(.circuitOpened)
        /// The cool-down ended: the breaker lets a probe through.
        public static let circuitHalfOpened = Kind(.circuitHalfOpened)
        /// The probes succeeded: the breaker closed and calls go again.
        public static let circuitClosed = Kind(.circuitClosed)
        /// A call was refused before anything was sent (its ``TrafficGovernor/Event/refusal`` says why).
        public static let refused = Kind(.refused)
        /// A retry was not made because the origin's retry budget is spent: the call ended with what it had.
        public static let retryRefused = Kind(.retryRefused)
        /// A 429 or 503 with `Retry-After` paused every new attempt to the origin for the event's
        /// ``TrafficGovernor/Event/delay``.
        public static let paused = Kind(.paused)

        /// The kind's name: `circuitOpened`, `refused`, ….
        public var description: String { kind.rawValue }
    }
}
