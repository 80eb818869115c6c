/// A description that cannot be read: not JSON or YAML, not an OpenAPI 3.x or Swagger 2.0 document, or one
/// that OpenAPIKit's validation rejects. The message says what and, when known, where.
public struct DescriptionError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with the description.
    public let message: String

    init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
