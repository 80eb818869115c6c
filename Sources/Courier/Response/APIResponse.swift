import Foundation

/// The body of a response.
///
/// A struct rather than an enum so that new kinds of body (a downloaded file, a byte stream) can be
/// added without breaking code that reads ``data``.
public struct ResponseBody: Sendable, Hashable {
    enum Storage: Sendable, Hashable {
        case data(Data)
    }

    let storage: Storage

    /// A body held in memory.
    public static func data(_ data: Data) -> ResponseBody {
        ResponseBody(storage: .data(data))
    }

    /// An empty body.
    public static let empty = ResponseBody.data(Data())

    /// The bytes of an in-memory body.
    public var data: Data? {
        switch storage {
        case .data(let data): data
        }
    }

    /// Whether the body is empty.
    public var isEmpty: Bool {
        switch storage {
        case .data(let data): data.isEmpty
        }
    }
}

/// A response as an executor received it: status, headers, body, and the request that produced it.
public struct APIResponse: Sendable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: ResponseBody
    /// The URL the response came from, after any redirects.
    public var url: URL?
    /// The request that produced this response.
    public var request: APIRequest
    /// Set when the ``ResponseCache`` answered: the entry's age and whether the server revalidated it;
    /// `nil` for a response from the network.
    public var cacheHit: CacheHit? = nil

    /// Creates a response. Executors create these; tests can too.
    public init(
        statusCode: Int,
        headers: HTTPHeaders = [:],
        body: ResponseBody = .empty,
        url: URL? = nil,
        request: APIRequest
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url ?? request.url
        self.request = request
    }

    /// The body's bytes (empty when the body is not in memory).
    public var data: Data { body.data ?? Data() }

    /// The `Content-Type` header's value.
    public var contentType: String? { headers[.contentType] }

    /// The character set named by `Content-Type` (`charset=…`), if any.
    public var charset: String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else {
                continue
            }
            return pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }
}
