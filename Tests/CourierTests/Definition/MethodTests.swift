import CourierTesting
import Foundation
import Testing

@testable import Courier

enum PurgeMethod: HTTPMethodMarker {
    static let method: HTTPMethod = "PURGE"
}
typealias PURGE<Parameter> = API<Parameter, PurgeMethod>

// Markers without a `method` of their own stand for their type name in capitals; TRACE and CONNECT keep their
// rules (query string, no body) though Courier has no marker for them.
enum Trace: HTTPMethodMarker {}
enum Connect: HTTPMethodMarker {}
typealias TRACE<Parameter> = API<Parameter, Trace>
typealias CONNECT<Parameter> = API<Parameter, Connect>

@Suite struct MethodTests {
    static let aliases: [(APIEndpoint, String, ParameterEncoding)] = [
        (GET<Void>("/r").endpoint, "GET", .query),
        (POST<Void>("/r").endpoint, "POST", .json),
        (PUT<Void>("/r").endpoint, "PUT", .json),
        (PATCH<Void>("/r").endpoint, "PATCH", .json),
        (DELETE<Void>("/r").endpoint, "DELETE", .query),
        (HEAD<Void>("/r").endpoint, "HEAD", .query),
        (OPTIONS<Void>("/r").endpoint, "OPTIONS", .query),
        (QUERY<Void>("/r").endpoint, "QUERY", .json),
        (TRACE<Void>("/r").endpoint, "TRACE", .query),
        (CONNECT<Void>("/r").endpoint, "CONNECT", .query),
        (PURGE<Void>("/r").endpoint, "PURGE", .json),
    ]

    @Test(arguments: aliases)
    func aliasCarriesItsMethodAndDefaultPlacement(
        endpoint: APIEndpoint,
        method: String,
        placement: ParameterEncoding
    ) throws {
        #expect(endpoint.method.rawValue == method)
        #expect(endpoint.effectiveEncoding == placement)
        #expect(endpoint.description == "\(method) /r")
    }

    typealias Build = @Sendable () throws -> APIRequest

    static let builds: [(String, Build)] = [
        (
            "GET",
            { try GET<Int>(wrappedValue: .init { ["q": $0] }, "/r").makeRequest(with: 1, using: testConfiguration) }
        ),
        (
            "POST",
            { try POST<Int>(wrappedValue: .init { ["q": $0] }, "/r").makeRequest(with: 1, using: testConfiguration) }
        ),
        (
            "PUT",
            { try PUT<Int>(wrappedValue: .init { ["q": $0] }, "/r").makeRequest(with: 1, using: testConfiguration) }
        ),
        (
            "PATCH",
            { try PATCH<Int>(wrappedValue: .init { ["q": $0] }, "/r").makeRequest(with: 1, using: testConfiguration) }
        ),
        (
            "DELETE",
            { try DELETE<Int>(wrappedValue: .init { ["q": $0] }, "/r").makeRequest(with: 1, using: testConfiguration) }
        ),
        (
            "HEAD",
            { try HEAD<Int>(wrappedValue: .init { ["q": $0] }, "/r").makeRequest(with: 1, using: testConfiguration) }
        ),
        (
            "OPTIONS",
            { try OPTIONS<Int>(wrappedValue: .init { ["q": $0] }, "/r").makeRequest(with: 1, using: testConfiguration) }
        ),
        (
            "QUERY",
            { try QUERY<Int>(wrappedValue: .init { ["q": $0] }, "/r").makeRequest(with: 1, using: testConfiguration) }
        ),
        (
            "TRACE",
            { try TRACE<Int>(wrappedValue: .init { ["q": $0] }, "/r").makeRequest(with: 1, using: testConfiguration) }
        ),
        (
            "CONNECT",
            { try CONNECT<Int>(wrappedValue: .init { ["q": $0] }, "/r").makeRequest(with: 1, using: testConfiguration) }
        ),
        (
            "PURGE",
            { try PURGE<Int>(wrappedValue: .init { ["q": $0] }, "/r").makeRequest(with: 1, using: testConfiguration) }
        ),
    ]

    @Test(arguments: builds)
    func aliasBuildsARequestWithItsMethodAndPlacement(method: String, build: Build) throws {
        let request = try build()
        #expect(request.method.rawValue == method)
        if ["GET", "HEAD", "DELETE", "OPTIONS", "TRACE", "CONNECT"].contains(method) {
            #expect(request.url.absoluteString == "https://api.example.com/v2/r?q=1")
            #expect(request.body.isEmpty)
            #expect(request.headers[.contentType] == nil)
        } else {
            #expect(request.url.absoluteString == "https://api.example.com/v2/r")
            #expect(request.bodyText == #"{"q":1}"#)
            #expect(request.headers[.contentType] == "application/json")
        }
    }

    @Test func customMethodBuildsWithABody() throws {
        let purge = PURGE<String>(wrappedValue: .init { ["key": $0, "soft": true] }, "/cache/{key}")
        let request = try purge.makeRequest(with: "home", using: testConfiguration)
        #expect(request.method == "PURGE")
        #expect(request.url.path == "/v2/cache/home")
        #expect(request.bodyText == #"{"soft":true}"#)
    }

    @Test func idempotency() {
        let idempotent: [HTTPMethod] = [.get, .head, .put, .delete, .options, "TRACE", .query]
        let notIdempotent: [HTTPMethod] = [.post, .patch, "CONNECT", "PURGE"]
        #expect(idempotent.allSatisfy { $0.isIdempotent })
        #expect(!notIdempotent.contains { $0.isIdempotent })
    }
}
