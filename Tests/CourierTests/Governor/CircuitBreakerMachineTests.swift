import Testing

@testable import Courier

/// `CircuitBreakerMachine`, one transition at a time: each event's whole action and the state it leaves.
@Suite("CircuitBreakerMachine")
struct CircuitBreakerMachineTests {
    typealias Machine = CircuitBreakerMachine

    /// A breaker that opens at half of at least 4 calls failed over 10 s, cools down 5 s and closes after 2 probes.
    static func machine() -> Machine {
        Machine(
            settings: .init(failureRate: 0.5, minimumCalls: 4, window: .seconds(10), coolDown: .seconds(5), probes: 2))
    }

    /// `machine` after calls with `outcomes` went and ended at `now`, with the change of the last one.
    static func after(
        _ outcomes: [Machine.Outcome], on machine: inout Machine, at now: Duration = .zero
    )
        -> Machine.Change?
    {
        var last: Machine.Change?
        for outcome in outcomes {
            #expect(machine.admit(at: now) == .init(admission: .go))
            last = machine.ended(.go, outcome, at: now)
        }
        return last
    }

    /// A breaker opened at 0 s.
    static func opened() -> Machine {
        var machine = Self.machine()
        #expect(Self.after([.failed, .failed, .failed, .failed], on: &machine) == .opened)
        return machine
    }

    @Test(
        "While closed, calls go; the breaker opens at the rate over enough calls, on a failure, and not before",
        arguments: [
            ([Machine.Outcome.failed, .failed, .failed], nil, Machine.State.closed),
            ([.succeeded, .succeeded, .failed, .failed], .opened, .open(until: .seconds(5))),
            ([.failed, .failed, .succeeded, .succeeded], nil, .closed),
            ([.succeeded, .succeeded, .succeeded, .failed], nil, .closed),
            ([.failed, .abandoned, .failed, .abandoned, .failed], nil, .closed),
        ] as [([Machine.Outcome], Machine.Change?, Machine.State)])
    func closed(outcomes: [Machine.Outcome], change: Machine.Change?, state: Machine.State) {
        var machine = Self.machine()
        #expect(Self.after(outcomes, on: &machine) == change)
        #expect(machine.state == state)
    }

    @Test("Failures older than the window no longer count toward opening")
    func windowForgets() {
        var machine = Self.machine()
        #expect(Self.after([.failed, .failed, .failed], on: &machine, at: .zero) == nil)
        #expect(Self.after([.failed], on: &machine, at: .seconds(11)) == nil)
        #expect(machine.state == .closed)
    }

    @Test(
        "While open, a call is refused with the time left; at the cool-down's end the next call is the probe",
        arguments: [
            (Duration.zero, Machine.AdmitAction(admission: .refuse(retryAfter: .seconds(5)))),
            (.seconds(4), .init(admission: .refuse(retryAfter: .seconds(1)))),
            (.seconds(5), .init(admission: .probe, change: .halfOpened)),
            (.seconds(60), .init(admission: .probe, change: .halfOpened)),
        ])
    func open(at now: Duration, action: Machine.AdmitAction) {
        var machine = Self.opened()
        #expect(machine.admit(at: now) == action)
    }

    @Test("Half-open: one probe at a time; a call beside it is refused for a cool-down")
    func oneProbe() {
        var machine = Self.opened()
        #expect(machine.admit(at: .seconds(5)) == .init(admission: .probe, change: .halfOpened))
        #expect(machine.admit(at: .seconds(5)) == .init(admission: .refuse(retryAfter: .seconds(5))))
        #expect(machine.state == .halfOpen(probing: true, succeeded: 0))
    }

    @Test(
        "A probe's end: success counts toward closing, failure opens again, abandoned lets the next call probe",
        arguments: [
            (Machine.Outcome.succeeded, nil, Machine.State.halfOpen(probing: false, succeeded: 1)),
            (.failed, .opened, .open(until: .seconds(11))),
            (.abandoned, nil, .halfOpen(probing: false, succeeded: 0)),
        ] as [(Machine.Outcome, Machine.Change?, Machine.State)])
    func probeEnds(outcome: Machine.Outcome, change: Machine.Change?, state: Machine.State) {
        var machine = Self.opened()
        #expect(machine.admit(at: .seconds(5)) == .init(admission: .probe, change: .halfOpened))
        #expect(machine.ended(.probe, outcome, at: .seconds(6)) == change)
        #expect(machine.state == state)
    }

    @Test("The second probe that succeeds closes the breaker, with a fresh window")
    func closes() {
        var machine = Self.opened()
        #expect(machine.admit(at: .seconds(5)) == .init(admission: .probe, change: .halfOpened))
        #expect(machine.ended(.probe, .succeeded, at: .seconds(5)) == nil)
        #expect(machine.admit(at: .seconds(5)) == .init(admission: .probe))
        #expect(machine.ended(.probe, .succeeded, at: .seconds(5)) == .closed)
        #expect(machine.state == .closed)
        // The failures before opening are forgotten: three more do not reach the minimum of four calls.
        #expect(Self.after([.failed, .failed, .failed], on: &machine, at: .seconds(6)) == nil)
    }

    @Test("A call that went while closed and ends after the breaker opened changes nothing")
    func lateEnd() {
        var machine = Self.machine()
        #expect(machine.admit(at: .zero) == .init(admission: .go))
        #expect(Self.after([.failed, .failed, .failed, .failed], on: &machine) == .opened)
        #expect(machine.ended(.go, .succeeded, at: .seconds(1)) == nil)
        #expect(machine.ended(.go, .failed, at: .seconds(1)) == nil)
        #expect(machine.state == .open(until: .seconds(5)))
    }
}
