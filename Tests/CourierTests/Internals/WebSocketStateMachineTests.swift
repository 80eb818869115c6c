@_spi(CourierInternals) import Courier
import Foundation
import Testing

/// The wire rules of a WebSocket (RFC 6455) as `WebSocketStateMachine` transitions, without any network: the close
/// handshake in both directions, pings and a missed pong, fragments and the size limit, violations, reads past the
/// reader's demand.
@Suite("WebSocketStateMachine")
struct WebSocketStateMachineTests {
    typealias Machine = WebSocketStateMachine<Data>

    /// What an action did, comparable: the frames written and what reached the reader.
    enum Effect: Equatable {
        case none, deliver(Machine.MessageKind, Data), pong(Data), ping, close(code: Int?), completePings
        case answer(code: Int?, delivered: WebSocketClose), peerClosed, fail(Machine.Violation, closeCode: Int?)

        init(_ action: Machine.Action) {
            switch action {
            case .none: self = .none
            case .deliver(let kind, let payload): self = .deliver(kind, payload)
            case .write(.pong(let payload)): self = .pong(payload)
            case .write(.ping): self = .ping
            case .write(.close(let code, _)): self = .close(code: code)
            case .completePings: self = .completePings
            case .answerClose(.close(let code, _), let close): self = .answer(code: code, delivered: close)
            case .answerClose: self = .none
            case .peerClosed: self = .peerClosed
            case .fail(let violation, .some(.close(let code, _))): self = .fail(violation, closeCode: code)
            case .fail(let violation, _): self = .fail(violation, closeCode: nil)
            }
        }
    }

    static func text(_ text: String) -> Data { Data(text.utf8) }

    // MARK: The close handshake

    @Test(
        "The peer's close is answered at once with its code, and handed to the reader",
        arguments: [1000, 1001, 1008, 1011, 4000])
    func peerCloseAnswered(code: Int) {
        var machine = Machine(maxMessageBytes: 100)
        let effect = Effect(machine.received(.close(code: code, reason: "bye")))
        #expect(effect == .answer(code: code, delivered: WebSocketClose(code: code, reason: "bye")))
        #expect(machine.state == .closeReceived)
    }

    @Test("A close without a code is answered with an empty close frame; the reader sees 1005")
    func peerCloseWithoutCode() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(
            Effect(machine.received(.close(code: nil, reason: "")))
                == .answer(code: nil, delivered: WebSocketClose(code: 1005)))
    }

    @Test("The peer's close is answered once: a second close frame does nothing")
    func peerCloseAnsweredOnce() {
        var machine = Machine(maxMessageBytes: 100)
        _ = machine.received(.close(code: 1000, reason: ""))
        #expect(Effect(machine.received(.close(code: 1000, reason: ""))) == .none)
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
        #expect(Effect(machine.received(.close(code: 1000, reason: ""))) == .peerClosed)
        #expect(machine.state == .closeReceived)
        #expect(machine.closeRequested(code: 1000, reason: "") == .close)
    }

    @Test("Data, pings and unknown frames after our close are dropped, unanswered")
    func framesAfterOurClose() {
        var machine = Machine(maxMessageBytes: 100)
        _ = machine.closeRequested(code: 1000, reason: "")
        #expect(Effect(machine.received(.data(.text, Self.text("late"), fin: true))) == .none)
        #expect(Effect(machine.received(.ping(Data()))) == .none)
        #expect(Effect(machine.pingRequested()) == .none)
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
        guard
            case .fail(.protocolError, close: .close(code: 1002, _)?) = machine.received(.close(code: code, reason: ""))
        else { return #expect(Bool(false), "not failed with 1002") }
        #expect(machine.state == .failed)
    }

    @Test("Once the connection ended, a close does nothing")
    func closeAfterEnd() {
        var machine = Machine(maxMessageBytes: 100)
        machine.connectionEnded()
        #expect(machine.closeRequested(code: 1000, reason: "") == .none)
        #expect(machine.state == .closed)
    }

    // MARK: Order: messages before the end

    @Test("Messages that arrived before the peer's close are handed on first, in order")
    func messagesBeforeClose() {
        var machine = Machine(maxMessageBytes: 100)
        let effects = [
            machine.received(.data(.text, Self.text("one"), fin: true)),
            machine.received(.data(.binary, Data([2]), fin: true)),
            machine.received(.close(code: 1000, reason: "")),
            machine.received(.data(.text, Self.text("after"), fin: true)),
        ].map(Effect.init)
        #expect(
            effects == [
                .deliver(.text, Self.text("one")), .deliver(.binary, Data([2])),
                .answer(code: 1000, delivered: WebSocketClose(code: 1000)), .none,
            ])
    }

    @Test("A message that arrived before a drop is handed on before the end: the end changes nothing handed on")
    func messageBeforeDrop() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(
            Effect(machine.received(.data(.text, Self.text("last"), fin: true))) == .deliver(.text, Self.text("last")))
        machine.connectionEnded()
        #expect(machine.state == .closed)
        #expect(machine.pingsAwaitingPong == 0)
    }

    // MARK: Pings

    @Test("A ping is answered with a pong carrying its payload")
    func pingAnswered() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(Effect(machine.received(.ping(Data([7, 8])))) == .pong(Data([7, 8])))
    }

    @Test("A pong completes the pings waiting for it; an unasked pong does nothing")
    func pongCompletesPings() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(Effect(machine.received(.pong)) == .none)
        #expect(Effect(machine.pingRequested()) == .ping)
        #expect(Effect(machine.pingRequested()) == .ping)
        #expect(machine.pingsAwaitingPong == 2)
        #expect(Effect(machine.received(.pong)) == .completePings)
        #expect(machine.pingsAwaitingPong == 0)
    }

    @Test("After a missed pong our close does not wait for the unresponsive peer")
    func missedPongClosesAtOnce() {
        var machine = Machine(maxMessageBytes: 100)
        _ = machine.pingRequested()
        machine.pongAbandoned()
        #expect(machine.pongOverdue)
        #expect(
            machine.closeRequested(code: 1011, reason: "ping timeout")
                == .sendAndClose(code: 1011, reason: "ping timeout"))
    }

    @Test("A pong that arrives after all makes the peer responsive again: the close waits for its answer")
    func latePongRestoresWait() {
        var machine = Machine(maxMessageBytes: 100)
        _ = machine.pingRequested()
        machine.pongAbandoned()
        _ = machine.received(.pong)
        #expect(!machine.pongOverdue)
        guard case .sendAndWait = machine.closeRequested(code: 1000, reason: "") else {
            return #expect(Bool(false), "the close does not wait")
        }
    }

    @Test("Giving up on no ping changes nothing")
    func abandonWithoutPing() {
        var machine = Machine(maxMessageBytes: 100)
        machine.pongAbandoned()
        #expect(!machine.pongOverdue)
    }

    // MARK: Fragments and the size limit

    @Test("Fragments are joined into one message")
    func fragmentsJoined() {
        var machine = Machine(maxMessageBytes: 100)
        #expect(Effect(machine.received(.data(.text, Self.text("he"), fin: false))) == .none)
        #expect(Effect(machine.received(.continuation(Self.text("ll"), fin: false))) == .none)
        #expect(Effect(machine.received(.ping(Data()))) == .pong(Data()))  // control frames may come in between
        #expect(
            Effect(machine.received(.continuation(Self.text("o"), fin: true))) == .deliver(.text, Self.text("hello")))
    }

    @Test(
        "The size limit is inclusive, for a whole message and for one joined from fragments",
        arguments: [(10, true), (11, false)])
    func sizeLimit(size: Int, accepted: Bool) {
        var whole = Machine(maxMessageBytes: 10)
        var joined = Machine(maxMessageBytes: 10)
        let payload = Data(repeating: 1, count: size)
        let wholeEffect = Effect(whole.received(.data(.binary, payload, fin: true)))
        _ = joined.received(.data(.binary, payload.prefix(4), fin: false))
        let joinedEffect = Effect(joined.received(.continuation(payload.dropFirst(4), fin: true)))
        let refused = Effect.fail(.messageTooLarge(limit: 10), closeCode: 1009)
        #expect(wholeEffect == (accepted ? .deliver(.binary, payload) : refused))
        #expect(joinedEffect == (accepted ? .deliver(.binary, payload) : refused))
    }

    @Test(
        "Frames out of place fail the connection with 1002, and a text that is not UTF-8 with 1007",
        arguments: ["continuation", "nested", "unknown", "text"])
    func violations(kind: String) {
        var machine = Machine(maxMessageBytes: 100)
        let action: Machine.Action
        switch kind {
        case "continuation": action = machine.received(.continuation(Data([1]), fin: true))
        case "nested":
            _ = machine.received(.data(.text, Self.text("a"), fin: false))
            action = machine.received(.data(.text, Self.text("b"), fin: true))
        case "unknown": action = machine.received(.unknown(opcode: 3))
        default: action = machine.receivedInvalidText()
        }
        guard case .fail(let violation, close: .close(let code, _)?) = action else {
            return #expect(Bool(false), "not failed")
        }
        #expect(code == violation.closeCode)
        #expect(code == (kind == "text" ? 1007 : 1002))
        #expect(machine.state == .failed)
        // Failed once: no second close frame.
        guard case .fail(_, close: nil) = machine.receivedInvalidText() else { return #expect(Bool(false)) }
    }

    @Test("A frame the decoder refused: over the limit 1009, broken 1002")
    func decoderRefusals() {
        var large = Machine(maxMessageBytes: 5)
        var broken = Machine(maxMessageBytes: 5)
        #expect(Effect(large.frameRefused(tooLarge: true, "")) == .fail(.messageTooLarge(limit: 5), closeCode: 1009))
        #expect(Effect(broken.frameRefused(tooLarge: false, "bad")) == .fail(.protocolError("bad"), closeCode: 1002))
    }

    // MARK: Reads past the reader's demand

    @Test("While a pong is awaited and the reader holds reads back, the socket is read on, once at a time")
    func readsPastDemandForPong() {
        var machine = Machine(maxMessageBytes: 1 << 21)
        do {
            let result = machine.readCompleted()  // nothing awaited: the reader's backpressure holds
            #expect(!result)
        }
        do {
            let result = machine.startReadingPastDemand()
            #expect(!result)
        }
        _ = machine.pingRequested()
        do {
            let result = machine.readCompleted()
            #expect(result)
        }
        do {
            let result = machine.startReadingPastDemand()
            #expect(result)
        }
        do {
            let result = machine.startReadingPastDemand()  // one read under way
            #expect(!result)
        }
        _ = machine.readCompleted()
        do {
            let result = machine.startReadingPastDemand()
            #expect(result)
        }
    }

    @Test("Reads past the demand stop at the allowance of data bytes, and start again when the reader reads")
    func readAllowance() {
        var machine = Machine(maxMessageBytes: 1 << 22)
        _ = machine.pingRequested()
        _ = machine.readCompleted()
        do {
            let result = machine.startReadingPastDemand()
            #expect(result)
        }
        _ = machine.received(.data(.binary, Data(count: Machine.pongReadAllowance), fin: true))
        _ = machine.readCompleted()
        #expect(machine.bytesPastDemand == Machine.pongReadAllowance)
        do {
            let result = machine.startReadingPastDemand()
            #expect(!result)
        }
        machine.readerAskedForRead()
        #expect(machine.bytesPastDemand == 0)
    }

    @Test("After our close the socket is read on until the peer's answer, whatever the allowance")
    func readsPastDemandForClose() {
        var machine = Machine(maxMessageBytes: 100)
        _ = machine.readCompleted()
        #expect(machine.closeRequested(code: 1000, reason: "") == .sendAndWait(code: 1000, reason: "", readOn: true))
        _ = machine.readCompleted()
        do {
            let result = machine.startReadingPastDemand()
            #expect(result)
        }
    }
}
