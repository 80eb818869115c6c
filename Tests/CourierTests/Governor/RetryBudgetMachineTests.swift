import Testing

@testable import Courier

/// `RetryBudgetMachine`, one transition at a time: first attempts always go; retries while within the share.
@Suite("RetryBudgetMachine")
struct RetryBudgetMachineTests {
    typealias Machine = RetryBudgetMachine

    @Test(
        "Retries go while within share × first attempts, or the floor when that is more; then they are refused",
        arguments: [
            // (first attempts, share, floor per second, retries that go)
            (256, 0.2, 1.0, 51),
            (100, 0.2, 0.0, 20),
            (2, 0.2, 1.0, 10),
            (0, 0.5, 0.0, 0),
            (10, 0.0, 0.0, 0),
        ])
    func budget(firsts: Int, share: Double, floor: Double, retries: Int) {
        var machine = Machine(settings: .init(share: share, minimumPerSecond: floor, window: .seconds(10)))
        for _ in 0..<firsts { #expect(machine.requested(.first, at: .zero) == .go) }
        for _ in 0..<retries { #expect(machine.requested(.retry, at: .zero) == .go) }
        #expect(machine.requested(.retry, at: .zero) == .refuse)
        #expect(machine.requested(.first, at: .zero) == .go)
    }

    @Test("Retries spent leave the window with their time: later ones go again")
    func recovers() {
        var machine = Machine(settings: .init(share: 0, minimumPerSecond: 0.1, window: .seconds(10)))
        #expect(machine.requested(.retry, at: .zero) == .go)
        #expect(machine.requested(.retry, at: .seconds(5)) == .refuse)
        #expect(machine.requested(.retry, at: .seconds(11)) == .go)
        #expect(machine.requested(.retry, at: .seconds(11)) == .refuse)
    }

    @Test("256 calls that each try 3 times send at most 1.2 × 256 requests with the default settings")
    func defaultBound() {
        var machine = Machine()
        var sent = 0
        for _ in 0..<256 {
            if machine.requested(.first, at: .zero) == .go { sent += 1 }
        }
        for _ in 0..<(256 * 2) {
            if machine.requested(.retry, at: .zero) == .go { sent += 1 }
        }
        #expect(sent == 256 + 51)
    }
}
