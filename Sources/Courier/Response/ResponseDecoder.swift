import Foundation

/// Turns a response body into a value. A call decodes with its own `decoder:` argument, else its endpoint's
/// `decoder:`, else ``APIConfiguration/responseDecoder`` (JSON by default).
///
/// ## Implementing
///
/// A decoder for a format Courier does not ship, here a line-per-record text format:
///
/// ```swift
/// struct LinesDecoder: ResponseDecoder {
///     func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
///         let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
///         guard let value = lines as? Value else {
///             throw DecodingError.typeMismatch(type, .init(codingPath: [], debugDescription: "expected [String]"))
///         }
///         return value
///     }
/// }
///
/// let names: [String] = try await Files.$list.request(decoder: LinesDecoder())
/// ```
public protocol ResponseDecoder: Sendable {
    /// Decodes a value of `type` from `data`.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value
}

/// Decodes JSON with a `JSONDecoder`.
public struct JSONResponseDecoder: ResponseDecoder {
    /// The decoder used.
    let decoder: JSONDecoder

    /// Decodes with `decoder` (``ResponseDecoder/json(_:)`` is the public spelling).
    init(_ decoder: JSONDecoder = APIConfiguration.makeDefaultDecoder()) {
        self.decoder = decoder
    }

    /// Decodes a value of `type` from JSON `data`: the value `decoder` would return, or the error it would
    /// throw. When `decoder`'s settings allow, Courier's own, faster JSON reader does the work.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try FastJSONDecoding.decode(type, from: data, with: decoder)
    }
}

/// Decodes XML or binary property lists with a `PropertyListDecoder`.
public struct PropertyListResponseDecoder: ResponseDecoder {
    /// Creates a property-list decoder (``ResponseDecoder/propertyList`` is the public spelling).
    init() {}

    /// Decodes a value of `type` from property-list `data`.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try PropertyListDecoder().decode(type, from: data)
    }
}

extension ResponseDecoder where Self == JSONResponseDecoder {
    /// JSON with the given decoder.
    public static func json(_ decoder: JSONDecoder) -> JSONResponseDecoder { JSONResponseDecoder(decoder) }
}

extension ResponseDecoder where Self == PropertyListResponseDecoder {
    /// Property lists.
    public static var propertyList: PropertyListResponseDecoder { PropertyListResponseDecoder() }
}

@_spi(Testing)
extension JSONResponseDecoder {
    /// The value Courier's own JSON decoder reads from `data`, `nil` when it leaves `data` to `JSONDecoder`
    /// (for the differential fuzzer, which checks the two agree).
    public func courierAttempt<Value: Decodable>(_ type: Value.Type, from data: Data) -> Value? {
        FastJSONDecoding.attempt(type, from: data, with: decoder)
    }
}
