import Foundation

/// The parameters an ``APIParameterBuilder`` produces for one call: an ordered list of named values, a
/// list of values, or an `Encodable` model.
///
/// You rarely name this type: a builder's closure returns a dictionary literal (kept in the order it
/// is written, values of mixed types, `nil` values dropped), an array literal, or a model.
///
/// ```swift
/// .init { ["owner": $0.owner, "per_page": 50, "labels": ["bug", "ui"], "state": $0.state] }
/// ```
///
/// Names that a path template uses (`/repos/{owner}`) fill the path and are removed from the query or
/// body. To build parameters step by step, start from `[:]` and use ``append(_:_:)``.
public struct Parameters: Sendable, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral {
    /// A parameter value: any `Encodable & Sendable` value, or `nil` to leave the name out.
    public typealias Value = (any Encodable & Sendable)?

    enum Storage: Sendable {
        /// Named values in order; `nil` values are kept (and skipped by every reader) so that a dictionary
        /// literal's storage is used as it is, without a filtered copy.
        case named([(String, Value)])
        case list([any Encodable & Sendable])
        case model(any Encodable & Sendable)
        /// A body of its own (raw bytes, a file, a stream) with its content type, and named values for the
        /// path and the query string.
        case body(RequestBody, contentType: String?, named: [(String, Value)])
        /// Names were appended to a list or a model; building the request reports it.
        case mixed
    }

    var storage: Storage

    /// No parameters.
    static let none = Parameters(storage: .named([]))

    /// How many arrays and objects may sit inside each other in a call's parameters: 100.
    ///
    /// The parameters themselves (the dictionary, list or model) are the first level, so
    /// `["a": [[1]]]` has three. Deeper parameters fail with
    /// ``APIError/RequestProblem/unencodableParameters`` (the underlying `EncodingError` says so)
    /// before anything recurses further, whichever encoding and encoder is used.
    @_spi(Testing) public static let maximumDepth = 100

    init(storage: Storage) {
        self.storage = storage
    }

    /// Creates named parameters from a dictionary literal, keeping its order and dropping `nil` values.
    /// A name may appear more than once; each occurrence is sent.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self.storage = .named(elements)
    }

    /// Creates a list of values from an array literal, sent as a JSON array body; `nil` values are dropped.
    public init(arrayLiteral elements: Value...) {
        self.storage = .list(elements.compactMap { $0 })
    }

    /// Creates parameters from an `Encodable` model. Its top-level keys act as names: path templates take
    /// theirs, and the rest go to the query or body.
    @_spi(Testing) public init(model: some Encodable & Sendable) {
        self.storage = .model(model)
    }

    /// Appends a named value; `nil` is ignored.
    ///
    /// Named values cannot be mixed with a non-empty list or a model: building a request from such
    /// parameters fails with ``APIError/RequestProblem/mixedParameters``.
    public mutating func append(_ name: String, _ value: Value) {
        guard let value else { return }
        switch storage {
        case .named(var named):
            storage = .mixed  // release the array's storage so the append below does not copy it
            named.append((name, value))
            storage = .named(named)
        case .list(let list) where list.isEmpty:
            storage = .named([(name, value)])
        case .body(let body, let contentType, var named):
            named.append((name, value))
            storage = .body(body, contentType: contentType, named: named)
        case .list, .model, .mixed:
            storage = .mixed
        }
    }

    /// Whether there is nothing to send.
    var isEmpty: Bool {
        switch storage {
        case .named(let named): !named.contains { $0.1 != nil }
        case .list(let list): list.isEmpty
        case .model, .mixed, .body: false
        }
    }

    // MARK: - Bodies of their own

    /// `body` sent as it is — bytes, a file streamed from disk, or a one-shot stream of chunks — with
    /// `contentType` (unless a header sets one; `nil` for none); `parameters` fill the path placeholders and
    /// the rest go to the query string. Named parameters only: a list or a model fails with
    /// ``APIError/RequestProblem/mixedParameters``.
    ///
    /// ```swift
    /// @PUT("/avatars/{user}")
    /// static var avatar: APIParameterBuilder<(user: String, png: Data)>? = .init {
    ///     .body(.data($0.png), contentType: "image/png", parameters: ["user": $0.user])
    /// }
    /// ```
    ///
    /// A file that cannot be read fails with ``APIError/RequestProblem/unreadableBody`` before anything is
    /// sent; a stream is never retried.
    public static func body(_ body: RequestBody, contentType: String?, parameters: Parameters = [:]) -> Parameters {
        guard case .named(let named) = parameters.storage else { return Parameters(storage: .mixed) }
        return Parameters(storage: .body(body, contentType: contentType, named: named))
    }
}
