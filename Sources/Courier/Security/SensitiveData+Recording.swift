import Foundation

@_spi(CourierInternals)
extension SensitiveData {
    /// Masks the secrets of one exchange before it is written down: what a recorder (CourierTesting's
    /// `Cassette`) stores instead of the request and response as they went over the wire.
    ///
    /// The same rules as every other redaction in Courier (see "Secret names" above): secret headers become
    /// ``SensitiveData/mask``, the URL's user info and secret query items are masked, secret keys of JSON and
    /// form bodies are masked at any depth, and the request's secret values (a bearer token, a cookie's value, a
    /// password sent in the body) are masked wherever they reappear, a response that echoes them included.
    /// Masking the same request twice gives the same text, so a recorded request and a new one compare equal
    /// through the masks.
    public struct Recording: Sendable {
        private let redactor: Redactor
        /// The request whose URL ``url(_:)`` masks from its query items.
        private let request: APIRequest

        /// Masks the secrets of `request` (as the plugins sent it, credentials added) and of its response;
        /// `additionalKeys` names more secret headers, query items and body keys.
        public init(request: APIRequest, additionalKeys: Set<String> = []) {
            self.redactor = Redactor(request: request, additionalKeys: additionalKeys)
            self.request = request
        }

        /// `url` as text, its user info, secret query items and secret path parameters masked.
        public func url(_ url: URL) -> String {
            url == request.url ? redactor.url(of: request) : redactor.url(url)
        }

        /// `headers` with the values of secret headers masked and the request's secrets masked in the others.
        public func headers(_ headers: HTTPHeaders) -> HTTPHeaders {
            redactor.headers(headers)
        }

        /// A body as text with every secret masked (JSON re-rendered with sorted keys); `nil` when it is not
        /// UTF-8 text, which is kept as it is.
        public func body(_ data: Data, contentType: String?) -> String? {
            redactor.text(of: data, contentType: contentType)
        }
    }
}
