import Foundation

/// Lets the generic decoding path recognise `Optional` result types.
protocol OptionalResult {
    static var noneValue: Self { get }
    static var wrappedType: any Decodable.Type { get }
    static func wrapping(_ value: Any) -> Self?
}

extension Optional: OptionalResult where Wrapped: Decodable {
    static var noneValue: Self { nil }
    static var wrappedType: any Decodable.Type { Wrapped.self }
    static func wrapping(_ value: Any) -> Self? {
        (value as? Wrapped).map { .some($0) }
    }
}

/// The decoding step of the typed call forms.
enum ResponseDecoding {
    /// `decoder`, or for a key-path decoder without a base (`.at("data")`) the same keys over JSON: what the
    /// configuration stores, decided once when it is set.
    static func completed(_ decoder: any ResponseDecoder) -> any ResponseDecoder {
        guard let keyed = decoder as? KeyPathResponseDecoder, keyed.base == nil else { return decoder }
        return KeyPathResponseDecoder(keys: keyed.keys, base: JSONResponseDecoder())
    }

    static func decode<Output: Decodable>(
        _ type: Output.Type,
        from response: APIResponse,
        decoder: any ResponseDecoder
    ) throws(APIError) -> Output {
        do {
            // `_isOptional` reads the type's kind; the cast looks the conformance up (several hundred
            // instructions on every call).
            if _isOptional(Output.self), let optional = Output.self as? any OptionalResult.Type {
                if response.body.isEmpty, let none = optional.noneValue as? Output { return none }
                let wrapped = try value(optional.wrappedType, response, decoder)
                if let output = optional.wrapping(wrapped) as? Output { return output }
            }
            return try value(type, response, decoder)
        } catch let error as APIError {
            throw error
        } catch {
            var error = error
            if response.body.isEmpty, !(Output.self is any OptionalResult.Type) {
                // Say so plainly: an empty body is the usual cause, and an Optional result accepts it.
                error = DecodingError.valueNotFound(
                    Output.self,
                    .init(codingPath: [], debugDescription: "the response body is empty", underlyingError: error))
            }
            throw APIError(
                .decodingFailed,
                endpoint: response.request.endpoint,
                request: response.request,
                response: response,
                underlyingError: error
            )
        }
    }

    private static func value<Value: Decodable>(
        _ type: Value.Type,
        _ response: APIResponse,
        _ decoder: any ResponseDecoder
    ) throws -> Value {
        if Value.self == Data.self || Value.self == String.self, !(decoder is KeyPathResponseDecoder) {
            if let data = response.data as? Value { return data }
            if let string = try text(of: response) as? Value { return string }
        }
        return try decoder.decode(type, from: response.data)
    }

    /// The body as text in the charset its `Content-Type` names, UTF-8 when it names none.
    static func text(of response: APIResponse) throws -> String {
        let encoding = response.charset.flatMap(Self.encoding(named:)) ?? .utf8
        guard let text = String(data: response.data, encoding: encoding) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "the body is not valid \(response.charset ?? "UTF-8") text")
            )
        }
        return text
    }

    private static func encoding(named name: String) -> String.Encoding? {
        switch name.lowercased() {
        case "utf-8", "utf8": .utf8
        case "us-ascii", "ascii": .ascii
        case "iso-8859-1", "latin1", "iso_8859-1": .isoLatin1
        case "windows-1252", "cp1252": .windowsCP1252
        case "utf-16": .utf16
        case "utf-16le": .utf16LittleEndian
        case "utf-16be": .utf16BigEndian
        case "utf-32": .utf32
        default: nil
        }
    }
}
