/// An observer told only when each call starts and when it ends, with what metrics need (how long it took, its
/// status, its failure, the sizes): a call whose configuration has only such observers records no timeline (no
/// event, no copy of its request), so observing it costs a few thousand instructions where a timeline costs tens of
/// thousands. Register it in ``APIConfiguration/observers`` like any observer; ``CallObserver/observe(_:in:)`` is
/// then never called by the pipeline (it stays for a caller that replays a timeline).
@_spi(CourierInternals)
public protocol CallOutcomeObserver: CallObserver {
    /// A call with `request` (as its call form built it, before the plugins) starts; what this returns (the
    /// observer's state for the call, looked up once) is handed back to ``callEnded(_:outcome:context:)``.
    func callStarted(_ request: APIRequest) -> (any AnyObject & Sendable)?
    /// The call with `request` (the one ``callStarted(_:)`` saw) ended as `outcome` says; `context` is what
    /// ``callStarted(_:)`` returned.
    func callEnded(_ request: APIRequest, outcome: CallOutcome, context: (any AnyObject & Sendable)?)
    /// The streamed body of a call that ended with `statusCode` ended (read to its end, or as far as its reader
    /// went) after `bytes` bytes; `context` is what ``callStarted(_:)`` returned. Does nothing by default.
    func callBodyEnded(bytes: Int, statusCode: Int?, context: (any AnyObject & Sendable)?)
}

@_spi(CourierInternals)
extension CallOutcomeObserver {
    /// Does nothing.
    public func callBodyEnded(bytes: Int, statusCode: Int?, context: (any AnyObject & Sendable)?) {}
}

/// How a call ended, for a ``CallOutcomeObserver``.
@_spi(CourierInternals)
public struct CallOutcome: Sendable {
    /// From the start of building the request to the end of the call (decoding included; a stream's call ends
    /// when its stream opens).
    public let duration: Duration
    /// The status of the response the call ended with, if one arrived.
    public let statusCode: Int?
    /// Why the call failed; `nil` when it succeeded.
    public let failure: APIError.Reason?
    /// The bytes of the response body the call ended with, for a body in memory or in a file (a resumed
    /// download's new part); a stream's come to ``CallOutcomeObserver/callBodyEnded(bytes:statusCode:context:)``.
    public let responseBytes: Int?
    /// Each request the call sent through the transport, in order (retries; an attempt the cache answered without
    /// the server is not one).
    public let attempts: [Attempt]

    /// One request a call sent: how long it took from entering the transport to its response or failure, and how
    /// it ended.
    public struct Attempt: Sendable {
        /// From entering the transport (the cache, then the executor) to the response or the failure.
        public let duration: Duration
        /// The response's status, when one arrived.
        public let statusCode: Int?
        /// Why the attempt failed, when no response arrived.
        public let failure: APIError.Reason?
        /// The version of HTTP its response came over, where the executor knows it (``APIResponse/httpVersion``).
        public var httpVersion: String? = nil

        /// An attempt that took `duration` and ended with `statusCode` or `failure`.
        public init(duration: Duration, statusCode: Int?, failure: APIError.Reason?) {
            self.duration = duration
            self.statusCode = statusCode
            self.failure = failure
        }
    }
}
