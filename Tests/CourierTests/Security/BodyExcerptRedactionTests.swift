import Courier
import CourierTesting
import Foundation
import Testing

/// A secret a server puts in a response body never reaches `error.bodyExcerpt` (nor the error's description,
/// `dump` or logs): the rules that mask secret keys in request bodies mask them in every body excerpt, whether
/// the body is valid JSON, JSON cut short, a form or text with `name=value` pairs.
@Suite struct BodyExcerptRedactionTests {
    static let endpoint = POST<Void>("/oauth/token")

    /// The error a call gets when the server answers `status` with `body`.
    static func error(
        _ body: String, status: Int = 400, contentType: String = "application/json"
    ) async throws -> APIError {
        let executor = StubExecutor().stubEverything(
            with: .data(Data(body.utf8), status: status, headers: ["Content-Type": contentType]))
        return try await #require(throws: APIError.self) {
            try await endpoint.request(using: testConfiguration.with { $0.executor = executor })
        }
    }

    @Test(arguments: [
        #"{"error":"invalid_grant","access_token":"at-SECRET-1"}"#,
        #"{"error": "x", "accessToken" : "at-SECRET-1", "n": 1}"#,
        #"{"data":{"session":{"refresh_token":"at-SECRET-1"}}}"#,
        #"{"tokens":[{"id_token":"at-SECRET-1"}]}"#,
        #"{"credentials":{"user":"u","key":"at-SECRET-1"}}"#,
        #"{"api_key":12345678901,"client_secret":"at-SECRET-1"}"#,
        #"{"error":"x","access_token":"at-SECRET-1"#,  // cut short: not valid JSON
        #"{"message": "a \"quoted\" word", "password": "at-SECRET-1\"tail"}"#,
        "   [{\"token\":\n\"at-SECRET-1\"}]",
    ])
    func secretKeysInJSONAreMasked(body: String) async throws {
        let error = try await Self.error(body)
        let excerpt = try #require(error.bodyExcerpt)
        #expect(!excerpt.contains("at-SECRET-1"), "\(excerpt)")
        #expect(!excerpt.contains("12345678901"), "\(excerpt)")
        #expect(excerpt.contains("***"))
        var dumped = ""
        dump(error, to: &dumped)
        #expect(!dumped.contains("at-SECRET-1"))
        #expect(!String(reflecting: error).contains("at-SECRET-1"))
    }

    @Test func theExcerptKeepsTheBodysOwnTextAroundTheMask() async throws {
        let error = try await Self.error(
            #"{"error":"invalid_grant", "access_token": "at-SECRET-1", "expires_in": 3600}"#)
        #expect(error.bodyExcerpt == #"{"error":"invalid_grant", "access_token": "***", "expires_in": 3600}"#)
    }

    @Test(arguments: [
        ("application/x-www-form-urlencoded", "error=x&access_token=at-SECRET-1&scope=read"),
        ("text/plain", "error=invalid_grant&refresh_token=at-SECRET-1"),
    ])
    func secretPairsInFormsAndTextAreMasked(contentType: String, body: String) async throws {
        let error = try await Self.error(body, contentType: contentType)
        let excerpt = try #require(error.bodyExcerpt)
        #expect(!excerpt.contains("at-SECRET-1"), "\(excerpt)")
        #expect(excerpt.contains("error="))
    }

    @Test func publicValuesStayReadable() async throws {
        let error = try await Self.error(#"{"error":"invalid_grant","token_type":"bearer","nextPageToken":"p2"}"#)
        #expect(error.bodyExcerpt == #"{"error":"invalid_grant","token_type":"bearer","nextPageToken":"p2"}"#)
    }

    @Test func aSecretPastTheCutIsNeverHalfShown() async throws {
        let padding = String(repeating: "a", count: 180)
        let error = try await Self.error(#"{"note":"\#(padding)","access_token":"at-SECRET-1-at-SECRET-1"}"#)
        let excerpt = try #require(error.bodyExcerpt)
        #expect(!excerpt.contains("at-SEC"))
        #expect(excerpt.hasSuffix("…"))
    }

    @Test func aDecodingFailuresExcerptIsMaskedToo() async throws {
        struct User: Decodable { let id: Int }
        let executor = StubExecutor().stubEverything(
            with: .json(#"{"id":"not a number","session_token":"at-SECRET-1"}"#))
        let error = try await #require(throws: APIError.self) {
            let _: User = try await GET<Void>("/me").request(using: testConfiguration.with { $0.executor = executor })
        }
        #expect(error.bodyExcerpt?.contains("at-SECRET-1") == false)
        #expect(!String(reflecting: error).contains("at-SECRET-1"))
    }
}
