extension APIError {
    /// Why a call failed.
    ///
    /// A reason is a struct with a static member for each kind of failure, not an enum, so that Courier can
    /// add reasons without breaking your code. It matches in a `switch` and with `==` just as an enum case
    /// would; end a `switch` over it with `default:`:
    ///
    /// ```swift
    /// switch error.reason {
    /// case .unacceptableStatus(.notFound): showNotFound()
    /// case .transport(.offline), .transport(.cannotConnect): showOffline()
    /// default: if let problem = error.reason.transportProblem { retryLater(problem) }
    /// }
    /// ```
    ///
    /// A `switch` matches members with their payload (`.transport(.timedOut)`); to read a payload, or to
    /// match every reason of one kind, use ``requestProblem``, ``transportProblem``, ``statusCategory`` and
    /// ``serviceRejection``.
    public struct Reason: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case invalidRequest(RequestProblem)
            case transport(TransportProblem)
            case unacceptableStatus(StatusCategory)
            case decodingFailed
            case rejectedByService(code: String, message: String?)
            case notCached
            case governorRefused(GovernorRefusal)
            case other
        }

        let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// The endpoint or its parameters could not make a valid request; nothing was sent.
        public static func invalidRequest(_ problem: RequestProblem) -> Reason { Reason(.invalidRequest(problem)) }
        /// The request did not complete: no response, or the connection broke.
        public static func transport(_ problem: TransportProblem) -> Reason { Reason(.transport(problem)) }
        /// A response arrived with a status code the endpoint does not accept.
        public static func unacceptableStatus(_ category: StatusCategory) -> Reason {
            Reason(.unacceptableStatus(category))
        }
        /// The response body could not be decoded into the requested type.
        public static let decodingFailed = Reason(.decodingFailed)
        /// The service answered with a failure code inside a successful response (thrown by a plugin that reads
        /// the code of an envelope).
        public static func rejectedByService(code: String, message: String?) -> Reason {
            Reason(.rejectedByService(code: code, message: message))
        }
        /// The cache policy reads from the cache only (``CachePolicy/ReadMode/cacheOnly``) and it holds no
        /// fresh response for this request.
        public static let notCached = Reason(.notCached)
        /// A ``TrafficGovernor`` refused the call to protect its origin (see the ``GovernorRefusal``); nothing was
        /// sent.
        public static func governorRefused(_ refusal: GovernorRefusal) -> Reason { Reason(.governorRefused(refusal)) }
        /// A plugin or a custom executor stopped the call with an error of its own (see
        /// ``APIError/underlyingError``).
        public static let other = Reason(.other)

        /// What was wrong with the request, for an ``invalidRequest(_:)`` reason; `nil` for any other.
        public var requestProblem: RequestProblem? {
            if case .invalidRequest(let problem) = kind { problem } else { nil }
        }

        /// Why the request did not complete, for a ``transport(_:)`` reason; `nil` for any other.
        public var transportProblem: TransportProblem? {
            if case .transport(let problem) = kind { problem } else { nil }
        }

        /// The category of the status code, for an ``unacceptableStatus(_:)`` reason; `nil` for any other.
        public var statusCategory: StatusCategory? {
            if case .unacceptableStatus(let category) = kind { category } else { nil }
        }

        /// Why the governor refused the call, for a ``governorRefused(_:)`` reason; `nil` for any other.
        public var governorRefusal: GovernorRefusal? {
            if case .governorRefused(let refusal) = kind { refusal } else { nil }
        }

        /// The service's failure code and message, for a ``rejectedByService(code:message:)`` reason; `nil` for
        /// any other.
        public var serviceRejection: (code: String, message: String?)? {
            if case .rejectedByService(let code, let message) = kind { (code, message) } else { nil }
        }
    }
}
