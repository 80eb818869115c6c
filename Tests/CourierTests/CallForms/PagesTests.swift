import Courier
import CourierTesting
import Foundation
import Testing

/// `Link` header parsing (RFC 8288) and the page rules, above the executor.
@Suite struct PagesTests {
    static let list = GET<Void>("/items")

    /// (the first page's `Link` field(s), the path of the next page or nil)
    static let links: [([String], String?)] = [
        (["<https://api.example.com/v2/items?page=2>; rel=\"next\""], "/v2/items?page=2"),
        (["<https://api.example.com/v2/items?page=2>; rel=next"], "/v2/items?page=2"),
        (["<https://api.example.com/v2/items?page=2>; REL=\"NEXT\""], "/v2/items?page=2"),
        (["</v2/items?page=2>; rel=\"next\""], "/v2/items?page=2"),
        (
            ["<https://api.example.com/v2/items?page=9>; rel=\"last\", </v2/items?page=2>; rel=\"next\""],
            "/v2/items?page=2"
        ),
        (
            ["<https://x.example/a>; title=\"a, b; c\"; rel=\"prev\", </v2/items?page=2>; rel=\"next last\""],
            "/v2/items?page=2"
        ),
        (
            ["<https://api.example.com/v2/items?page=9>; rel=\"last\"", "</v2/items?page=2>; rel=\"next\""],
            "/v2/items?page=2"
        ),
        (["<https://api.example.com/v2/items?page=1>; rel=\"prev\""], nil),
        (["<https://api.example.com/v2/items?page=2>; rel=\"nextish\""], nil),
        ([], nil),
    ]

    @Test("The Link rule finds rel=\"next\" wherever it is", arguments: links)
    func linkHeader(fields: [String], next: String?) async throws {
        let stub = StubExecutor().stub(where: { _ in true }) { request in
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            if request.url.query == nil { for field in fields { headers.add("Link", field) } }
            return StubResponse(statusCode: 200, headers: headers, body: Data("[1]".utf8))
        }

        var pages = 0
        for try await page in Self.list.pages(as: [Int].self, using: testConfiguration.with { $0.executor = stub }) {
            #expect(page == [1])
            pages += 1
        }

        let followed: [String] = stub.requests.dropFirst().map { request in
            request.url.path + "?" + (request.url.query ?? "")
        }
        let expected: [String] = next.map { [$0] } ?? []
        #expect(pages == (next == nil ? 1 : 2))
        #expect(followed == expected)
    }

    @Test("A page that names itself as the next one ends the list")
    func selfLinkEnds() async throws {
        let stub = StubExecutor().stub(where: { _ in true }) { request in
            StubResponse(
                statusCode: 200, headers: ["Link": "<\(request.url.absoluteString)>; rel=\"next\""],
                body: Data("[]".utf8))
        }
        var pages = 0
        for try await _ in Self.list.pages(as: [Int].self, using: testConfiguration.with { $0.executor = stub }) {
            pages += 1
        }
        #expect(pages == 1)
    }

    @Test("A failing page throws the APIError of its call and ends the list")
    func failingPageThrows() async throws {
        let stub = StubExecutor().stub(where: { _ in true }) { request in
            let first = request.url.query == nil
            return StubResponse(
                statusCode: first ? 200 : 503, headers: first ? ["Link": "</v2/items?page=2>; rel=next"] : [:],
                body: Data("[]".utf8))
        }
        var pages = 0
        let error = await #expect(throws: APIError.self) {
            for try await _ in Self.list.pages(as: [Int].self, using: testConfiguration.with { $0.executor = stub }) {
                pages += 1
            }
        }
        #expect(pages == 1)
        #expect(error?.reason == .unacceptableStatus(.serverError))
    }
}
