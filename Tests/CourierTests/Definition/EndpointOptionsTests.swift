import Courier
import Foundation
import Testing

extension EndpointOptions {
    fileprivate static let storage = EndpointOptions(
        headers: ["Accept": "application/xml"], host: "storage", timeout: .seconds(300), maxResponseBytes: 1024)
}

@Suite struct EndpointOptionsTests {
    @MainActor enum Book {
        @GET("/objects/{key}", headers: ["Accept": "application/xml"], host: "storage", timeout: .seconds(300))
        static var spelledOut: APIParameterBuilder<String>? = .init { ["key": $0] }

        @GET("/objects/{key}", options: .storage)
        static var shared: APIParameterBuilder<String>? = .init { ["key": $0] }

        static let local = GET<String>("/objects/{key}", timeout: .seconds(5), acceptableStatusCodes: [200]) {
            ["key": $0]
        }
    }

    @Test("The declaration's options are stored once and read as the endpoint's own properties")
    @MainActor func optionsReadAsProperties() {
        let endpoint = Book.$spelledOut.endpoint

        #expect(endpoint.timeout == .seconds(300))
        #expect(endpoint.host == "storage")
        #expect(endpoint.headers["Accept"] == "application/xml")
        #expect(endpoint.options.timeout == .seconds(300))
        #expect(endpoint.maxResponseBytes == nil)
        #expect(Book.local.endpoint.acceptableStatusCodes == [200])
        #expect(Book.local.endpoint.timeout == .seconds(5))
    }

    @Test("An endpoint declared with one shared options value builds the same request")
    @MainActor func sharedOptionsBuildTheSameRequest() throws {
        let configuration = APIConfiguration(hosts: ["storage": URL(string: "https://s.example")!])

        let spelled = try Book.$spelledOut.makeRequest(with: "a", using: configuration)
        let shared = try Book.$shared.makeRequest(with: "a", using: configuration)

        #expect(shared.url == spelled.url)
        #expect(shared.url.absoluteString == "https://s.example/objects/a")
        #expect(shared.headers == spelled.headers)
        #expect(shared.timeout == .seconds(300))
        #expect(shared.maxResponseBytes == 1024)
    }
}
