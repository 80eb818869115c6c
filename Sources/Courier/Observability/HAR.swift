import Foundation

/// An HTTP Archive, HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), which browser devtools and HAR
/// viewers open: the one writer and reader of the format, for the cassettes of `CourierTesting` and the timeline
/// export of `CourierObservability`. Written pretty-printed with sorted keys, so that a re-written file diffs well.
/// Bodies are text when they are UTF-8 text, base64 otherwise (`encoding: "base64"`; `_encoding` for a request
/// body, which HAR has no field for). Each entry carries the endpoint it was built from as `_endpoint`. Whoever
/// fills a HAR masks its secrets first (`SensitiveData.Recording`).
@_spi(CourierInternals)
public struct HAR: Codable, Sendable {
    /// The archive.
    public var log: Log

    /// An archive of `entries`, written by `creator`.
    public init(entries: [Entry], creator: String) {
        self.log = Log(creator: Creator(name: creator), entries: entries)
    }

    /// `date` as an archive writes it: ISO 8601 in UTC with milliseconds (`2026-11-27T03:39:59.123Z`), as
    /// HAR 1.2 asks, so that entries a few milliseconds apart keep their order. The milliseconds are rounded to
    /// the nearest (`DateText`): a date read back with ``date(fromDateTime:)`` is written as the same text, where
    /// truncating the `Double` a `Date` holds would write `….992Z` back as `….991Z`.
    public static func dateTime(_ date: Date) -> String {
        (try? DateText.iso8601(date, milliseconds: true))
            ?? date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// The date of a `startedDateTime`, with fractional seconds of any length or none, in UTC or with an offset;
    /// `nil` when it is not ISO 8601.
    public static func date(fromDateTime text: String) -> Date? {
        ISO8601Parser.date(from: text) ?? (try? Date(text, strategy: .iso8601))
    }

    /// An ``APIResponse/httpVersion`` as an archive's `httpVersion` writes it: `HTTP/1.1`, `HTTP/2`; `unknown` for
    /// `nil` (an executor that does not tell).
    public static func httpVersion(_ version: String?) -> String {
        version.map { "HTTP/" + $0 } ?? "unknown"
    }

    /// The ``APIResponse/httpVersion`` an archive's `httpVersion` names: `2` for `HTTP/2` (and `HTTP/2.0`, `h2`),
    /// `1.1` for `HTTP/1.1`; `nil` for `unknown` or anything else.
    public static func version(ofHTTPVersion text: String) -> String? {
        switch text.lowercased() {
        case "http/1.0": "1.0"
        case "http/1.1": "1.1"
        case "http/2", "http/2.0", "h2": "2"
        case "http/3", "http/3.0", "h3": "3"
        default: nil
        }
    }

    /// The archive's content.
    public struct Log: Codable, Sendable {
        /// The format's version, `1.2`.
        public var version = "1.2"
        /// What wrote it.
        public var creator: Creator
        /// The exchanges, in order.
        public var entries: [Entry]
    }

    /// What wrote an archive.
    public struct Creator: Codable, Sendable {
        /// Its name.
        public var name: String
        /// Its version.
        public var version = "1"
    }

    /// A header, a query item or a cookie.
    public struct Field: Codable, Sendable {
        /// The name.
        public var name: String
        /// The value.
        public var value: String

        /// A field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// One exchange.
    public struct Entry: Codable, Sendable {
        /// The endpoint the request was built from (`_endpoint`).
        public var endpoint: String
        /// When the exchange started, ISO 8601 with milliseconds (``HAR/dateTime(_:)``).
        public var startedDateTime: String
        /// How long it took, in milliseconds.
        public var time: Double
        /// The request.
        public var request: Request
        /// The response (status 0 when none arrived).
        public var response: Response
        /// The cache's part (empty).
        public var cache = Cache()
        /// Where the time went.
        public var timings: Timings
        /// The attempts the call made (`_attempts`), when more than one.
        public var attempts: Int?
        /// Why the call failed (`_error`), when it did.
        public var error: String?

        /// An entry.
        public init(
            endpoint: String, startedDateTime: String, time: Double, request: Request, response: Response,
            timings: Timings, attempts: Int? = nil, error: String? = nil
        ) {
            self.endpoint = endpoint
            self.startedDateTime = startedDateTime
            self.time = time
            self.request = request
            self.response = response
            self.timings = timings
            self.attempts = attempts
            self.error = error
        }

        enum CodingKeys: String, CodingKey {
            case endpoint = "_endpoint"
            case attempts = "_attempts"
            case error = "_error"
            case startedDateTime, time, request, response, cache, timings
        }
    }

    // The fields of requests and responses are declared in the order the file writes them (sorted keys).

    /// A request.
    public struct Request: Codable, Sendable {
        /// The body's size in bytes.
        public var bodySize: Int
        /// The cookies (none: they stay in the headers, masked).
        public var cookies: [Field] = []
        /// The header fields.
        public var headers: [Field]
        /// The head's size (-1: unknown).
        public var headersSize = -1
        /// The protocol.
        public var httpVersion = "HTTP/1.1"
        /// The method.
        public var method: String
        /// The body, when there is one.
        public var postData: PostData?
        /// The query items.
        public var queryString: [Field]
        /// The URL.
        public var url: String

        /// A request.
        public init(
            bodySize: Int, headers: [Field], method: String, postData: PostData?, queryString: [Field], url: String
        ) {
            self.bodySize = bodySize
            self.headers = headers
            self.method = method
            self.postData = postData
            self.queryString = queryString
            self.url = url
        }
    }

    /// A request's body.
    public struct PostData: Codable, Sendable {
        /// Its media type.
        public var mimeType: String
        /// Its text, or its bytes in base64.
        public var text: String
        /// `base64` when ``text`` is base64 (`_encoding`).
        public var encoding: String?

        /// A request body of `mimeType` written as ``HAR/text(of:)`` writes it.
        public init(mimeType: String, body: (text: String, encoding: String?)) {
            self.mimeType = mimeType
            self.text = body.text
            self.encoding = body.encoding
        }

        enum CodingKeys: String, CodingKey {
            case mimeType, text
            case encoding = "_encoding"
        }
    }

    /// A response.
    public struct Response: Codable, Sendable {
        /// The body's size in bytes.
        public var bodySize: Int
        /// The body.
        public var content: Content
        /// The cookies (none: they stay in the headers, masked).
        public var cookies: [Field] = []
        /// The header fields.
        public var headers: [Field]
        /// The head's size (-1: unknown).
        public var headersSize = -1
        /// The protocol.
        public var httpVersion = "HTTP/1.1"
        /// Where a redirect points.
        public var redirectURL = ""
        /// The status code.
        public var status: Int
        /// The reason phrase.
        public var statusText = ""

        /// A response.
        public init(bodySize: Int, content: Content, headers: [Field], status: Int) {
            self.bodySize = bodySize
            self.content = content
            self.headers = headers
            self.status = status
        }
    }

    /// A response's body.
    public struct Content: Codable, Sendable {
        /// Its size in bytes.
        public var size: Int
        /// Its media type.
        public var mimeType: String
        /// Its text, or its bytes in base64; `nil` when not kept.
        public var text: String?
        /// `base64` when ``text`` is base64.
        public var encoding: String?

        /// A response body.
        public init(size: Int, mimeType: String, text: String?, encoding: String?) {
            self.size = size
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
        }
    }

    /// An entry's cache information (empty).
    public struct Cache: Codable, Sendable {}

    /// Where an exchange's time went, in milliseconds: HAR's `blocked` (before the request could be sent), `send`,
    /// `wait` (for the response's first byte) and `receive`, plus `_decode` (after the body arrived, before the call
    /// ended); `time` is their sum.
    public struct Timings: Codable, Sendable {
        /// Waiting before sending (`-1`: not measured).
        public var blocked: Double?
        /// Sending the request.
        public var send: Double
        /// Waiting for the response.
        public var wait: Double
        /// Receiving the response.
        public var receive: Double
        /// Decoding the body (`_decode`).
        public var decode: Double?

        /// Timings.
        public init(blocked: Double? = nil, send: Double = 0, wait: Double, receive: Double = 0, decode: Double? = nil)
        {
            self.blocked = blocked
            self.send = send
            self.wait = wait
            self.receive = receive
            self.decode = decode
        }

        enum CodingKeys: String, CodingKey {
            case blocked, send, wait, receive
            case decode = "_decode"
        }
    }
}

@_spi(CourierInternals)
extension HAR {
    /// An archive read from `data`.
    public static func decoded(from data: Data) throws -> HAR {
        try JSONDecoder().decode(HAR.self, from: data)
    }

    /// The archive as a file's bytes: pretty-printed JSON, sorted keys, a final line feed.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// A body as HAR writes it: UTF-8 text as it is, anything else in base64.
    public static func text(of data: Data) -> (text: String, encoding: String?) {
        if let text = String(data: data, encoding: .utf8), !text.unicodeScalars.contains(where: isControl) {
            return (text, nil)
        }
        return (data.base64EncodedString(), "base64")
    }

    /// A body read back; `nil` when it says base64 but is not.
    public static func data(_ text: String?, encoding: String?) -> Data? {
        guard let text else { return Data() }
        guard encoding == "base64" else { return Data(text.utf8) }
        return Data(base64Encoded: text)
    }

    /// Header fields as HAR writes them.
    public static func fields(_ headers: HTTPHeaders) -> [Field] {
        headers.map { Field(name: $0.name.rawValue, value: $0.value) }
    }

    /// Header fields read back.
    public static func headers(_ fields: [Field]) -> HTTPHeaders {
        HTTPHeaders(fields.map { HTTPHeaders.Field(name: HTTPHeaderName(rawValue: $0.name), value: $0.value) })
    }

    /// Control characters other than tab, line feed and carriage return: binary data rather than text.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && !"\t\n\r".unicodeScalars.contains(scalar)) || scalar.value == 0x7F
    }
}
