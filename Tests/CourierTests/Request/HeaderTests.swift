import Courier
import Foundation
import Testing

@Suite struct HeaderTests {
    @Test func sourcesMergeInOrderConfigurationThenEndpointThenBuilder() throws {
        var configuration = testConfiguration
        configuration.headers = ["User-Agent": "courier-tests", "Accept": "*/*", "X-Trace": "config"]
        let endpoint = GET<String>(
            wrappedValue: nil,
            "/x",
            headers: ["accept": "application/json", "X-Static": "1"],
            headerBuilder: { ["X-Trace": $0] }
        )
        let request = try endpoint.makeRequest(with: "call", using: configuration)
        #expect(request.headers[.userAgent] == "courier-tests")
        #expect(request.headers.values(for: .accept) == ["application/json"])
        #expect(request.headers["x-static"] == "1")
        #expect(request.headers.values(for: "X-Trace") == ["call"])
    }

    /// (fields of one source, the values sent, the field as the wire has it): repeated names are all sent, except
    /// `Cookie`, whose pairs go in one field separated by `; ` (RFC 6265).
    static let repeatedNames: [(HTTPHeaders, [String], String)] = [
        (["X-Tag": "a", "X-Tag": "b"], ["a", "b"], "a,b"),
        (["Cookie": "a=1", "Cookie": "b=2"], ["a=1; b=2"], "a=1; b=2"),
        (["cookie": "a=1", "Cookie": "b=2", "COOKIE": "c=3"], ["a=1; b=2; c=3"], "a=1; b=2; c=3"),
        (["Cookie": "a=1"], ["a=1"], "a=1"),
    ]

    @Test(arguments: repeatedNames)
    func repeatedNamesInOneSourceAreAllSent(headers: HTTPHeaders, values: [String], field: String) throws {
        let name = try #require(headers.map(\.name).first)
        let endpoint = GET<Void>("/x", headers: headers)
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(request.headers.values(for: name) == values)
        #expect(request.urlRequest.value(forHTTPHeaderField: name.rawValue) == field)
    }

    @Test func cookiesOfTheBuilderJoinInOneField() throws {
        let endpoint = GET<(String, String)>(
            wrappedValue: nil, "/x",
            headerBuilder: { ["Cookie": "session=\($0.0)", "Cookie": "theme=\($0.1)"] })
        let request = try endpoint.makeRequest(with: ("s-1", "dark"), using: testConfiguration)
        #expect(request.headers.values(for: .cookie) == ["session=s-1; theme=dark"])
    }

    static let badHeaders: [(HTTPHeaderName, String)] = [
        ("X-Bad", "a\r\nInjected: yes"),
        ("X-Bad", "line\nbreak"),
        ("X-Bad", "nul\u{0}byte"),
        ("X Bad", "name with a space"),
        ("X-Bad:", "colon in the name"),
        ("", "empty name"),
        ("X-\r\n", "CRLF in the name"),
    ]

    @Test(arguments: badHeaders)
    func crlfAndInvalidNamesAreErrors(name: HTTPHeaderName, value: String) throws {
        let endpoint = GET<Void>("/x", headers: HTTPHeaders([.init(name: name, value: value)]))
        let error = try #require(buildError { try endpoint.makeRequest(using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.invalidHeader(name: name.rawValue)))
        #expect(error.description.hasPrefix("GET /x: header '"))
        #expect(!error.description.contains(value))
    }

    @Test func headerBuilderValuesAreCheckedToo() throws {
        let endpoint = GET<String>(wrappedValue: nil, "/x", headerBuilder: { ["Authorization": "Bearer \($0)"] })
        let error = try #require(buildError { try endpoint.makeRequest(with: "t\r\nX: y", using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.invalidHeader(name: "Authorization")))
        #expect(!error.description.contains("Bearer"))
    }

    @Test func namesCompareCaseInsensitively() {
        var headers: HTTPHeaders = ["Content-Type": "a"]
        headers["content-type"] = "b"
        #expect(headers.count == 1)
        #expect(headers[.contentType] == "b")
        #expect(HTTPHeaderName("ACCEPT") == .accept)
    }

    @Test func settingAValueReplacesEveryFieldOfThatName() {
        var headers: HTTPHeaders = ["A": "1", "B": "2", "a": "3"]
        headers["A"] = "x"
        #expect(headers.fields.map(\.value) == ["x", "2"])
        headers["B"] = nil
        #expect(headers.fields.map(\.name.rawValue) == ["A"])
    }

    @Test func descriptionNeverShowsValues() {
        let headers: HTTPHeaders = ["Authorization": "Bearer secret"]
        #expect(headers.description == "[Authorization]")
    }

    @Test func urlRequestCarriesEverything() throws {
        let endpoint = POST<Int>(
            wrappedValue: .init { ["n": $0] },
            "/x",
            headers: ["X-A": "1"],
            timeout: .milliseconds(2500)
        )
        let urlRequest = try endpoint.makeRequest(with: 5, using: testConfiguration).urlRequest
        #expect(urlRequest.httpMethod == "POST")
        #expect(urlRequest.url?.absoluteString == "https://api.example.com/v2/x")
        #expect(urlRequest.value(forHTTPHeaderField: "X-A") == "1")
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(urlRequest.httpBody == Data(#"{"n":5}"#.utf8))
        #expect(urlRequest.timeoutInterval == 2.5)
    }
}
