@_spi(CourierInternals) import Courier
import Foundation

extension Cassette {
    /// One recorded exchange, as the cassette stores it: secrets already masked. A `redact` closure given to
    /// ``Cassette/init(_:mode:matching:recordingWith:recordsInCI:redact:)`` changes it before it is saved (and the
    /// request half of each new request before it is matched); a ``Matching`` predicate reads it.
    public struct Interaction: Sendable {
        /// The endpoint the request was built from, `METHOD /path/template`.
        public var endpoint: String
        /// The request's method.
        public var method: String
        /// The request's URL as text, secrets masked.
        public var url: String
        /// The request's header fields, secret values masked.
        public var requestHeaders: HTTPHeaders
        /// The request's body, secret values masked.
        public var requestBody: Data
        /// The response's status code (0 while only the request is known).
        public var statusCode: Int = 0
        /// The response's header fields, secret values masked.
        public var responseHeaders: HTTPHeaders = [:]
        /// The response's body, decoded when it was compressed, secret values masked.
        public var responseBody: Data = Data()

        /// When it was recorded (HAR's `startedDateTime`).
        var started = Date()
        /// How long the exchange took, in milliseconds (HAR's `time`).
        var milliseconds: Double = 0
        /// The version of HTTP the response came over (``Courier/APIResponse/httpVersion``), where it was known.
        var httpVersion: String?
    }
}

extension Cassette.Interaction {
    /// The request half of an interaction: `request` with its secrets masked, `body` the bytes it sent. A multipart
    /// form's random boundary is written as ``boundary``, so that the same form sent again matches.
    init(request: APIRequest, body: Data) {
        let masking = SensitiveData.Recording(request: request)
        var headers = masking.headers(request.headers)
        var body = body
        if let boundary = request.body.multipartForm?.boundary, let type = headers[.contentType] {
            headers.remove(.contentType)
            headers.add(.contentType, type.replacingOccurrences(of: boundary, with: Self.boundary))
            body = body.replacing(Data(boundary.utf8), with: Data(Self.boundary.utf8))
        }
        self.endpoint = request.endpoint.description
        self.method = request.method.rawValue
        self.url = masking.url(request.url)
        self.requestHeaders = headers
        self.requestBody = Self.masked(body, contentType: request.headers[.contentType], by: masking)
    }

    /// What a multipart form's boundary is recorded as.
    static let boundary = "courier-recorded-boundary"

    /// Headers a stored response leaves out: its body is stored decoded and whole.
    static let droppedResponseHeaders: [HTTPHeaderName] = ["Content-Encoding", .contentLength, "Transfer-Encoding"]

    /// Adds the response: status, headers and `body`, masked by the rules of `request`.
    mutating func respond(_ response: APIResponse, body: Data, request: APIRequest) {
        let masking = SensitiveData.Recording(request: request)
        var headers = response.headers
        for name in Self.droppedResponseHeaders { headers.remove(name) }
        statusCode = response.statusCode
        httpVersion = response.httpVersion
        responseHeaders = masking.headers(headers)
        responseBody = Self.masked(body, contentType: response.headers[.contentType], by: masking)
    }

    /// `body` with its secrets masked when it is text; binary bodies as they are.
    private static func masked(_ body: Data, contentType: String?, by masking: SensitiveData.Recording) -> Data {
        guard !body.isEmpty, let text = masking.body(body, contentType: contentType) else { return body }
        return Data(text.utf8)
    }

    /// The recorded response as a stub, which answers in memory, as a stream or into a file as the request asks.
    var stubResponse: StubResponse {
        StubResponse(statusCode: statusCode, headers: responseHeaders, body: responseBody)
    }

    /// The path of ``url``, percent-encoded.
    var path: String {
        URLComponents(string: url)?.percentEncodedPath ?? url
    }

    /// The query items of ``url``, decoded, in order.
    var queryItems: [URLQueryItem] {
        URLComponents(string: url)?.queryItems ?? []
    }
}
