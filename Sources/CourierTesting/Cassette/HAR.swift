import Courier
import Foundation

/// A cassette file: HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), which browser devtools and HAR
/// viewers read. Written pretty-printed with sorted keys, so that a re-recording diffs well. Bodies are text when
/// they are UTF-8 text, base64 otherwise (`encoding: "base64"`; `_encoding` for a request body, which HAR has no
/// field for). Each entry carries the endpoint it was built from as `_endpoint`.
struct HAR: Codable {
    var log: Log

    struct Log: Codable {
        var version = "1.2"
        var creator = Creator()
        var entries: [Entry]
    }

    struct Creator: Codable {
        var name = "CourierTesting"
        var version = "1"
    }

    struct Field: Codable {
        var name: String
        var value: String
    }

    struct Entry: Codable {
        var endpoint: String
        var startedDateTime: String
        var time: Double
        var request: Request
        var response: Response
        var cache = Cache()
        var timings: Timings

        enum CodingKeys: String, CodingKey {
            case endpoint = "_endpoint"
            case startedDateTime, time, request, response, cache, timings
        }
    }

    // The fields of requests and responses are declared in the order the file writes them (sorted keys).

    struct Request: Codable {
        var bodySize: Int
        var cookies: [Field] = []
        var headers: [Field]
        var headersSize = -1
        var httpVersion = "HTTP/1.1"
        var method: String
        var postData: PostData?
        var queryString: [Field]
        var url: String
    }

    struct PostData: Codable {
        var mimeType: String
        var text: String
        var encoding: String?

        enum CodingKeys: String, CodingKey {
            case mimeType, text
            case encoding = "_encoding"
        }
    }

    struct Response: Codable {
        var bodySize: Int
        var content: Content
        var cookies: [Field] = []
        var headers: [Field]
        var headersSize = -1
        var httpVersion = "HTTP/1.1"
        var redirectURL = ""
        var status: Int
        var statusText = ""
    }

    struct Content: Codable {
        var size: Int
        var mimeType: String
        var text: String?
        var encoding: String?
    }

    struct Cache: Codable {}

    struct Timings: Codable {
        var send: Double = 0
        var wait: Double
        var receive: Double = 0
    }
}

extension HAR {
    init(_ interactions: [Cassette.Interaction]) {
        self.log = Log(entries: interactions.map(Entry.init))
    }

    static func decoded(from data: Data) throws -> HAR {
        try JSONDecoder().decode(HAR.self, from: data)
    }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// The entries as interactions; a body that says base64 but is not fails.
    var interactions: [Cassette.Interaction] {
        get throws { try log.entries.map { try $0.interaction() } }
    }

    /// A body as HAR writes it: UTF-8 text as it is, anything else in base64.
    static func text(of data: Data) -> (text: String, encoding: String?) {
        if let text = String(data: data, encoding: .utf8), !text.unicodeScalars.contains(where: isControl) {
            return (text, nil)
        }
        return (data.base64EncodedString(), "base64")
    }

    /// A body read back.
    static func data(_ text: String?, encoding: String?) throws -> Data {
        guard let text else { return Data() }
        guard encoding == "base64" else { return Data(text.utf8) }
        guard let data = Data(base64Encoded: text) else {
            throw Cassette.Problem("a body marked base64 is not base64: \(text.prefix(40))")
        }
        return data
    }

    /// Control characters other than tab, line feed and carriage return: binary data rather than text.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && !"\t\n\r".unicodeScalars.contains(scalar)) || scalar.value == 0x7F
    }
}

extension HAR.Entry {
    init(_ interaction: Cassette.Interaction) {
        let requestBody = HAR.text(of: interaction.requestBody)
        let responseBody = HAR.text(of: interaction.responseBody)
        self.endpoint = interaction.endpoint
        self.startedDateTime = interaction.started.formatted(.iso8601)
        self.time = interaction.milliseconds
        self.request = HAR.Request(
            bodySize: interaction.requestBody.count, headers: HAR.fields(interaction.requestHeaders),
            method: interaction.method,
            postData: interaction.requestBody.isEmpty
                ? nil
                : HAR.PostData(
                    mimeType: interaction.requestHeaders[.contentType] ?? "", text: requestBody.text,
                    encoding: requestBody.encoding),
            queryString: interaction.queryItems.map { HAR.Field(name: $0.name, value: $0.value ?? "") },
            url: interaction.url)
        self.response = HAR.Response(
            bodySize: interaction.responseBody.count,
            content: HAR.Content(
                size: interaction.responseBody.count, mimeType: interaction.responseHeaders[.contentType] ?? "",
                text: interaction.responseBody.isEmpty ? nil : responseBody.text, encoding: responseBody.encoding),
            headers: HAR.fields(interaction.responseHeaders), status: interaction.statusCode)
        self.timings = HAR.Timings(wait: interaction.milliseconds)
    }

    func interaction() throws -> Cassette.Interaction {
        var interaction = Cassette.Interaction(
            endpoint: endpoint, method: request.method, url: request.url,
            requestHeaders: HAR.headers(request.headers),
            requestBody: try HAR.data(request.postData?.text, encoding: request.postData?.encoding),
            statusCode: response.status, responseHeaders: HAR.headers(response.headers),
            responseBody: try HAR.data(response.content.text, encoding: response.content.encoding))
        interaction.milliseconds = time
        if let date = try? Date(startedDateTime, strategy: .iso8601) { interaction.started = date }
        return interaction
    }
}

extension HAR {
    static func fields(_ headers: HTTPHeaders) -> [Field] {
        headers.map { Field(name: $0.name.rawValue, value: $0.value) }
    }

    static func headers(_ fields: [Field]) -> HTTPHeaders {
        HTTPHeaders(fields.map { HTTPHeaders.Field(name: HTTPHeaderName(rawValue: $0.name), value: $0.value) })
    }
}
