import Courier
import Foundation

extension APIRequest {
    /// The body as UTF-8 text, or `nil` when there is no in-memory body.
    public var bodyText: String? {
        body.data.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Decodes the JSON body as `type`.
    public func decodedBody<Value: Decodable>(
        as type: Value.Type,
        using decoder: JSONDecoder = APIConfiguration.makeDefaultDecoder()
    ) throws -> Value {
        try decoder.decode(type, from: body.data ?? Data())
    }

    /// The fields of an `application/x-www-form-urlencoded` body, in order, decoded.
    public var formFields: [URLQueryItem] {
        guard let text = bodyText, !text.isEmpty else { return [] }
        return text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return URLQueryItem(name: decode(parts[0]), value: parts.count > 1 ? decode(parts[1]) : nil)
        }
    }

    /// The value of the first query item named `name`, decoded.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}
