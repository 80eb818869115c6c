import Foundation

/// A value behind a lock, for state shared across threads: the one lock of the package, used by Courier,
/// CourierTesting and the tests (`package` access: not part of Courier's public API).
///
/// Foundation's `NSLock` rather than `Synchronization.Mutex`, which needs newer Apple platforms than the
/// package supports.
// @unchecked: every access to `stored` goes through `lock`.
package final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    /// A box holding `value`.
    package init(_ value: Value) {
        self.stored = value
    }

    /// The value, read or replaced under the lock.
    package var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Runs `body` with the value under the lock; what `body` changes stays.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&stored) }
    }
}
