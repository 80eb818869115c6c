extension APIError {
    /// What was wrong with an endpoint definition or the parameters of a call. Each is found before any I/O.
    ///
    /// A struct with a static member for each problem, not an enum, so that Courier can add problems without
    /// breaking your code: it matches in a `switch` (end it with `default:`) and with `==`, payload included
    /// (`.missingPathValue(name: "login")`). Read a payload with ``name``, ``host`` and ``parameterType``.
    public struct RequestProblem: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case missingPathValue(name: String)
            case invalidPathValue(name: String)
            case unsupportedPathValue(name: String)
            case malformedPathTemplate
            case invalidHeader(name: String)
            case bodyNotAllowed
            case unencodableParameters
            case unsupportedParameters
            case mixedParameters
            case missingBaseURL
            case unknownHost(APIHost)
            case invalidBaseURL
            case invalidURL
            case unreadableBody
            case missingParameterBuilder(String)
            case unwritableDestination
        }

        let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// The path template names a parameter that the call did not provide (or provided as `nil`).
        public static func missingPathValue(name: String) -> RequestProblem {
            RequestProblem(.missingPathValue(name: name))
        }
        /// A path value would make an empty, `.` or `..` segment.
        public static func invalidPathValue(name: String) -> RequestProblem {
            RequestProblem(.invalidPathValue(name: name))
        }
        /// A path value is an array or a nested object, which has no single-segment form.
        public static func unsupportedPathValue(name: String) -> RequestProblem {
            RequestProblem(.unsupportedPathValue(name: name))
        }
        /// The path template is malformed: an unbalanced or empty `{}`, a `/` inside braces, or a `%` that
        /// is not followed by two hex digits (in the path or its static query).
        public static let malformedPathTemplate = RequestProblem(.malformedPathTemplate)
        /// A header name is not a valid token, or a header value contains CR, LF or NUL.
        public static func invalidHeader(name: String) -> RequestProblem { RequestProblem(.invalidHeader(name: name)) }
        /// The endpoint sends a body (`.json` or `.form`) but its method may not carry one.
        public static let bodyNotAllowed = RequestProblem(.bodyNotAllowed)
        /// The parameters cannot be encoded; the `EncodingError` is the ``APIError/underlyingError``. For
        /// example a NaN or infinite number, a date outside its style's range (see
        /// ``ParameterEncodingOptions/DateStyle``), or values nested deeper than 100 (`Parameters.maximumDepth`).
        public static let unencodableParameters = RequestProblem(.unencodableParameters)
        /// The parameters' shape does not fit the encoding, for example an array for a query string.
        public static let unsupportedParameters = RequestProblem(.unsupportedParameters)
        /// Names were appended to parameters that hold a list or a model.
        public static let mixedParameters = RequestProblem(.mixedParameters)
        /// No base URL is configured and the endpoint's path is not an absolute URL.
        public static let missingBaseURL = RequestProblem(.missingBaseURL)
        /// The endpoint names a host that the configuration does not map to a URL.
        public static func unknownHost(_ host: APIHost) -> RequestProblem { RequestProblem(.unknownHost(host)) }
        /// The base URL has no scheme or no host.
        public static let invalidBaseURL = RequestProblem(.invalidBaseURL)
        /// The pieces did not make a valid URL.
        public static let invalidURL = RequestProblem(.invalidURL)
        /// The request body could not be prepared, for example a file that cannot be read.
        public static let unreadableBody = RequestProblem(.unreadableBody)
        /// The endpoint takes a parameter (of the named type) but declares no parameter builder (`= nil`), so
        /// the call's value would not be sent: declare one, for example `= .init { $0 }`.
        public static func missingParameterBuilder(_ parameterType: String) -> RequestProblem {
            RequestProblem(.missingParameterBuilder(parameterType))
        }
        /// A download's destination is not a file URL in an existing folder (or is a folder itself).
        public static let unwritableDestination = RequestProblem(.unwritableDestination)

        /// The name of the path parameter (``missingPathValue(name:)``, ``invalidPathValue(name:)``,
        /// ``unsupportedPathValue(name:)``) or of the header (``invalidHeader(name:)``) the problem is about;
        /// `nil` for any other problem.
        public var name: String? {
            switch kind {
            case .missingPathValue(let name), .invalidPathValue(let name), .unsupportedPathValue(let name),
                .invalidHeader(let name):
                name
            default: nil
            }
        }

        /// The host that the configuration does not map, for ``unknownHost(_:)``; `nil` for any other problem.
        public var host: APIHost? {
            if case .unknownHost(let host) = kind { host } else { nil }
        }

        /// The name of the parameter's type, for ``missingParameterBuilder(_:)``; `nil` for any other problem.
        public var parameterType: String? {
            if case .missingParameterBuilder(let type) = kind { type } else { nil }
        }
    }
}
