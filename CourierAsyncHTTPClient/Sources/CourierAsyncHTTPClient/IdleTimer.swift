import NIOConcurrencyHelpers
import NIOCore

/// The timer of a download with an idle timeout (`ResponseDelivery.idleTimeout`): until the response head
/// arrives, the call's deadline; after it, the idle timeout from the last bytes received, so that the download
/// runs as long as bytes keep coming.
///
/// Bytes arriving cost a lock and a clock read, not a timer: when the timer fires and bytes came meanwhile, it
/// re-arms for the idle timeout after the last of them.
final class IdleTimer: Sendable {
    private struct State {
        /// The armed entry of ``DeadlineTimer``.
        var token: UInt64?
        /// Bumped on every arming, so that the action of an earlier one does nothing.
        var generation: UInt64 = 0
        /// When the last bytes (or the head) arrived; `nil` while the call waits for the head.
        var lastBytes: NIODeadline?
        /// What stops the call, once ``start(deadline:expire:)`` gave it.
        var expire: (@Sendable () -> Void)?
        var ended = false
    }

    private let idle: TimeAmount
    private let timer: DeadlineTimer
    private let state = NIOLockedValueBox(State())

    init(idle: TimeAmount, timer: DeadlineTimer = .shared) {
        self.idle = idle
        self.timer = timer
    }

    /// Arms the timer for `deadline` (or, when the head has arrived already, for the idle timeout); `expire`
    /// runs once, when it passes.
    func start(deadline: NIODeadline, expire: @escaping @Sendable () -> Void) {
        state.withLockedValue { state in
            state.expire = expire
            guard !state.ended else { return }
            arm(&state, at: state.lastBytes.map { $0 + idle } ?? deadline)
        }
    }

    /// The head has arrived: the deadline ends, the idle timeout takes over.
    func headArrived() {
        state.withLockedValue { state in
            let now = NIODeadline.now()
            state.lastBytes = now
            // Before `start`, `start` arms.
            guard !state.ended, state.expire != nil else { return }
            arm(&state, at: now + idle)
        }
    }

    /// Bytes of the body have arrived.
    func bytesArrived() {
        state.withLockedValue { $0.lastBytes = .now() }
    }

    /// The call has ended: the timer is removed.
    func end() {
        state.withLockedValue { state in
            state.ended = true
            if let token = state.token { timer.remove(token) }
            state.token = nil
        }
    }

    private func arm(_ state: inout State, at deadline: NIODeadline) {
        if let token = state.token { timer.remove(token) }
        state.generation &+= 1
        let generation = state.generation
        state.token = timer.add(deadline) { [self] in fired(generation) }
    }

    private func fired(_ generation: UInt64) {
        let expire = state.withLockedValue { state -> (@Sendable () -> Void)? in
            guard state.generation == generation, !state.ended else { return nil }
            state.token = nil
            if let last = state.lastBytes, last + idle > .now() {
                arm(&state, at: last + idle)
                return nil
            }
            state.ended = true
            return state.expire
        }
        expire?()
    }
}
