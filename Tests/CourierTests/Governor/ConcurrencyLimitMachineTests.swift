import Testing

@testable import Courier

/// `ConcurrencyLimitMachine`, one transition at a time: slots, the queue in order, and waits that end.
@Suite("ConcurrencyLimitMachine")
struct ConcurrencyLimitMachineTests {
    typealias Machine = ConcurrencyLimitMachine

    @Test(
        "Calls go up to the limit, wait up to the queue's length, and are refused beyond",
        arguments: [
            (1, 0, [Machine.Request.go, .refuse, .refuse]),
            (2, 1, [.go, .go, .wait, .refuse]),
            (1, 2, [.go, .wait, .wait, .refuse]),
            (0, -1, [.go, .refuse]),
        ])
    func admission(limit: Int, queue: Int, requests: [Machine.Request]) {
        var machine = Machine(limit: limit, queue: queue)
        #expect(requests.indices.map { machine.requested($0) } == requests)
        #expect(machine.inFlight == Swift.max(1, limit))
    }

    @Test("A released slot goes to the first waiting call; with nobody waiting it is free")
    func release() {
        var machine = Machine(limit: 1, queue: 2)
        #expect(machine.requested(1) == .go)
        #expect(machine.requested(2) == .wait)
        #expect(machine.requested(3) == .wait)
        #expect(machine.released() == .resume(id: 2))
        #expect(machine.inFlight == 1)
        #expect(machine.released() == .resume(id: 3))
        #expect(machine.released() == .free)
        #expect(machine.inFlight == 0)
        #expect(machine.released() == .free)
        #expect(machine.inFlight == 0)
        #expect(machine.requested(4) == .go)
    }

    @Test("A wait that ends while queued leaves the queue refused; one that ends after its resume keeps the slot")
    func waitEnds() {
        var machine = Machine(limit: 1, queue: 2)
        #expect(machine.requested(1) == .go)
        #expect(machine.requested(2) == .wait)
        #expect(machine.requested(3) == .wait)
        #expect(machine.waitEnded(2) == .refuse)
        #expect(machine.waiting == [3])
        #expect(machine.released() == .resume(id: 3))
        #expect(machine.waitEnded(3) == .alreadyResumed)
        #expect(machine.inFlight == 1)
    }
}
