import Courier
import Foundation
import Testing

/// Counts the requests that reach it.
private struct Counting: APIPlugin {
    let count: LockedBox<Int>
    func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        count.withLock { $0 += 1 }
        return try await next(request)
    }
}

/// Pagination against a real httpbin: `/response-headers` answers with the headers its query names (a `Link`, a
/// `Next-Page`) and echoes them in its JSON body; `/anything` echoes its query.
@Suite("Integration: pagination", .httpbin)
struct PaginationIntegrationTests {
    @MainActor enum Book {
        @GET("/response-headers")
        static var linked: APIParameterBuilder<(page: Int, link: String?)>? = .init {
            ["page": $0.page, "Link": $0.link]
        }

        @GET("/response-headers")
        static var nextPageHeader: APIParameterBuilder<(page: Int, next: String?)>? = .init {
            ["page": $0.page, "Next-Page": $0.next]
        }

        @GET("/anything")
        static var cursored: APIParameterBuilder<String>? = .init { ["cursor": $0] }
    }

    /// `/response-headers`' body: the headers it set, among them `page`.
    struct EchoPage: Decodable, Sendable {
        let page: String
    }

    struct AnythingPage: Decodable, Sendable {
        let args: [String: String]
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// Page 1 links to page 2 with an absolute URL; page 2 to page 3 with a relative one; page 3 has no `Link`.
    static func firstLink() throws -> String {
        let page2 =
            try HTTPBin.baseText() + "/response-headers?page=2&Link="
            + encoded(#"</response-headers?page=3>; rel="next""#)
        return "<\(page2)>; rel=\"next\", <\(try HTTPBin.baseText())/response-headers?page=9>; rel=\"last\""
    }

    @Test("Link rel=\"next\" is followed, absolute and relative, until a page has none")
    func followsLinkHeaders() async throws {
        let count = LockedBox(0)
        let configuration = try HTTPBin.configuration().with { $0.plugins = [Counting(count: count)] }
        var pages: [String] = []

        for try await page in await Book.$linked.pages(
            with: (page: 1, link: try Self.firstLink()), as: EchoPage.self, using: configuration)
        {
            pages.append(page.page)
        }

        #expect(pages == ["1", "2", "3"])
        #expect(count.value == 3)
    }

    @Test("A header holding the next page's URL is followed")
    func followsANextPageHeader() async throws {
        let configuration = try HTTPBin.configuration()
        let page2 = try HTTPBin.baseText() + "/response-headers?page=2"

        var pages: [String] = []
        for try await page in await Book.$nextPageHeader.pages(
            with: (page: 1, next: page2), as: EchoPage.self, next: .header("Next-Page"), using: configuration)
        {
            pages.append(page.page)
        }

        #expect(pages == ["1", "2"])
    }

    @Test("A cursor read from the body is sent as a query item until it is nil")
    func followsACursor() async throws {
        let configuration = try HTTPBin.configuration()
        // The "server's" next cursor: one more letter, up to three.
        let next = NextPage<AnythingPage>.cursor(as: "cursor") { page in
            page.args["cursor"].flatMap { $0.count < 3 ? $0 + "x" : nil }
        }

        var cursors: [String] = []
        for try await page in await Book.$cursored.pages(with: "x", next: next, using: configuration) {
            cursors.append(page.args["cursor"] ?? "-")
        }

        #expect(cursors == ["x", "xx", "xxx"])
    }

    @Test("Leaving the loop early fetches no further page")
    func leavingEarlyStops() async throws {
        let count = LockedBox(0)
        let configuration = try HTTPBin.configuration().with { $0.plugins = [Counting(count: count)] }

        for try await page in await Book.$linked.pages(
            with: (page: 1, link: try Self.firstLink()), as: EchoPage.self, using: configuration)
        {
            #expect(page.page == "1")
            break
        }

        #expect(count.value == 1)
    }

    @Test("Cancelling the iterating task stops the list with .transport(.cancelled)")
    func cancellationStops() async throws {
        let count = LockedBox(0)
        let configuration = try HTTPBin.configuration().with { $0.plugins = [Counting(count: count)] }
        let sequence = await Book.$linked.pages(
            with: (page: 1, link: try Self.firstLink()), as: EchoPage.self, using: configuration)

        let task = Task {
            var received: [String] = []
            do {
                for try await page in sequence {
                    received.append(page.page)
                    withUnsafeCurrentTask { $0?.cancel() }  // cancelled after the first page
                }
                return (received, APIError.Reason?.none)
            } catch let error as APIError {
                return (received, error.reason)
            }
        }
        let (received, reason) = try await task.value

        #expect(received == ["1"])
        #expect(reason == .transport(.cancelled))
        #expect(count.value == 1)
    }
}
