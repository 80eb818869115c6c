import Foundation

/// A decoded body together with the response it came from: the call form for lists and resources whose
/// headers matter (`ETag`, `Link`, `Total-Count`).
///
/// ```swift
/// let page: DecodedResponse<[Repo]> = try await GitHub.$repos.request(with: "apple")
/// print(page.value.count, page.headers["ETag"] ?? "-", page.statusCode)
/// ```
///
/// Every member of ``APIResponse`` reads through it (`page.statusCode`, `page.headers`, `page.url`,
/// `page.timeline`). Decoding works as in every typed call form: the same decoder, the same ``APIError`` on
/// failure.
@dynamicMemberLookup
public struct DecodedResponse<Value> {
    /// The decoded body.
    public var value: Value
    /// The response: status, headers, URL and the request that produced it.
    public var response: APIResponse

    /// Pairs a decoded value with its response.
    public init(value: Value, response: APIResponse) {
        self.value = value
        self.response = response
    }

    /// A member of the response: `statusCode`, `headers`, `url`, `timeline`, `cacheHit`, ….
    public subscript<Member>(dynamicMember keyPath: KeyPath<APIResponse, Member>) -> Member {
        response[keyPath: keyPath]
    }
}

extension DecodedResponse: Sendable where Value: Sendable {}
