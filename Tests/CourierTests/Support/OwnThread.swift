import Foundation

/// Runs `work`, which blocks (it waits for a child process or reads a pipe to its end), on a thread of its own.
///
/// On Linux, Swift's shared threads and Dispatch's global queues are the same few threads, one per core. A blocking
/// wait on either holds up every other test of the process until it ends, and stretches their timings.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.name = "Courier tests: blocking wait"
        thread.start()
    }
}
