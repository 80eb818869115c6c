import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How ``URLSessionExecutor`` reads a response's header fields (the integration suites check them end to end).
@Suite struct URLSessionExecutorTests {
    static let fields = [
        "Content-Type": "application/json",
        "x-lower": "a",
        "X-Multi": "first, second",
        "www-authenticate": "Basic realm=\"r\"",
        "etag": "\"abc\"",
    ]

    static func response() throws -> HTTPURLResponse {
        let url = try #require(URL(string: "http://127.0.0.1/fields"))
        return try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields))
    }

    /// The fields as `allHeaderFields` has them: what URLSession hands over, whichever way the executor reads it.
    static func allHeaderFields(_ response: HTTPURLResponse) -> [String: String] {
        var fields: [String: String] = [:]
        for case let (name as String, value as String) in response.allHeaderFields { fields[name] = value }
        return fields
    }

    @Test func everyFieldOfTheResponseIsInItsHeadersWithItsValue() throws {
        let response = try Self.response()
        let headers = HTTPHeaders(response)
        let expected = Self.allHeaderFields(response)
        #expect(headers.fields.count == Self.fields.count)
        #expect(Dictionary(headers.fields.map { ($0.name.rawValue, $0.value) }) { first, _ in first } == expected)
        #expect(headers["x-multi"] == "first, second")
        #expect(headers["Content-Type"] == "application/json")
        #expect(headers[.eTag] == "\"abc\"")
    }

    #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
        @Test func onLinuxTheFieldsAreReadWhereFoundationNetworkingStoresThem() throws {
            // The fast path is in use (a FoundationNetworking that stores the fields otherwise fails here, and
            // the executor falls back to `allHeaderFields`), and reads the same fields.
            let response = try Self.response()
            let stored = try #require(
                response.storedHeaderFields,
                """
                FoundationNetworking no longer stores HTTPURLResponse._allHeaderFields as [String: String]: the \
                executor now reads allHeaderFields, about 3% more instructions per call. Find the field's new name \
                or type (HTTPURLResponse.storedHeaderFieldsOffset), or remove the read.
                """)
            #expect(stored == Self.allHeaderFields(response))
        }
    #endif

    /// Courier caches with ``ResponseCache``; the sessions it creates have no `URLCache`, which on Linux costs a
    /// directory scan on every task and is never written to.
    @Test func sessionsCourierCreatesHaveNoURLCache() {
        for executor in [URLSessionExecutor.shared, URLSessionExecutor()] {
            let configuration = executor.session.configuration
            #expect(configuration.urlCache == nil)
            #expect(configuration.requestCachePolicy == .reloadIgnoringLocalCacheData)
        }
        // A configuration passed in is the caller's, cache included.
        let given = URLSessionConfiguration.default
        given.urlCache = URLCache(memoryCapacity: 1_000, diskCapacity: 0, diskPath: nil)
        #expect(URLSessionExecutor(configuration: given).session.configuration.urlCache != nil)
    }
}
