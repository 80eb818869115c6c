import Courier
import Foundation

/// A wait that the test ends with ``open()``, or that ends on its own after a backstop (60 s unless told), so that
/// code which waits for it longer than it should fails its test instead of hanging the run.
///
/// ``openedOnItsOwn`` tells the two apart: read when the code under test is done, it says whether that code was done
/// before the gate opened, an order that no load on the machine can turn around.
final class Gate: Sendable {
    private let state = LockedBox<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let openedByBackstop = LockedBox(false)

    /// A closed gate that opens on its own after `backstop`.
    init(backstop: Duration = .seconds(60)) {
        Task { [weak self] in
            try? await Task.sleep(for: backstop)
            guard let self, !self.state.value.isOpen else { return }
            self.openedByBackstop.value = true
            self.open()
        }
    }

    /// Returns once the gate is open.
    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    /// Opens the gate: every wait returns.
    func open() {
        let waiters = state.withLock { state in
            defer { state = (true, []) }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether the backstop opened the gate, not the test.
    var openedOnItsOwn: Bool { openedByBackstop.value }
}
