import Foundation

/// Writes an endpoint's parameters into a request: into the query string or as a body of some format.
///
/// For one endpoint, a builder that returns the body (`.body(data, contentType:)` or `Data`) is enough; an
/// encoder is for a format many endpoints share (see "Formats of your own" in <doc:Transfers>).
///
/// Courier's own encodings are instances: `QueryParameterEncoder`, `JSONParameterEncoder`,
/// `FormParameterEncoder` and `MultipartParameterEncoder`. Add a format (XML, protobuf, MessagePack) by
/// implementing one and naming it in an endpoint's encoding; Courier itself needs no change.
///
/// An encoder sees only the parameters that are left: names that filled a path placeholder, and the
/// encoding's ``ParameterEncoding/queryNames``, are already taken. It runs while the request is built, before
/// any I/O; an error it throws fails the call with ``APIError/RequestProblem/unencodableParameters``.
///
/// ## Implementing
///
/// A tiny XML encoder that writes each field as an element, with the same flattening rules as a form
/// (`user[name]`, repeated keys for arrays, the date style of the options):
///
/// ```swift
/// struct XMLParameterEncoder: ParameterEncoder {
///     var root = "request"
///
///     func encode(
///         _ parameters: EncodableParameters,
///         context: ParameterEncodingContext
///     ) throws -> EncodedParameters {
///         func escaped(_ text: String) -> String {
///             text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
///                 .replacingOccurrences(of: ">", with: "&gt;")
///         }
///         var xml = "<\(root)>"
///         for field in try parameters.textFields(context.options) {
///             xml += "<field name=\"\(escaped(field.name))\">\(escaped(field.value))</field>"
///         }
///         xml += "</\(root)>"
///         return .body(.data(Data(xml.utf8)), contentType: "application/xml")
///     }
/// }
///
/// @MainActor enum Orders {
///     @POST("/orders", encoding: ParameterEncoding(XMLParameterEncoder()))
///     static var create: APIParameterBuilder<Order>? = .init { $0 }
/// }
/// ```
///
/// An encoder is `Hashable` so that encodings compare; a struct with hashable stored properties gets it for free.
public protocol ParameterEncoder: Sendable, Hashable {
    /// Whether the encoder writes a body; `false` for the query string. Endpoints whose method cannot carry a
    /// body (`GET`, `HEAD`, `TRACE`, `CONNECT`) refuse encoders that write one. The default is `true`.
    var writesBody: Bool { get }

    /// Writes `parameters` as a query string or a body.
    func encode(_ parameters: EncodableParameters, context: ParameterEncodingContext) throws -> EncodedParameters
}

extension ParameterEncoder {
    /// `true`: encoders write a body unless they say otherwise.
    public var writesBody: Bool { true }
}

/// What a `ParameterEncoder` may need besides the parameters.
public struct ParameterEncodingContext: Sendable {
    /// The endpoint being called.
    public let endpoint: APIEndpoint
    /// The value options in effect: the encoding's own, else ``APIConfiguration/parameterOptions``.
    public let options: ParameterEncodingOptions
    /// ``APIConfiguration/encoder``; when the endpoint's encoding has its own options, a copy that writes dates
    /// in their style.
    public let jsonEncoder: JSONEncoder

    /// Creates a context (Courier makes one for every request it builds).
    public init(endpoint: APIEndpoint, options: ParameterEncodingOptions, jsonEncoder: JSONEncoder) {
        self.endpoint = endpoint
        self.options = options
        self.jsonEncoder = jsonEncoder
    }
}

/// What a `ParameterEncoder` produced: a query string to append, or a body and its content type.
public struct EncodedParameters: Sendable {
    /// Percent-encoded `name=value` pairs joined with `&`, appended to the URL's query; `nil` for none.
    ///
    /// The request keeps its query as items: a query set here is read into items once (split on `&`, names from
    /// values on the first `=`), and Courier's own query encoder hands its items over without writing this text.
    public var query: String? {
        get { queryItems.map(\.text) }
        set { queryItems = newValue.map { EncodedQuery(parsing: Substring($0)) } }
    }
    /// The query as items; `nil` for none.
    var queryItems: EncodedQuery?
    /// The body.
    public var body: RequestBody
    /// The body's `Content-Type`, set unless a header already sets one.
    public var contentType: String?

    /// Creates an outcome; by default nothing at all.
    public init(query: String? = nil, body: RequestBody = .empty, contentType: String? = nil) {
        self.queryItems = query.map { EncodedQuery(parsing: Substring($0)) }
        self.body = body
        self.contentType = contentType
    }

    /// A body with its content type.
    public static func body(_ body: RequestBody, contentType: String?) -> EncodedParameters {
        EncodedParameters(body: body, contentType: contentType)
    }

    /// Nothing to add.
    public static let none = EncodedParameters()
}

/// The parameters left for a `ParameterEncoder`: a builder's named values, list or model, minus the names
/// that filled the path or go to the query string.
public struct EncodableParameters: Sendable {
    enum Content: Sendable {
        case named([(String, Parameters.Value)])
        case list([any Encodable & Sendable])
        case model(any Encodable & Sendable)
    }

    let content: Content
    /// Names already taken (path placeholders, query names): skipped.
    let excluded: [String]
    /// The only top-level names taken, when not `nil` (an encoding's ``ParameterEncoding/queryNames``).
    let included: [String]?

    init(_ content: Content, excluding excluded: [String], only included: [String]? = nil) {
        self.content = content
        self.excluded = excluded
        self.included = included
    }

    /// Whether the top-level name `name` is one of these parameters.
    private func takes(_ name: String) -> Bool {
        (excluded.isEmpty || !excluded.contains(name)) && (included.map { $0.contains(name) } ?? true)
    }

    /// Whether nothing is left: no named value (other than `nil` ones), an empty list. A model is never empty.
    public var isEmpty: Bool {
        switch content {
        case .named(let named): !named.contains { $0.1 != nil && takes($0.0) }
        case .list(let list): list.isEmpty
        case .model: false
        }
    }

    /// The named values in order, `nil` ones left out; empty for a list or a model.
    public var namedValues: [(name: String, value: any Encodable & Sendable)] {
        guard case .named(let named) = content else { return [] }
        return named.compactMap { name, value in
            guard let value, takes(name) else { return nil }
            return (name, value)
        }
    }

    /// All the parameters as one `Encodable` value, for an encoder of your own (`JSONEncoder`, `PropertyListEncoder`):
    /// named values as a keyed container in their order, a list as an unkeyed one, a model without its taken
    /// top-level keys.
    public var encodable: any Encodable & Sendable {
        switch content {
        case .named: NamedValues(values: namedValues)
        case .list(let list): ListValues(values: list)
        case .model(let model): excluded.isEmpty ? model : FilteredModel(model: model, excluded: Set(excluded))
        }
    }

    /// The parameters flattened into text fields with the query-string rules and `options` (arrays, booleans,
    /// dates, `user[name]` nesting), in order, not percent-encoded. A list has no names and fails with
    /// ``APIError/RequestProblem/unsupportedParameters``.
    public func textFields(_ options: ParameterEncodingOptions) throws -> [(name: String, value: String)] {
        var pairs = TextFieldCollector(options: options)
        try add(to: &pairs)
        return pairs.fields
    }

    /// The text of a `String` or an `Int`, else `nil`. The value is opened and its type compared first: a cast
    /// from the existential costs several hundred instructions, one from the opened type whose type is known to
    /// match a fraction of that.
    private static func scalarText(_ value: any Encodable & Sendable) -> String? {
        func text<Value: Encodable & Sendable>(_ value: Value) -> String? {
            if Value.self == String.self { return value as? String }
            if Value.self == Int.self { return (value as? Int).map { String($0) } }
            return nil
        }
        return text(value)
    }

    /// Adds the parameters to `pairs` (a query string, a form body or a field list).
    func add<Pairs: ParameterPairs>(to pairs: inout Pairs) throws {
        switch content {
        case .named(let named):
            for case (let name, let value?) in named where takes(name) {
                // The common scalar types skip ParameterValue; the text is the same.
                if let text = Self.scalarText(value) {
                    pairs.add(name, text: text)
                } else if let delimited = value as? DelimitedValue {
                    pairs.add(name, delimited: delimited)
                } else {
                    try pairs.add(name, try ParameterValue.make(from: value, depth: 1))
                }
            }
        case .list:
            throw RequestProblemError(.unsupportedParameters)
        case .model(let model):
            guard case .object(let members) = try ParameterValue.make(from: model, depth: 0) else {
                throw RequestProblemError(.unsupportedParameters)
            }
            for member in members where takes(member.key) {
                try pairs.add(member.key, member.value)
            }
        }
    }
}

/// Named values as one keyed `Encodable`, in order.
private struct NamedValues: Encodable, Sendable {
    let values: [(name: String, value: any Encodable & Sendable)]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: NameKey.self)
        for (name, value) in values {
            try container.encode(value, forKey: NameKey(name))
        }
    }
}

/// A list as one unkeyed `Encodable`.
private struct ListValues: Encodable, Sendable {
    let values: [any Encodable & Sendable]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for value in values {
            try container.encode(value)
        }
    }
}

/// A model without some of its top-level keys.
private struct FilteredModel: Encodable, Sendable {
    let model: any Encodable & Sendable
    let excluded: Set<String>

    func encode(to encoder: any Encoder) throws {
        try KeyFilteringEncodable(model, excluding: excluded).encode(to: encoder)
    }
}

private struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Writes parameters into the URL's query string, RFC 3986 percent-encoded (see
/// <doc:ParametersAndEncodings>). The default for `GET`, `HEAD`, `DELETE`, `OPTIONS`, `TRACE` and `CONNECT`.
struct QueryParameterEncoder: ParameterEncoder {
    /// Creates the encoder.
    init() {}

    /// `false`: the query string is not a body.
    var writesBody: Bool { false }

    /// Writes the parameters as `name=value` items.
    func encode(_ parameters: EncodableParameters, context: ParameterEncodingContext) throws -> EncodedParameters {
        let query = try Self.query(of: parameters, options: context.options)
        guard !query.isEmpty else { return .none }
        var encoded = EncodedParameters()
        encoded.queryItems = query
        return encoded
    }

    /// `parameters` as query items: the one writer of a request's query from parameters (the query encoding, and
    /// the names a body encoding sends in the query).
    static func query(of parameters: EncodableParameters, options: ParameterEncodingOptions) throws -> EncodedQuery {
        if case .named(let named) = parameters.content, named.isEmpty { return EncodedQuery() }
        var pairs = QueryEncoder(options: options, spaceAsPlus: false, capacity: 8)
        try parameters.add(to: &pairs)
        return pairs.query
    }
}

/// Writes parameters as an `application/x-www-form-urlencoded; charset=utf-8` body: the pairs of a query
/// string, with a space written as `+`.
struct FormParameterEncoder: ParameterEncoder {
    /// Creates the encoder.
    init() {}

    /// Writes the parameters as a form body.
    func encode(_ parameters: EncodableParameters, context: ParameterEncodingContext) throws -> EncodedParameters {
        var pairs = QueryEncoder(options: context.options, spaceAsPlus: true, capacity: 8)
        try parameters.add(to: &pairs)
        return pairs.isEmpty ? .none : .body(.data(Data(pairs.query.bytes)), contentType: Self.contentType)
    }

    static let contentType = "application/x-www-form-urlencoded; charset=utf-8"
}

/// Writes parameters as a JSON body with the context's `JSONEncoder` (``APIConfiguration/encoder``): one rule set
/// for dictionary literals, lists and models alike, so its key, date and formatting strategies apply to all.
/// The default for `POST`, `PUT`, `PATCH` and `QUERY`.
///
/// Named values are encoded in the order written (the default encoder then sorts keys); `nil` ones are left
/// out; a model always makes a body (`{}` at least). Nesting deeper than 100 (`Parameters.maximumDepth`) and a NaN
/// `Decimal` are rejected before the encoder runs. A dictionary literal of strings, numbers, booleans and arrays
/// of them is written without a round trip through `Encodable`, into the same bytes the encoder writes, unless
/// the encoder's settings are ones only it knows (pretty printing, a key strategy).
struct JSONParameterEncoder: ParameterEncoder {
    /// Creates the encoder.
    init() {}

    /// Writes the parameters as JSON.
    func encode(_ parameters: EncodableParameters, context: ParameterEncodingContext) throws -> EncodedParameters {
        if parameters.isEmpty { return .none }
        if case .named(let named) = parameters.content,
            let body = JSONWriter.object(named, excluding: parameters.excluded, encoder: context.jsonEncoder)
        {
            return .body(.data(body), contentType: Self.contentType)
        }
        let value = parameters.encodable
        // The encoder recurses without a limit and writes a NaN Decimal as `NaN`.
        try DepthProbe.check(value, for: context.jsonEncoder)
        return .body(.data(try context.jsonEncoder.encode(value)), contentType: Self.contentType)
    }

    static let contentType = "application/json"
}

/// Writes parameters as a `multipart/form-data` body (RFC 7578), streamed part by part (`MultipartForm`).
///
/// Each named value is a part, in order:
/// - ``MultipartFile`` values (`.file(url)`, `.data(bytes, filename:)`) are file parts;
/// - `Data` values are file parts without a filename (`application/octet-stream`);
/// - everything else is a text field, flattened like a form (`tags=a`, `tags=b`; `user[name]=x`) with the options.
///
/// ```swift
/// @POST("/photos", encoding: .multipart)
/// static var upload: APIParameterBuilder<(title: String, photo: URL)>? = .init {
///     ["title": $0.title, "photo": .file($0.photo, contentType: "image/jpeg")]
/// }
/// ```
///
/// A model's top-level members become text fields. `Content-Length` is set when every part's size is known.
struct MultipartParameterEncoder: ParameterEncoder {
    /// Creates the encoder.
    init() {}

    /// Writes the parameters as a multipart form.
    func encode(_ parameters: EncodableParameters, context: ParameterEncodingContext) throws -> EncodedParameters {
        var parts: [MultipartPart] = []
        switch parameters.content {
        case .named:
            for (name, value) in parameters.namedValues {
                switch value {
                case let file as MultipartFile:
                    parts.append(
                        MultipartPart(
                            name: name, filename: file.filename, contentType: file.contentType, content: file.content))
                case let data as Data:
                    parts.append(
                        MultipartPart(name: name, contentType: "application/octet-stream", content: .data(data)))
                default:
                    var pairs = TextFieldCollector(options: context.options)
                    if let text = value as? String {
                        pairs.add(name, text: text)
                    } else {
                        try pairs.add(name, ParameterValue.make(from: value, depth: 1))
                    }
                    parts += pairs.fields.map { MultipartPart.field($0.name, $0.value) }
                }
            }
        case .list, .model:
            parts = try parameters.textFields(context.options).map { MultipartPart.field($0.name, $0.value) }
        }
        let form = MultipartForm(parts: parts)
        return .body(.multipart(form), contentType: form.contentType)
    }
}
