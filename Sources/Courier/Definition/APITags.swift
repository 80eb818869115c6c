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

    /// Creates tags from an array literal, `[.requiresAuth, .cacheFor(60)]`; a later tag with the same key wins.
    public init(arrayLiteral elements: APITag...) {
        for tag in elements {
            storage[tag.key] = tag.value
        }
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
}
