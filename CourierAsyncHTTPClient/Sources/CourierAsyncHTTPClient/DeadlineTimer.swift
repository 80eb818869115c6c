import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// One timer for the deadlines of every call, armed for the earliest: adding a deadline later than the armed
/// one (the usual case, when calls share a timeout) and removing one cost a lock and a dictionary update, not
/// a task scheduled on an event loop from another thread (a wake-up of that loop each time).
///
/// When the timer fires it runs the actions whose deadline passed and re-arms for the earliest left.
final class DeadlineTimer: Sendable {
    /// The process-wide timer, on one of SwiftNIO's shared event loops.
    static let shared = DeadlineTimer(loop: MultiThreadedEventLoopGroup.singleton.next())

    private struct Entry {
        let deadline: NIODeadline
        let action: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var armed: (deadline: NIODeadline, task: Scheduled<Void>)?
    }

    private let loop: any EventLoop
    private let state = NIOLockedValueBox(State())

    init(loop: any EventLoop) {
        self.loop = loop
    }

    /// Runs `action` at `deadline` unless removed before; returns the token that removes it.
    func add(_ deadline: NIODeadline, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, rearm) = state.withLockedValue { state -> (UInt64, Bool) in
            state.nextID &+= 1
            state.entries[state.nextID] = Entry(deadline: deadline, action: action)
            guard let armed = state.armed, armed.deadline <= deadline else { return (state.nextID, true) }
            return (state.nextID, false)
        }
        if rearm { arm() }
        return id
    }

    /// Forgets the deadline of `token` (its action will not run, unless it is running already).
    func remove(_ token: UInt64) {
        _ = state.withLockedValue { $0.entries.removeValue(forKey: token) }
    }

    /// Arms the timer for the earliest deadline, unless it is armed for that one already.
    private func arm() {
        loop.execute { [self] in
            state.withLockedValue { state in
                guard let earliest = state.entries.values.map(\.deadline).min() else {
                    state.armed?.task.cancel()
                    state.armed = nil
                    return
                }
                if let armed = state.armed, armed.deadline <= earliest { return }
                state.armed?.task.cancel()
                state.armed = (earliest, loop.scheduleTask(deadline: earliest) { self.fire() })
            }
        }
    }

    /// Runs every action whose deadline passed, then arms for the earliest left.
    private func fire() {
        let now = NIODeadline.now()
        let due = state.withLockedValue { state -> [@Sendable () -> Void] in
            state.armed = nil
            let passed = state.entries.filter { $0.value.deadline <= now }
            for id in passed.keys { state.entries.removeValue(forKey: id) }
            return passed.values.map(\.action)
        }
        for action in due { action() }
        arm()
    }
}
