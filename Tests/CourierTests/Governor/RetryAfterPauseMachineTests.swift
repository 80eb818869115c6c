import Testing

@testable import Courier

/// `RetryAfterPauseMachine`, one transition at a time: a `Retry-After` pauses every attempt until its time.
@Suite("RetryAfterPauseMachine")
struct RetryAfterPauseMachineTests {
    typealias Machine = RetryAfterPauseMachine

    @Test(
        "After a Retry-After of 2 s at 1 s, attempts wait what is left until 3 s, then go",
        arguments: [
            (Duration.seconds(1), Machine.Admission.wait(.seconds(2))),
            (.milliseconds(2_500), .wait(.milliseconds(500))),
            (.seconds(3), .go),
            (.seconds(9), .go),
        ])
    func pause(at now: Duration, admission: Machine.Admission) {
        var machine = Machine()
        #expect(machine.admit(at: now) == .go)
        #expect(machine.received(retryAfter: .seconds(2), at: .seconds(1)) == .paused(until: .seconds(3)))
        #expect(machine.admit(at: now) == admission)
    }

    @Test(
        "A later end extends the pause; an earlier, equal, zero or negative one leaves it",
        arguments: [
            (Duration.seconds(5), Machine.Change.paused(until: .seconds(6))),
            (.seconds(2), .unchanged),
            (.seconds(1), .unchanged),
            (.zero, .unchanged),
            (.seconds(-5), .unchanged),
        ])
    func extend(wait: Duration, change: Machine.Change) {
        var machine = Machine()
        #expect(machine.received(retryAfter: .seconds(3), at: .zero) == .paused(until: .seconds(3)))
        #expect(machine.received(retryAfter: wait, at: .seconds(1)) == change)
    }
}
