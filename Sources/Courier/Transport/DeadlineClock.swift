import Foundation

/// Ends calls whose deadline passed, with one timer for every call in the process.
///
/// A timer per call costs more than the rest of ``URLSessionExecutor``'s work (arming and disarming a
/// dispatch timer wakes the dispatch manager and reprograms the kernel timer). Here a call registers its
/// deadline in a table; the one timer is armed for the earliest deadline and, when it fires, ends the calls
/// that are due and re-arms for the earliest that is left. A call that ends leaves the table without
/// touching the timer, so with equal timeouts the timer fires about once per timeout, however many calls run.
final class DeadlineClock: Sendable {
    /// Something with a deadline: told once, when the deadline passes, unless it left the table before.
    protocol Client: AnyObject, Sendable {
        func deadlinePassed()
    }

    private struct State {
        /// The one timer; only touched under the lock, which is also why it lives here.
        let timer: any DispatchSourceTimer
        var clients: [ObjectIdentifier: (client: any Client, deadline: UInt64)] = [:]
        /// The deadline the timer is armed for, in `DispatchTime` uptime nanoseconds.
        var armed: UInt64?
    }

    /// The clock of every call over a transport, and of every stream's idle timeout.
    static let shared = DeadlineClock()

    private let state: LockedBox<State>

    init() {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        state = LockedBox(State(timer: timer))
        timer.setEventHandler { [weak self] in self?.fire() }
        // Active but unarmed until the first deadline is scheduled.
        timer.activate()
    }

    /// Tells `client` when `timeout` from now has passed, unless it calls ``remove(_:)`` first.
    func add(_ client: any Client, timeout: Duration) {
        let deadline = Self.deadline(after: timeout)
        state.withLock { state in
            state.clients[ObjectIdentifier(client)] = (client, deadline)
            if state.armed.map({ deadline < $0 }) ?? true {
                state.armed = deadline
                Self.arm(state.timer, deadline)
            }
        }
    }

    /// Forgets `client`; the timer stays as it is (firing early for nobody is cheaper than re-arming).
    func remove(_ client: any Client) {
        _ = state.withLock { $0.clients.removeValue(forKey: ObjectIdentifier(client)) }
    }

    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> [any Client] in
            var due: [any Client] = []
            var next: UInt64?
            for (key, entry) in state.clients {
                if entry.deadline <= now {
                    due.append(entry.client)
                    state.clients[key] = nil
                } else {
                    next = min(next ?? .max, entry.deadline)
                }
            }
            state.armed = next
            if let next { Self.arm(state.timer, next) }
            return due
        }
        for client in due { client.deadlinePassed() }
    }

    private static func arm(_ timer: any DispatchSourceTimer, _ deadline: UInt64) {
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .milliseconds(5))
    }

    /// `timeout` from now in uptime nanoseconds; a timeout too long to count is a deadline that never comes.
    static func deadline(after timeout: Duration) -> UInt64 {
        let never = UInt64.max / 2
        let (seconds, attoseconds) = timeout.components
        guard seconds >= 0, attoseconds >= 0 else { return DispatchTime.now().uptimeNanoseconds }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, whole < never else { return never }
        let nanoseconds = whole + UInt64(attoseconds / 1_000_000_000)
        return min(DispatchTime.now().uptimeNanoseconds + nanoseconds, never)
    }
}
