import Courier

/// The tests' lock is Courier's own `LockedBox` (a `package` symbol), under the name the tests use.
typealias Locked<Value> = LockedBox<Value>

extension LockedBox {
    /// The value, read under the lock.
    var current: Value { value }
}
