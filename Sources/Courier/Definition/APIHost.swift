import Foundation

/// The name of a host an endpoint talks to, resolved to a base URL by the configuration.
///
/// Endpoints without a host use ``APIConfiguration/baseURL``. Name the others and map them once, so a
/// dev/prod switch changes one line:
///
/// ```swift
/// extension APIHost { static let uploads: APIHost = "uploads" }
///
/// @GET("/files/{id}", host: .uploads)
/// static var file: APIParameterBuilder<String>? = .init { ["id": $0] }
///
/// var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
/// configuration.hosts[.uploads] = URL(string: "https://uploads.example.com")!
/// ```
public struct APIHost: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The host's name.
    public let rawValue: String

    /// Creates a host name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a host name from a string literal.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The host's name.
    public var description: String { rawValue }
}
