extension APIError {
    /// A status code the endpoint does not accept, classified.
    ///
    /// A struct with a static member for each category, not an enum, so that Courier can add categories
    /// without breaking your code: it matches in a `switch` (end it with `default:`) and with `==`.
    public struct StatusCategory: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case badRequest, unauthorized, forbidden, notFound, clientError, serverError, unexpected
        }

        let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// 400.
        public static let badRequest = StatusCategory(.badRequest)
        /// 401.
        public static let unauthorized = StatusCategory(.unauthorized)
        /// 403.
        public static let forbidden = StatusCategory(.forbidden)
        /// 404.
        public static let notFound = StatusCategory(.notFound)
        /// Any other 4xx.
        public static let clientError = StatusCategory(.clientError)
        /// Any 5xx.
        public static let serverError = StatusCategory(.serverError)
        /// A 1xx, 2xx or 3xx code the endpoint does not accept.
        public static let unexpected = StatusCategory(.unexpected)

        /// The category of `statusCode`.
        init(statusCode: Int) {
            switch statusCode {
            case 400: self = .badRequest
            case 401: self = .unauthorized
            case 403: self = .forbidden
            case 404: self = .notFound
            case 400..<500: self = .clientError
            case 500..<600: self = .serverError
            default: self = .unexpected
            }
        }
    }
}
