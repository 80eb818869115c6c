@_spi(CourierInternals) import Courier
import Foundation

// A cassette file is HAR 1.2, written and read by Courier's `HAR` (shared with CourierObservability's export), with
// `CourierTesting` as its creator.

extension HAR {
    init(_ interactions: [Cassette.Interaction]) {
        self.init(entries: interactions.map(Entry.init), creator: "CourierTesting")
    }

    /// The entries as interactions; a body that says base64 but is not fails.
    var interactions: [Cassette.Interaction] {
        get throws { try log.entries.map { try $0.interaction() } }
    }

    /// A body read back; one that says base64 but is not fails.
    static func body(_ text: String?, encoding: String?) throws -> Data {
        guard let data = data(text, encoding: encoding) else {
            throw Cassette.Problem("a body marked base64 is not base64: \((text ?? "").prefix(40))")
        }
        return data
    }
}

extension HAR.Entry {
    init(_ interaction: Cassette.Interaction) {
        let requestBody = HAR.text(of: interaction.requestBody)
        let responseBody = HAR.text(of: interaction.responseBody)
        let version = HAR.httpVersion(interaction.httpVersion)
        self.init(
            endpoint: interaction.endpoint,
            startedDateTime: HAR.dateTime(interaction.started),
            time: interaction.milliseconds,
            request: HAR.Request(
                bodySize: interaction.requestBody.count, headers: HAR.fields(interaction.requestHeaders),
                method: interaction.method,
                postData: interaction.requestBody.isEmpty
                    ? nil
                    : HAR.PostData(mimeType: interaction.requestHeaders[.contentType] ?? "", body: requestBody),
                queryString: interaction.queryItems.map { HAR.Field(name: $0.name, value: $0.value ?? "") },
                url: interaction.url),
            response: HAR.Response(
                bodySize: interaction.responseBody.count,
                content: HAR.Content(
                    size: interaction.responseBody.count, mimeType: interaction.responseHeaders[.contentType] ?? "",
                    text: interaction.responseBody.isEmpty ? nil : responseBody.text, encoding: responseBody.encoding),
                headers: HAR.fields(interaction.responseHeaders), status: interaction.statusCode),
            timings: HAR.Timings(wait: interaction.milliseconds))
        self.request.httpVersion = version
        self.response.httpVersion = version
    }

    func interaction() throws -> Cassette.Interaction {
        var interaction = Cassette.Interaction(
            endpoint: endpoint, method: request.method, url: request.url,
            requestHeaders: HAR.headers(request.headers),
            requestBody: try HAR.body(request.postData?.text, encoding: request.postData?.encoding),
            statusCode: response.status, responseHeaders: HAR.headers(response.headers),
            responseBody: try HAR.body(response.content.text, encoding: response.content.encoding))
        interaction.milliseconds = time
        interaction.httpVersion = HAR.version(ofHTTPVersion: response.httpVersion)
        if let date = HAR.date(fromDateTime: startedDateTime) { interaction.started = date }
        return interaction
    }
}
