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
        if let reconnect { #expect(machine.configure(policy: reconnect, canReopen: true) == .startPings) }
        return machine
    }

    /// The error the machine gives for `problem` on its request.
    static func error(
        _ problem: APIError.TransportProblem, of machine: WebSocketConnectionMachine, underlying: (any Error)? = nil
    ) -> APIError {
        APIError(
            .transport(problem), endpoint: machine.request.endpoint, request: machine.request,
            underlyingError: underlying)
    }

    /// The end for `error`, closing with `code` and naming the error's reason.
    static func failing(_ error: APIError, code: Int) -> WebSocketConnectionMachine.ReadAction {
        .end(.failure(error), close: WebSocketClose(code: code), detail: "\(error.reason)")
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
        #expect(machine.read(.event(.message(ten)), generation: 0) == .deliver(ten))
        #expect(machine.counts.received == .init(messages: 1, bytes: 10))
        let eleven = WebSocketMessage.binary(Data(count: 11))
        #expect(
            machine.read(.event(.message(eleven)), generation: 0)
                == Self.failing(Self.error(.responseTooLarge, of: machine), code: 1009))
    }

    // MARK: The close code table

    @Test(
        "The peer's close: 1000 and 1001 end the loop, any other code fails it with closedByPeer; the close is answered",
        arguments: [(1000, true), (1001, true), (1008, false), (1011, false), (4000, false)])
    func peerCloses(code: Int, clean: Bool) throws {
        var machine = try Self.machine()
        let close = WebSocketClose(code: code)
        let action = machine.read(.event(.close(close)), generation: 0)
        let outcome: Result<Void, APIError> =
            clean ? .success(()) : .failure(Self.error(.closedByPeer, of: machine, underlying: close))
        #expect(action == .end(outcome, close: close, detail: "closed by peer \(close)"))
        #expect(machine.receivedClose == close)
    }

    @Test(
        "With a reconnect policy, a close that may pass (1001, 1011–1014) reconnects; others end as without one",
        arguments: [(1001, true), (1011, true), (1012, true), (1000, false), (1008, false)])
    func transientCloses(code: Int, reconnects: Bool) throws {
        var machine = try Self.machine(reconnect: .upTo(1, delay: .seconds(1)))
        let close = WebSocketClose(code: code)
        let action = machine.read(.event(.close(close)), generation: 0)
        if reconnects {
            #expect(
                action
                    == .reconnect(after: Self.error(.connectionLost, of: machine, underlying: close), wait: .seconds(1))
            )
        } else {
            let outcome: Result<Void, APIError> =
                close.isClean ? .success(()) : .failure(Self.error(.closedByPeer, of: machine, underlying: close))
            #expect(action == .end(outcome, close: close, detail: "closed by peer \(close)"))
        }
    }

    @Test("A drop fails the loop with connectionLost, closing without a frame (1006)")
    func drop() throws {
        var machine = try Self.machine()
        #expect(
            machine.read(Self.lost(machine), generation: 0)
                == Self.failing(Self.error(.connectionLost, of: machine), code: 1006))
    }

    @Test("A read failed by a cancelled reader fails with cancelled and closes with 1001")
    func cancelled() throws {
        var machine = try Self.machine(reconnect: .upTo(3))
        let read = WebSocketConnectionMachine.Read.failed(
            APIError(.transport(.connectionLost), endpoint: machine.request.endpoint, request: machine.request),
            cancelled: true)
        #expect(
            machine.read(read, generation: 0)
                == .end(
                    .failure(ExecutorStop.cancelled.error(for: machine.request)), close: WebSocketClose(code: 1001),
                    detail: "cancelled"))
    }

    // MARK: The end wins

    @Test("Once ended, a read reports that end, whatever the transport gave", arguments: [true, false])
    func endWins(closedByUs: Bool) throws {
        var machine = try Self.machine()
        let timedOut = ExecutorStop.timedOut.error(for: machine.request)
        let first: Result<Void, APIError> = closedByUs ? .success(()) : .failure(timedOut)
        #expect(machine.end(first) == .close(.init()))
        #expect(machine.end(.success(())) == .ended(first))  // the first end wins
        #expect(!machine.isOpen)
        #expect(machine.read(Self.lost(machine), generation: 0) == .ended(first))
        #expect(machine.read(.event(.message(.text("late"))), generation: 0) == .ended(first))
        let refused = closedByUs ? Self.error(.connectionLost, of: machine) : timedOut
        #expect(machine.send(bytes: 1) == .refuse(refused))
        #expect(machine.configure(policy: .upTo(1), canReopen: true) == WebSocketConnectionMachine.ConfigureAction.none)
    }

    // MARK: A missed pong

    @Test("A missed pong fails the connection with timedOut (the connection closes with 1011 at once)")
    func missedPong() throws {
        var machine = try Self.machine()
        #expect(machine.pongMissed(generation: 0) == .fail(ExecutorStop.timedOut.error(for: machine.request)))
    }

    @Test("With a reconnect policy a missed pong closes the transport, whose failure then reads as timedOut")
    func missedPongReconnects() throws {
        var machine = try Self.machine(reconnect: .upTo(1, delay: .seconds(2)))
        #expect(machine.pongMissed(generation: 0) == .closeForReconnection)
        #expect(
            machine.read(Self.lost(machine), generation: 0)
                == .reconnect(after: ExecutorStop.timedOut.error(for: machine.request), wait: .seconds(2)))
        // The transport closed for the missed pong is closed already: the new one replaces it without a close.
        #expect(machine.reopened() == .replace(currentIsClosed: true))
    }

    @Test("A pong missed on a transport since replaced, or after the end, does nothing")
    func stalePong() throws {
        var machine = try Self.machine(reconnect: .upTo(1, delay: .zero))
        _ = machine.read(Self.lost(machine), generation: 0)
        #expect(machine.reopened() == .replace(currentIsClosed: false))
        #expect(machine.generation == 1)
        #expect(machine.pongMissed(generation: 0) == WebSocketConnectionMachine.PongAction.none)
        #expect(machine.end(.success(())) == .close(.init()))
        #expect(machine.pongMissed(generation: 1) == WebSocketConnectionMachine.PongAction.none)
    }

    // MARK: Reconnection

    @Test("Reconnections in a row wait double each time up to the maximum, then the loop fails with the first failure")
    func reconnectionWaits() throws {
        var machine = try Self.machine(reconnect: .upTo(4, delay: .seconds(1), maxDelay: .seconds(3)))
        let lost = Self.error(.connectionLost, of: machine)
        var actions = [machine.read(Self.lost(machine), generation: 0)]
        for _ in 1...4 { actions.append(machine.reopenFailed()) }
        #expect(
            actions == [
                .reconnect(after: lost, wait: .seconds(1)),
                .reconnect(after: lost, wait: .seconds(2)),
                .reconnect(after: lost, wait: .seconds(3)),
                .reconnect(after: lost, wait: .seconds(3)),
                Self.failing(lost, code: 1006),
            ])
    }

    @Test("A message resets the attempts and the doubling wait")
    func messageResetsAttempts() throws {
        var machine = try Self.machine(reconnect: .upTo(2, delay: .seconds(1)))
        _ = machine.read(Self.lost(machine), generation: 0)
        _ = machine.reopenFailed()
        #expect(machine.attempts == 2)
        #expect(machine.reopened() == .replace(currentIsClosed: false))
        #expect(machine.read(.event(.message(.text("hi"))), generation: 1) == .deliver(.text("hi")))
        #expect(machine.attempts == 0)
        #expect(
            machine.read(Self.lost(machine), generation: 1)
                == .reconnect(after: Self.error(.connectionLost, of: machine), wait: .seconds(1)))
    }

    @Test("A socket opened again after the connection ended replaces nothing")
    func reopenedAfterEnd() throws {
        var machine = try Self.machine(reconnect: .upTo(1, delay: .zero))
        _ = machine.read(Self.lost(machine), generation: 0)
        let timedOut = ExecutorStop.timedOut.error(for: machine.request)
        #expect(machine.end(.failure(timedOut)) == .close(.init()))
        #expect(machine.reopened() == .discard(.failure(timedOut)))
        #expect(machine.reopenFailed() == .ended(.failure(timedOut)))
    }

    @Test("A request whose body cannot be sent again never reconnects")
    func cannotReopen() throws {
        var machine = try Self.machine()
        #expect(machine.configure(policy: .upTo(5), canReopen: false) == .startPings)
        #expect(
            machine.read(Self.lost(machine), generation: 0)
                == Self.failing(Self.error(.connectionLost, of: machine), code: 1006))
    }

    // MARK: Reader and counts

    @Test("One loop reads a connection; the first end carries the counts of both directions")
    func readerAndCounts() throws {
        var machine = try Self.machine()
        #expect(machine.claimReader() == .read)
        #expect(machine.claimReader() == .readNothing)
        #expect(machine.send(bytes: 3) == .send)
        #expect(machine.send(bytes: 4) == .send)
        _ = machine.read(.event(.message(.text("hi"))), generation: 0)
        let counts = WebSocketConnectionMachine.Counts(
            sent: .init(messages: 2, bytes: 7), received: .init(messages: 1, bytes: 2))
        #expect(machine.end(.success(())) == .close(counts))
        #expect(machine.end(.success(())) == .ended(.success(())))
    }
}
