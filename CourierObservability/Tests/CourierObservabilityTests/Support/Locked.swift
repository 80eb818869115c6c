import Foundation

/// A value behind a lock, for the plugins' per-call state (this package does without SwiftNIO's lock box).
// @unchecked: every access to `value` goes through `lock`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value under the lock; what `body` changes stays.
    func withLockedValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}
