import Foundation

/// The name of a host an endpoint talks to, resolved to a base URL by the configuration.
///
/// Endpoints without a host use ``APIConfiguration/baseURL``. Name the others and map them once, so a
/// dev/prod switch changes one line:
///
/// ```swift
/// extension APIHost { static let uploads: APIHost = "uploads" }
///
/// @POST("/files", host: .uploads)
/// static var upload: APIParameterBuilder<Data>? = nil
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

/// The status codes a call accepts as success; any other status becomes an
/// ``APIError/Reason/unacceptableStatus(_:)`` error.
public struct AcceptableStatusCodes: Hashable, Sendable, ExpressibleByArrayLiteral {
    /// The accepted ranges of status codes.
    public var ranges: [Range<Int>]

    /// Accepts the codes in the given ranges.
    public init(_ ranges: [Range<Int>]) {
        self.ranges = ranges
    }

    /// Accepts the codes in one range, for example `AcceptableStatusCodes(200..<400)`.
    public init(_ range: Range<Int>) {
        self.ranges = [range]
    }

    /// Accepts the listed codes, for example `[200, 204, 304]`.
    public init(arrayLiteral elements: Int...) {
        self.ranges = elements.map { $0..<($0 + 1) }
    }

    /// Whether `statusCode` is accepted.
    public func contains(_ statusCode: Int) -> Bool {
        ranges.contains { $0.contains(statusCode) }
    }

    /// `200..<300`, the default.
    public static let successful = AcceptableStatusCodes(200..<300)
    /// Every status code: the call never fails because of the status.
    public static let any = AcceptableStatusCodes(0..<1000)
}

/// A key for a typed value attached to endpoints as a tag, read by plugins and executors.
///
/// ## Implementing
///
/// ```swift
/// enum RequiresAuth: APITagKey {
///     static let defaultValue = false
/// }
/// extension APITag {
///     static let requiresAuth = APITag(RequiresAuth.self, true)
/// }
///
/// @GET("/me", tags: [.requiresAuth])
/// static var me: APIParameterBuilder<Void>? = nil
///
/// // in a plugin:
/// if endpoint.tags[RequiresAuth.self] { ... }
/// ```
public protocol APITagKey: Sendable {
    /// The type of the value stored under this key.
    associatedtype Value: Sendable
    /// The value read when an endpoint does not set this key.
    static var defaultValue: Value { get }
}

/// One typed tag: a key and its value, written in an endpoint's `tags:` list.
public struct APITag: Sendable {
    let key: ObjectIdentifier
    let value: any Sendable

    /// Creates a tag that stores `value` under `key`.
    public init<Key: APITagKey>(_ key: Key.Type, _ value: Key.Value) {
        self.key = ObjectIdentifier(key)
        self.value = value
    }
}

/// The typed tags of an endpoint: free-form metadata that plugins and executors read by key.
public struct APITags: Sendable, ExpressibleByArrayLiteral {
    private var storage: [ObjectIdentifier: any Sendable] = [:]

    /// Creates tags from a list; a later tag with the same key wins.
    public init(_ tags: [APITag]) {
        for tag in tags {
            storage[tag.key] = tag.value
        }
    }

    /// Creates tags from an array literal, `[.requiresAuth, .cacheFor(60)]`.
    public init(arrayLiteral elements: APITag...) {
        self.init(elements)
    }

    /// The value stored under `key`, or its default value.
    public subscript<Key: APITagKey>(key: Key.Type) -> Key.Value {
        get { storage[ObjectIdentifier(key)].flatMap { $0 as? Key.Value } ?? Key.defaultValue }
        set { storage[ObjectIdentifier(key)] = newValue }
    }

    /// Whether a value was set under `key` (as opposed to reading its default).
    public func contains<Key: APITagKey>(_ key: Key.Type) -> Bool {
        storage[ObjectIdentifier(key)] != nil
    }

    /// Whether no tag is set.
    public var isEmpty: Bool { storage.isEmpty }
}
