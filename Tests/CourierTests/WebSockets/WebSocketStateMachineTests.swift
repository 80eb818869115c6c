@_spi(CourierInternals) import Courier
import Foundation
import Testing

/// The wire rules of a WebSocket (RFC 6455) as `WebSocketStateMachine` transitions, without any network: the close
/// handshake in both directions, pings and a missed pong, fragments and the size limit, violations, reads past the
/// reader's demand.
@Suite("WebSocketStateMachine")
struct WebSocketStateMachineTests {
    typealias Machine = WebSocketStateMachine<Data>

    static func text(_ text: String) -> Data { Data(text.utf8) }

    // MARK: The close handshake

    @Test(
        "The peer's close is answered at once with its code, and handed to the reader",
        arguments: [1000, 1001, 1008, 1011, 4000])
    func peerCloseAnswered(code: Int) {
        var machine = Machine(maxMessageBytes: 100)
        #expect(
            machine.received(.close(code: code, reason: "bye"))
                == .answerClose(.close(code: code, reason: ""), WebSocketClose(code: code, reason: "bye")))
        #expect(machine.state == .closeReceived)
    }

    @Test("A close without a code is answered with an empty close frame; the reader sees 1005")
    func peerCloseWithoutCode() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(
            machine.received(.close(code: nil, reason: ""))
                == .answerClose(.close(code: nil, reason: ""), WebSocketClose(code: 1005)))
    }

    @Test("The peer's close is answered once: a second close frame does nothing")
    func peerCloseAnsweredOnce() {
        var machine = Machine(maxMessageBytes: 100)
        _ = machine.received(.close(code: 1000, reason: ""))
        #expect(machine.received(.close(code: 1000, reason: "")) == .none)
    }

    @Test("A close requested after the peer's closes the connection at once, without a second frame")
    func closeAfterPeerClose() {
        var machine = Machine(maxMessageBytes: 100)
        _ = machine.received(.close(code: 1008, reason: ""))
        #expect(machine.closeRequested(code: 1008, reason: "") == .close)
    }

    @Test("Our close is sent once and waits for the peer's; its answer ends the wait and is not handed on")
    func ourCloseAnswered() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(
            machine.closeRequested(code: 1000, reason: "done")
                == .sendAndWait(code: 1000, reason: "done", readOn: false))
        #expect(machine.state == .closeSent)
        #expect(machine.closeRequested(code: 1001, reason: "") == .wait)
        #expect(machine.received(.close(code: 1000, reason: "")) == .peerClosed)
        #expect(machine.state == .closeReceived)
        #expect(machine.closeRequested(code: 1000, reason: "") == .close)
    }

    @Test("Data, pings and unknown frames after our close are dropped, unanswered")
    func framesAfterOurClose() {
        var machine = Machine(maxMessageBytes: 100)
        _ = machine.closeRequested(code: 1000, reason: "")
        #expect(machine.received(.data(.text, Self.text("late"), fin: true)) == .none)
        #expect(machine.received(.ping(Data())) == .none)
        #expect(machine.pingRequested() == .none)
    }

    @Test("1006 closes without a frame: the connection failed")
    func failedConnectionCloses() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(machine.closeRequested(code: 1006, reason: "") == .close)
        #expect(machine.state == .failed)
    }

    @Test(
        "A close frame with a code a peer may not send fails the connection with 1002",
        arguments: [999, 1004, 1005, 1006, 1015, 2000, 5000])
    func invalidCloseCode(code: Int) {
        var machine = Machine(maxMessageBytes: 100)
        #expect(
            machine.received(.close(code: code, reason: ""))
                == .fail(.protocolError("a close frame with the code \(code)"), close: .close(code: 1002, reason: "")))
        #expect(machine.state == .failed)
    }

    @Test("Once the connection ended, a close does nothing")
    func closeAfterEnd() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(machine.connectionEnded() == .ended)
        #expect(machine.connectionEnded() == .none)  // once
        #expect(machine.closeRequested(code: 1000, reason: "") == .none)
        #expect(machine.state == .closed)
    }

    // MARK: Order: messages before the end

    @Test("Messages that arrived before the peer's close are handed on first, in order")
    func messagesBeforeClose() {
        var machine = Machine(maxMessageBytes: 100)
        let actions = [
            machine.received(.data(.text, Self.text("one"), fin: true)),
            machine.received(.data(.binary, Data([2]), fin: true)),
            machine.received(.close(code: 1000, reason: "")),
            machine.received(.data(.text, Self.text("after"), fin: true)),
        ]
        #expect(
            actions == [
                .deliver(.text, Self.text("one")), .deliver(.binary, Data([2])),
                .answerClose(.close(code: 1000, reason: ""), WebSocketClose(code: 1000)), .none,
            ])
    }

    @Test("A message that arrived before a drop is handed on before the end: the end changes nothing handed on")
    func messageBeforeDrop() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(
            machine.received(.data(.text, Self.text("last"), fin: true)) == .deliver(.text, Self.text("last")))
        #expect(machine.pingRequested() == .write(.ping))
        #expect(machine.connectionEnded() == .ended)
        #expect(machine.state == .closed)
        #expect(machine.pong == .none)
    }

    // MARK: Pings

    @Test("A ping is answered with a pong carrying its payload")
    func pingAnswered() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(machine.received(.ping(Data([7, 8]))) == .write(.pong(Data([7, 8]))))
    }

    @Test("A pong completes the pings waiting for it; an unasked pong does nothing")
    func pongCompletesPings() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(machine.received(.pong) == .none)
        #expect(machine.pingRequested() == .write(.ping))
        #expect(machine.pingRequested() == .write(.ping))
        #expect(machine.pong == .awaited)
        #expect(machine.received(.pong) == .completePings)
        #expect(machine.pong == .none)
        #expect(machine.received(.pong) == .none)
    }

    @Test("After a missed pong our close does not wait for the unresponsive peer")
    func missedPongClosesAtOnce() {
        var machine = Machine(maxMessageBytes: 100)
        _ = machine.pingRequested()
        #expect(machine.pongAbandoned() == .failPings)
        #expect(machine.pong == .overdue)
        #expect(machine.pingRequested() == .write(.ping))  // a ping after it does not make the peer responsive
        #expect(machine.pong == .overdue)
        #expect(
            machine.closeRequested(code: 1011, reason: "ping timeout")
                == .sendAndClose(code: 1011, reason: "ping timeout"))
    }

    @Test("A pong that arrives after all makes the peer responsive again: the close waits for its answer")
    func latePongRestoresWait() {
        var machine = Machine(maxMessageBytes: 100)
        _ = machine.pingRequested()
        #expect(machine.pongAbandoned() == .failPings)
        #expect(machine.received(.pong) == .completePings)
        #expect(machine.pong == .none)
        #expect(machine.closeRequested(code: 1000, reason: "") == .sendAndWait(code: 1000, reason: "", readOn: false))
    }

    @Test("Giving up on no ping changes nothing")
    func abandonWithoutPing() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(machine.pongAbandoned() == .none)
        #expect(machine.pong == .none)
    }

    // MARK: Fragments and the size limit

    @Test("Fragments are joined into one message")
    func fragmentsJoined() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(machine.received(.data(.text, Self.text("he"), fin: false)) == .none)
        #expect(machine.received(.continuation(Self.text("ll"), fin: false)) == .none)
        #expect(machine.received(.ping(Data())) == .write(.pong(Data())))  // control frames may come in between
        #expect(machine.received(.continuation(Self.text("o"), fin: true)) == .deliver(.text, Self.text("hello")))
    }

    @Test(
        "The size limit is inclusive, for a whole message and for one joined from fragments",
        arguments: [(10, true), (11, false)])
    func sizeLimit(size: Int, accepted: Bool) {
        var whole = Machine(maxMessageBytes: 10)
        var joined = Machine(maxMessageBytes: 10)
        let payload = Data(repeating: 1, count: size)
        let wholeAction = whole.received(.data(.binary, payload, fin: true))
        _ = joined.received(.data(.binary, payload.prefix(4), fin: false))
        let joinedAction = joined.received(.continuation(payload.dropFirst(4), fin: true))
        let refused = Machine.Action.fail(.messageTooLarge(limit: 10), close: .close(code: 1009, reason: ""))
        #expect(wholeAction == (accepted ? .deliver(.binary, payload) : refused))
        #expect(joinedAction == (accepted ? .deliver(.binary, payload) : refused))
    }

    /// A frame out of place, or a text that is not UTF-8, and the violation it is.
    struct ViolationCase: Sendable, CustomTestStringConvertible {
        var kind: String
        var violation: Machine.Violation
        var testDescription: String { kind }
    }

    @Test(
        "Frames out of place fail the connection with 1002, and a text that is not UTF-8 with 1007",
        arguments: [
            ViolationCase(
                kind: "continuation", violation: .protocolError("a continuation frame outside a fragmented message")),
            ViolationCase(kind: "nested", violation: .protocolError("a new message began inside a fragmented one")),
            ViolationCase(kind: "unknown", violation: .protocolError("an unknown opcode 3")),
            ViolationCase(kind: "text", violation: .invalidText),
        ])
    func violations(_ violation: ViolationCase) {
        var machine = Machine(maxMessageBytes: 100)
        let action: Machine.Action
        switch violation.kind {
        case "continuation": action = machine.received(.continuation(Data([1]), fin: true))
        case "nested":
            _ = machine.received(.data(.text, Self.text("a"), fin: false))
            action = machine.received(.data(.text, Self.text("b"), fin: true))
        case "unknown": action = machine.received(.unknown(opcode: 3))
        default: action = machine.receivedInvalidText()
        }
        let code = violation.kind == "text" ? 1007 : 1002
        #expect(action == .fail(violation.violation, close: .close(code: code, reason: "")))
        #expect(machine.state == .failed)
        // Failed once: no second close frame.
        #expect(machine.receivedInvalidText() == .fail(.invalidText, close: nil))
    }

    @Test("A frame the decoder refused: over the limit 1009, broken 1002")
    func decoderRefusals() {
        var large = Machine(maxMessageBytes: 5)
        var broken = Machine(maxMessageBytes: 5)
        #expect(
            large.frameRefused(tooLarge: true, "")
                == .fail(.messageTooLarge(limit: 5), close: .close(code: 1009, reason: "")))
        #expect(
            broken.frameRefused(tooLarge: false, "bad")
                == .fail(.protocolError("bad"), close: .close(code: 1002, reason: "")))
    }

    // MARK: Reads past the reader's demand

    @Test("While a pong is awaited and the reader holds reads back, the socket is read on, once at a time")
    func readsPastDemandForPong() {
        var machine = Machine(maxMessageBytes: 1 << 21)
        #expect(machine.readerAskedForRead() == .read)
        #expect(machine.readCompleted() == .none)  // nothing awaited: the reader's backpressure holds
        #expect(machine.readOnRequested() == .none)
        #expect(machine.demand == .held(pastDemand: 0))
        _ = machine.pingRequested()
        #expect(machine.readCompleted() == .askToReadOn)
        #expect(machine.readOnRequested() == .read)
        #expect(machine.demand == .readingOn(pastDemand: 0))
        #expect(machine.readOnRequested() == .none)  // one read under way
        #expect(machine.readCompleted() == .askToReadOn)
        #expect(machine.readOnRequested() == .read)
    }

    @Test("The reader's own read is not one past its demand: a reader that reads needs no read of the machine's")
    func readerReads() {
        var machine = Machine(maxMessageBytes: 100)
        _ = machine.pingRequested()
        #expect(machine.readOnRequested() == .none)
        #expect(machine.demand == .reader)
        #expect(machine.received(.data(.text, Self.text("hi"), fin: true)) == .deliver(.text, Self.text("hi")))
        #expect(machine.demand == .reader)  // data the reader asked for is not counted past its demand
    }

    @Test("Reads past the demand stop at the allowance of data bytes, and start again when the reader reads")
    func readAllowance() {
        var machine = Machine(maxMessageBytes: 1 << 22)
        _ = machine.pingRequested()
        _ = machine.readCompleted()
        #expect(machine.readOnRequested() == .read)
        _ = machine.received(.data(.binary, Data(count: Machine.pongReadAllowance - 1), fin: true))
        _ = machine.received(.data(.binary, Data(count: 1), fin: true))
        #expect(machine.readCompleted() == .askToReadOn)
        #expect(machine.demand == .held(pastDemand: Machine.pongReadAllowance))
        #expect(machine.readOnRequested() == .none)
        #expect(machine.readerAskedForRead() == .read)
        #expect(machine.demand == .reader)
        _ = machine.readCompleted()
        #expect(machine.readOnRequested() == .read)
    }

    @Test("After our close the socket is read on until the peer's answer, whatever the allowance")
    func readsPastDemandForClose() {
        var machine = Machine(maxMessageBytes: 1 << 22)
        _ = machine.readCompleted()
        #expect(machine.closeRequested(code: 1000, reason: "") == .sendAndWait(code: 1000, reason: "", readOn: true))
        #expect(machine.demand == .readingOn(pastDemand: 0))
        _ = machine.received(.data(.binary, Data(count: Machine.pongReadAllowance), fin: true))  // dropped
        #expect(machine.readCompleted() == .askToReadOn)
        #expect(machine.readOnRequested() == .read)
    }
}
