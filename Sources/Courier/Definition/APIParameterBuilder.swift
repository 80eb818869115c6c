import Foundation

/// Turns the value an endpoint is called with into the ``Parameters`` of the request.
///
/// A builder is the wrapped value of an endpoint. Its closure may return:
/// - a dictionary literal with values of mixed types: `.init { ["id": $0.id, "tags": $0.tags] }`;
/// - an array literal, sent as a JSON array body: `.init { [$0.first, $0.second] }`;
/// - any `Encodable & Sendable` model: `.init { $0 }`;
/// - a body of its own: `Data` (`.init { $0 }` sends the bytes as they are), a file `URL` (`.init { $0 }`
///   streams the file from disk), or ``Parameters/body(_:contentType:parameters:)`` with a content type and
///   path or query values.
///
/// A `nil` builder means the endpoint has no parameters; on an endpoint whose parameter is not `Void` (and
/// that no `headerBuilder` reads) it is a definition error,
/// ``APIError/RequestProblem/missingParameterBuilder(_:)``, so a value is never silently dropped.
public struct APIParameterBuilder<Input>: Sendable {
    let build: @Sendable (Input) -> Parameters

    /// Creates a builder whose closure returns a dictionary or array literal.
    public init(_ build: @escaping @Sendable (Input) -> Parameters) {
        self.build = build
    }

    /// Creates a builder whose closure returns an `Encodable` model, whose top-level keys are the names.
    @_disfavoredOverload
    public init<Model: Encodable & Sendable>(_ build: @escaping @Sendable (Input) -> Model) {
        self.build = { Parameters(model: build($0)) }
    }

    /// Creates a builder whose closure returns bytes, sent as the body as they are
    /// (`Content-Type: application/octet-stream` unless a header sets one): `APIParameterBuilder<Data>? = .init { $0 }`.
    @_disfavoredOverload
    public init(_ build: @escaping @Sendable (Input) -> Data) {
        self.build = { .body(.data(build($0)), contentType: "application/octet-stream") }
    }

    /// Creates a builder whose closure returns a file URL, streamed from disk as the body
    /// (`Content-Type: application/octet-stream` unless a header sets one): `APIParameterBuilder<URL>? = .init { $0 }`.
    /// A URL that is not a readable file fails with ``APIError/RequestProblem/unreadableBody``.
    @_disfavoredOverload
    public init(_ build: @escaping @Sendable (Input) -> URL) {
        self.build = { .body(.file(build($0)), contentType: "application/octet-stream") }
    }

    /// A builder whose closure returns what `.init { $0 }` takes: bytes (sent as they are), a file URL (streamed), or
    /// any other `Encodable` model. An endpoint declared as a value has one trailing closure for all three, so the
    /// kind is told here, once, as the overloads above tell it for a property wrapper.
    init<Model: Encodable & Sendable>(returning build: @escaping @Sendable (Input) -> Model) {
        switch build {
        case let bytes as @Sendable (Input) -> Data: self.init(bytes)
        case let file as @Sendable (Input) -> URL: self.init(file)
        default: self.init(build)
        }
    }

    /// The parameters for `input`.
    func parameters(for input: Input) -> Parameters {
        build(input)
    }
}
