import Foundation

/// A decoded body together with the response it came from: the call form for lists and resources whose
/// headers matter (`ETag`, `Link`, `Total-Count`).
///
/// ```swift
/// let page: DecodedResponse<[Repo]> = try await GitHub.$repos.request(with: "apple")
/// print(page.value.count, page.headers["ETag"] ?? "-", page.statusCode)
/// ```
///
/// Decoding works as in every typed call form: the same decoder, the same ``APIError`` on failure.
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

    /// The HTTP status code.
    public var statusCode: Int { response.statusCode }
    /// The response's header fields.
    public var headers: HTTPHeaders { response.headers }
    /// The URL the response came from, after any redirects.
    public var url: URL? { response.url }
    /// What happened during the call, decoding included; `nil` without ``APIConfiguration/observers``.
    public var timeline: CallTimeline? { response.timeline }
}

extension DecodedResponse: Sendable where Value: Sendable {}
