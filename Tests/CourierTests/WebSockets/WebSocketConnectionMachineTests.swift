import Foundation
import Testing

@_spi(CourierInternals) @testable import Courier

/// The promises of a `WebSocketConnection` as `WebSocketConnectionMachine` transitions, without any network: the
/// close code table, the size limit, which end wins, a missed pong, and the reconnection attempts with their waits.
@Suite("WebSocketConnectionMachine")
@MainActor
struct WebSocketConnectionMachineTests {
    /// A machine for a socket whose messages are at most 10 bytes; `reconnect` attempts when given.
    static func machine(reconnect: ServerSentEvent.ReconnectPolicy? = nil) throws -> WebSocketConnectionMachine {
        var machine = WebSocketConnectionMachine(request: try Chat.$small.makeRequest(using: testConfiguration))
        if let reconnect { machine.configure(policy: reconnect, canReopen: true) }
        return machine
    }

    /// The action's shape: what the loop sees.
    enum Outcome: Equatable {
        case deliver(WebSocketMessage)
        case ends(closeCode: Int), fails(APIError.TransportProblem?, closeCode: Int)
        case ended, failed(APIError.TransportProblem?)
        case reconnects(after: APIError.TransportProblem?, wait: Duration)

        init(_ action: WebSocketConnectionMachine.ReadAction) {
            switch action {
            case .deliver(let message): self = .deliver(message)
            case .end(.success, let close, _): self = .ends(closeCode: close.code)
            case .end(.failure(let error), let close, _):
                self = .fails(error.reason.transportProblem, closeCode: close.code)
            case .ended(.success): self = .ended
            case .ended(.failure(let error)): self = .failed(error.reason.transportProblem)
            case .reconnect(let failure, let wait):
                self = .reconnects(after: failure.reason.transportProblem, wait: wait)
            }
        }
    }

    /// The pong action's shape.
    static func shape(_ action: WebSocketConnectionMachine.PongAction) -> String {
        switch action {
        case .none: "none"
        case .closeForReconnection: "closeForReconnection"
        case .fail(let error): "fail \(error.reason.transportProblem.map { "\($0)" } ?? "")"
        }
    }

    static func lost(_ machine: WebSocketConnectionMachine) -> WebSocketConnectionMachine.Read {
        .failed(
            APIError(.transport(.connectionLost), endpoint: machine.request.endpoint, request: machine.request),
            cancelled: false)
    }

    // MARK: Messages

    @Test("A message within the limit (inclusive) is handed on and counted; a longer one fails with 1009")
    func sizeLimit() throws {
        var machine = try Self.machine()
        let ten = WebSocketMessage.text("0123456789")
        #expect(Outcome(machine.read(.event(.message(ten)), generation: 0)) == .deliver(ten))
        #expect(machine.received == .init(messages: 1, bytes: 10))
        let eleven = WebSocketMessage.binary(Data(count: 11))
        #expect(
            Outcome(machine.read(.event(.message(eleven)), generation: 0)) == .fails(.responseTooLarge, closeCode: 1009)
        )
    }

    // MARK: The close code table

    @Test(
        "The peer's close: 1000 and 1001 end the loop, any other code fails it with closedByPeer; the close is answered",
        arguments: [(1000, true), (1001, true), (1008, false), (1011, false), (4000, false)])
    func peerCloses(code: Int, clean: Bool) throws {
        var machine = try Self.machine()
        let outcome = Outcome(machine.read(.event(.close(WebSocketClose(code: code))), generation: 0))
        #expect(outcome == (clean ? .ends(closeCode: code) : .fails(.closedByPeer, closeCode: code)))
        #expect(machine.receivedClose == WebSocketClose(code: code))
    }

    @Test(
        "With a reconnect policy, a close that may pass (1001, 1011–1014) reconnects; others end as without one",
        arguments: [(1001, true), (1011, true), (1012, true), (1000, false), (1008, false)])
    func transientCloses(code: Int, reconnects: Bool) throws {
        var machine = try Self.machine(reconnect: .upTo(1, delay: .seconds(1)))
        let outcome = Outcome(machine.read(.event(.close(WebSocketClose(code: code))), generation: 0))
        if reconnects {
            #expect(outcome == .reconnects(after: .connectionLost, wait: .seconds(1)))
        } else {
            #expect(outcome != .reconnects(after: .connectionLost, wait: .seconds(1)))
        }
    }

    @Test("A drop fails the loop with connectionLost, closing without a frame (1006)")
    func drop() throws {
        var machine = try Self.machine()
        #expect(Outcome(machine.read(Self.lost(machine), generation: 0)) == .fails(.connectionLost, closeCode: 1006))
    }

    @Test("A read failed by a cancelled reader fails with cancelled and closes with 1001")
    func cancelled() throws {
        var machine = try Self.machine(reconnect: .upTo(3))
        let read = WebSocketConnectionMachine.Read.failed(
            APIError(.transport(.connectionLost), endpoint: machine.request.endpoint, request: machine.request),
            cancelled: true)
        #expect(Outcome(machine.read(read, generation: 0)) == .fails(.cancelled, closeCode: 1001))
    }

    // MARK: The end wins

    @Test("Once ended, a read reports that end, whatever the transport gave", arguments: [true, false])
    func endWins(closedByUs: Bool) throws {
        var machine = try Self.machine()
        let timedOut = ExecutorStop.timedOut.error(for: machine.request)
        do {
            let result = machine.end(closedByUs ? .success(()) : .failure(timedOut))
            #expect(result)
        }
        let second = machine.end(.success(()))
        #expect(!second)  // the first end wins
        #expect(!machine.isOpen)
        let outcome = Outcome(machine.read(Self.lost(machine), generation: 0))
        #expect(outcome == (closedByUs ? .ended : .failed(.timedOut)))
        #expect(Outcome(machine.read(.event(.message(.text("late"))), generation: 0)) == outcome)
    }

    // MARK: A missed pong

    @Test("A missed pong fails the connection with timedOut (the connection closes with 1011 at once)")
    func missedPong() throws {
        var machine = try Self.machine()
        let action = machine.pongMissed(generation: 0)
        #expect(Self.shape(action) == Self.shape(.fail(ExecutorStop.timedOut.error(for: machine.request))))
        guard case .fail(let error) = action else { return }
        #expect(error.reason.transportProblem == .timedOut)
    }

    @Test("With a reconnect policy a missed pong closes the transport, whose failure then reads as timedOut")
    func missedPongReconnects() throws {
        var machine = try Self.machine(reconnect: .upTo(1, delay: .seconds(2)))
        #expect(Self.shape(machine.pongMissed(generation: 0)) == "closeForReconnection")
        #expect(machine.wasClosedForMissedPong(0))
        #expect(
            Outcome(machine.read(Self.lost(machine), generation: 0)) == .reconnects(after: .timedOut, wait: .seconds(2))
        )
    }

    @Test("A pong missed on a transport since replaced, or after the end, does nothing")
    func stalePong() throws {
        var machine = try Self.machine(reconnect: .upTo(1, delay: .zero))
        _ = machine.read(Self.lost(machine), generation: 0)
        do {
            let result = machine.reopened()
            #expect(result)
        }
        #expect(machine.generation == 1)
        #expect(Self.shape(machine.pongMissed(generation: 0)) == "none")
        _ = machine.end(.success(()))
        #expect(Self.shape(machine.pongMissed(generation: 1)) == "none")
    }

    // MARK: Reconnection

    @Test("Reconnections in a row wait double each time up to the maximum, then the loop fails with the first failure")
    func reconnectionWaits() throws {
        var machine = try Self.machine(reconnect: .upTo(4, delay: .seconds(1), maxDelay: .seconds(3)))
        var outcomes = [Outcome(machine.read(Self.lost(machine), generation: 0))]
        for _ in 1...4 { outcomes.append(Outcome(machine.reopenFailed())) }
        #expect(
            outcomes == [
                .reconnects(after: .connectionLost, wait: .seconds(1)),
                .reconnects(after: .connectionLost, wait: .seconds(2)),
                .reconnects(after: .connectionLost, wait: .seconds(3)),
                .reconnects(after: .connectionLost, wait: .seconds(3)),
                .fails(.connectionLost, closeCode: 1006),
            ])
    }

    @Test("A message resets the attempts and the doubling wait")
    func messageResetsAttempts() throws {
        var machine = try Self.machine(reconnect: .upTo(2, delay: .seconds(1)))
        _ = machine.read(Self.lost(machine), generation: 0)
        _ = machine.reopenFailed()
        #expect(machine.attempts == 2)
        do {
            let result = machine.reopened()
            #expect(result)
        }
        _ = machine.read(.event(.message(.text("hi"))), generation: 1)
        #expect(machine.attempts == 0)
        #expect(
            Outcome(machine.read(Self.lost(machine), generation: 1))
                == .reconnects(after: .connectionLost, wait: .seconds(1)))
    }

    @Test("A socket opened again after the connection ended replaces nothing")
    func reopenedAfterEnd() throws {
        var machine = try Self.machine(reconnect: .upTo(1, delay: .zero))
        _ = machine.read(Self.lost(machine), generation: 0)
        _ = machine.end(.success(()))
        do {
            let result = machine.reopened()
            #expect(!result)
        }
        #expect(Outcome(machine.reopenFailed()) == .ended)
    }

    @Test("A request whose body cannot be sent again never reconnects")
    func cannotReopen() throws {
        var machine = try Self.machine()
        machine.configure(policy: .upTo(5), canReopen: false)
        #expect(Outcome(machine.read(Self.lost(machine), generation: 0)) == .fails(.connectionLost, closeCode: 1006))
    }

    // MARK: Reader and counts

    @Test("One loop reads a connection; the end's counts are recorded once")
    func readerAndCounts() throws {
        var machine = try Self.machine()
        do {
            let result = machine.claimReader()
            #expect(result)
        }
        do {
            let result = machine.claimReader()
            #expect(!result)
        }
        machine.sentMessage(bytes: 3)
        let first = machine.recordEnd()
        let second = machine.recordEnd()
        #expect(first?.sent == .init(messages: 1, bytes: 3))
        #expect(second == nil)
    }
}
