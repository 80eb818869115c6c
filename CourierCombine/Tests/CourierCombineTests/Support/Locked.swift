import Foundation

/// A value shared between concurrent test tasks, guarded by a lock (a copy of the root tests' helper).
final class Locked<Value: Sendable>: Sendable {
    private let lock = NSLock()
    // nonisolated(unsafe): every access goes through `lock`.
    nonisolated(unsafe) private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }

    var current: Value { withLock { $0 } }
}
