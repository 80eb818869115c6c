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

    @Test func repeatedNamesInOneSourceAreAllSent() throws {
        let endpoint = GET<Void>("/x", headers: ["Cookie": "a=1", "Cookie": "b=2"])
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(request.headers.values(for: .cookie) == ["a=1", "b=2"])
        #expect(request.urlRequest.value(forHTTPHeaderField: "Cookie") == "a=1,b=2")
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
