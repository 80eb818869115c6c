import Foundation
import Testing

@_spi(CourierInternals) @testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transitions of `URLSessionCall`'s state machine, one promised behaviour each, without URLSession, tasks or
/// timers: the task is a plain object, the caller a number, the stream and the file names, and the clock a value
/// the test moves. (The fault-server suites check the same behaviours end to end.)
@Suite struct URLSessionCallStateMachineTests {
    final class FakeTask: Sendable {}

    typealias Machine = URLSessionCallStateMachine<FakeTask, Int, String, String>

    /// The uptime clock the machine reads, moved by the tests.
    final class Clock: Sendable {
        let nanoseconds = LockedBox<UInt64>(1_000_000_000)
        func advance(_ duration: Duration) {
            nanoseconds.withLock { $0 += UInt64(duration.components.seconds) * 1_000_000_000 }
        }
    }

    static let url = URL(string: "http://127.0.0.1:1/resource") ?? URL(fileURLWithPath: "/resource")

    static func configuration(
        method: String = "GET",
        maxResponseBytes: Int = 1_000,
        delivery: Machine.Delivery = .memory,
        body: Machine.Body = Machine.Body(isEmpty: true, isInMemory: true, isReplayable: true),
        sendsRepeatedBodyHops: Bool = false,
        idleTimeout: Duration? = nil,
        clock: Clock = Clock()
    ) -> Machine.Configuration {
        Machine.Configuration(
            method: method, maxResponseBytes: maxResponseBytes, delivery: delivery, reportsProgress: true, body: body,
            sendsRepeatedBodyHops: sendsRepeatedBodyHops, idleTimeout: idleTimeout,
            now: { clock.nanoseconds.value })
    }

    static func response(_ status: Int, _ fields: [String: String] = [:]) throws -> HTTPURLResponse {
        try #require(HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields))
    }

    static func request(method: String = "GET") -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        return request
    }

    /// A machine whose first task was started, with caller 1.
    static func started(
        _ configuration: Machine.Configuration = configuration(), task: FakeTask = FakeTask(), resumable: Bool = false,
        method: String = "GET"
    ) -> Machine {
        var machine = Machine(configuration)
        let action = machine.receive(
            .started(task, caller: 1, session: .shared, request: request(method: method), resumable: resumable))
        #expect(action.name == "resumeTask")
        return machine
    }

    static let bytes = Data(repeating: 7, count: 6)

    // MARK: - Start and stop

    @Test func aCallStoppedBeforeItsTaskStartedRefusesTheStart() throws {
        var machine = Machine(Self.configuration())
        guard case .stop(let stopping) = machine.receive(.stopRequested(.cancelled, cancelsTask: true)) else {
            Issue.record("a call not started yet stops")
            return
        }
        #expect(stopping.caller == nil && stopping.task == nil)
        let task = FakeTask()
        let action = machine.receive(
            .started(task, caller: 1, session: .shared, request: Self.request(), resumable: false))
        guard case .refuseStart(let refused, let caller) = action else {
            Issue.record("expected refuseStart, got \(action.name)")
            return
        }
        #expect(refused === task && caller == 1)
    }

    static let reasons: [ExecutorStop] = [.cancelled, .timedOut, .responseTooLarge]

    @Test(arguments: reasons)
    func aCallStopsOnceAndAnswersItsCallerOnce(reason: ExecutorStop) throws {
        let task = FakeTask()
        var machine = Self.started(task: task)
        guard case .stop(let stopping) = machine.receive(.stopRequested(reason, cancelsTask: true)) else {
            Issue.record("the first stop ends the call")
            return
        }
        #expect(stopping.caller == 1 && stopping.task === task)
        #expect(machine.isAnswered)
        // A second stop, a late deadline, late bytes and the task's end answer nobody again.
        #expect(machine.receive(.stopRequested(.cancelled, cancelsTask: true)).name == "none")
        #expect(machine.receive(.deadlineFired).name == "none")
        #expect(machine.receive(.dataReceived(Self.bytes, task: task)).name == "none")
        guard case .finish(let finish) = machine.receive(.taskEnded(task: task, body: nil, failed: true)) else {
            Issue.record("the task's end is reported")
            return
        }
        #expect(finish.caller == nil)
    }

    @Test func aRefusedRedirectStopsWithoutCancellingTheTask() throws {
        var machine = Self.started()
        guard case .stop(let stopping) = machine.receive(.stopRequested(.cancelled, cancelsTask: false)) else {
            Issue.record("the call stops")
            return
        }
        #expect(stopping.caller == 1 && stopping.task == nil)
    }

    @Test func aStopClosesTheFileOfADownload() throws {
        var machine = Self.started(Self.configuration(delivery: .file))
        let head = try Self.response(200)
        #expect(machine.receive(.headReceived(head, task: FakeTask())).name == "openFile")
        _ = machine.receive(.fileOpened("file", Self.url, start: 0, expected: nil))
        guard case .stop(let stopping) = machine.receive(.stopRequested(.cancelled, cancelsTask: true)) else {
            Issue.record("the call stops")
            return
        }
        #expect(stopping.file == "file")
    }

    // MARK: - Deadline and idle timeout

    @Test func theDeadlineWinsOverLateData() throws {
        let task = FakeTask()
        var machine = Self.started(task: task)
        #expect(machine.receive(.dataReceived(Self.bytes, task: task)).name == "deliver")
        guard case .stop(let stopping) = machine.receive(.deadlineFired) else {
            Issue.record("the deadline stops the call")
            return
        }
        #expect(stopping.caller == 1)
        guard case .timedOut = stopping.reason else {
            Issue.record("the call timed out")
            return
        }
        // Bytes and a clean end after the deadline change nothing: the caller has its error.
        #expect(machine.receive(.dataReceived(Self.bytes, task: task)).name == "none")
        guard case .finish(let finish) = machine.receive(.taskEnded(task: task, body: nil, failed: false)) else {
            Issue.record("the task's end is reported")
            return
        }
        #expect(finish.caller == nil && finish.body.isEmpty)
    }

    @Test func aDownloadsIdleTimeoutReplacesTheDeadlineAndRestartsWithEachChunk() throws {
        let clock = Clock()
        let task = FakeTask()
        var machine = Self.started(
            Self.configuration(delivery: .file, idleTimeout: .seconds(10), clock: clock), task: task)
        let head = try Self.response(200)
        #expect(machine.receive(.headReceived(head, task: task)).name == "openFile")
        guard case .armIdleTimeout(let idle) = machine.receive(.fileOpened("file", Self.url, start: 0, expected: 12))
        else {
            Issue.record("the head arms the idle timeout")
            return
        }
        #expect(idle == .seconds(10))
        clock.advance(.seconds(4))
        #expect(machine.receive(.dataReceived(Self.bytes, task: task)).name == "deliver")
        clock.advance(.seconds(7))
        // 7 s quiet of 10: wait 3 more.
        guard case .rearmDeadline(let wait) = machine.receive(.deadlineFired) else {
            Issue.record("bytes came within the idle timeout")
            return
        }
        #expect(wait == .seconds(3))
        clock.advance(.seconds(3))
        guard case .stop(let stopping) = machine.receive(.deadlineFired) else {
            Issue.record("10 s without a byte stop the download")
            return
        }
        guard case .timedOut = stopping.reason else {
            Issue.record("the download timed out")
            return
        }
        #expect(stopping.file == "file")
    }

    @Test func aDownloadWithoutIdleTimeoutKeepsItsDeadline() throws {
        let task = FakeTask()
        var machine = Self.started(Self.configuration(delivery: .file), task: task)
        let head = try Self.response(200)
        _ = machine.receive(.headReceived(head, task: task))
        #expect(machine.receive(.fileOpened("file", Self.url, start: 0, expected: nil)).name == "none")
        #expect(machine.receive(.deadlineFired).name == "stop")
    }

    @Test func aStreamHandedOverIsNoLongerStoppedByTheDeadline() throws {
        let task = FakeTask()
        var machine = Self.started(Self.configuration(delivery: .stream), task: task)
        let head = try Self.response(200)
        #expect(machine.receive(.headReceived(head, task: task)).name == "openStream")
        let action = machine.receive(.streamOpened("stream", task: task, response: head, length: nil))
        guard case .handOverStream(let caller) = action else {
            Issue.record("the stream is handed over")
            return
        }
        #expect(caller == 1)
        // The deadline (left by the call at the hand-over) and cancellation of the caller no longer apply: the
        // stream's own idle timeout and its reader do.
        #expect(machine.receive(.deadlineFired).name == "none")
        #expect(machine.receive(.stopRequested(.cancelled, cancelsTask: true)).name == "none")
        guard
            case .deliver(_, .stream(let stream), let received, _) = machine.receive(
                .dataReceived(Self.bytes, task: task))
        else {
            Issue.record("the stream's bytes go on")
            return
        }
        #expect(stream == "stream" && received == 6)
    }

    @Test func aStreamWhoseReaderStoppedCancelsItsTask() throws {
        let task = FakeTask()
        var machine = Self.started(Self.configuration(delivery: .stream), task: task)
        let head = try Self.response(200)
        _ = machine.receive(.streamOpened("stream", task: task, response: head, length: nil))
        guard case .cancelTask(let cancelled) = machine.receive(.streamTerminated) else {
            Issue.record("the reader's stop cancels the task")
            return
        }
        #expect(cancelled === task)
        #expect(machine.receive(.dataReceived(Self.bytes, task: task)).name == "none")
    }

    // MARK: - Size limit

    @Test func theSizeLimitStopsTheCallWhileDataArrives() throws {
        let task = FakeTask()
        var machine = Self.started(Self.configuration(maxResponseBytes: 10), task: task)
        guard case .deliver(_, .memory, let received, _) = machine.receive(.dataReceived(Self.bytes, task: task)) else {
            Issue.record("6 bytes of 10 are kept")
            return
        }
        #expect(received == 6 && machine.body.count == 6)
        guard case .stop(let stopping) = machine.receive(.dataReceived(Self.bytes, task: task)) else {
            Issue.record("12 bytes of 10 stop the call")
            return
        }
        guard case .responseTooLarge = stopping.reason else {
            Issue.record("the response is too large")
            return
        }
        #expect(stopping.caller == 1 && stopping.task === task && machine.body.isEmpty)
        #expect(machine.receive(.dataReceived(Self.bytes, task: task)).name == "none")
    }

    @Test func filesAndStreamsAreNotBoundedByTheSizeLimit() throws {
        let task = FakeTask()
        var machine = Self.started(Self.configuration(maxResponseBytes: 4, delivery: .file), task: task)
        let head = try Self.response(200)
        _ = machine.receive(.headReceived(head, task: task))
        _ = machine.receive(.fileOpened("file", Self.url, start: 0, expected: nil))
        #expect(machine.receive(.dataReceived(Self.bytes, task: task)).name == "deliver")
    }

    struct HeadCase: Sendable, CustomTestStringConvertible {
        var method = "GET"
        var status = 200
        var fields: [String: String]
        var action: String
        var testDescription: String { "\(method) \(status) \(fields) → \(action)" }
    }

    static let headCases: [HeadCase] = [
        HeadCase(fields: ["Content-Length": "11"], action: "refuseBody"),
        HeadCase(fields: ["Content-Length": "10"], action: "allowBody"),
        HeadCase(fields: [:], action: "allowBody"),
        HeadCase(status: 500, fields: ["Content-Length": "11"], action: "refuseBody"),
        HeadCase(fields: ["Content-Length": "11", "Content-Encoding": "identity"], action: "refuseBody"),
        // The length of the encoded body says nothing of the decoded one.
        HeadCase(fields: ["Content-Length": "11", "Content-Encoding": "gzip"], action: "allowBody"),
        // A HEAD answer, a 204 and a 304 declare a length without a body.
        HeadCase(method: "HEAD", fields: ["Content-Length": "11"], action: "allowBody"),
        HeadCase(status: 204, fields: ["Content-Length": "11"], action: "allowBody"),
        HeadCase(status: 304, fields: ["Content-Length": "11"], action: "allowBody"),
    ]

    @Test(arguments: headCases)
    func aDeclaredLengthOverTheLimitFailsAtTheHead(_ head: HeadCase) throws {
        var machine = Self.started(Self.configuration(method: head.method, maxResponseBytes: 10), method: head.method)
        let response = try Self.response(head.status, head.fields)
        let action = machine.receive(.headReceived(response, task: FakeTask()))
        #expect(action.name == head.action)
        if case .refuseBody(let stopping) = action { #expect(stopping?.caller == 1) }
    }

    @Test func onlyA2xxGoesToTheFileOrTheStream() throws {
        for delivery in [Machine.Delivery.file, .stream] {
            var machine = Self.started(Self.configuration(delivery: delivery))
            let notFound = try Self.response(404)
            #expect(machine.receive(.headReceived(notFound, task: FakeTask())).name == "allowBody")
        }
    }

    // MARK: - Completion

    @Test func completionBeforeTheResponseWasDeliveredAnswersTheCallerWithTheBody() throws {
        let task = FakeTask()
        var machine = Self.started(task: task)
        let head = try Self.response(200, ["Content-Length": "12"])
        _ = machine.receive(.headReceived(head, task: task))
        _ = machine.receive(.dataReceived(Self.bytes, task: task))
        _ = machine.receive(.dataReceived(Self.bytes, task: task))
        guard case .finish(let finish) = machine.receive(.taskEnded(task: task, body: nil, failed: false)) else {
            Issue.record("the task's end finishes the call")
            return
        }
        #expect(finish.caller == 1 && finish.body.count == 12 && finish.response === head)
        #expect(finish.received == 12 && finish.expected == 12)
        #expect(machine.isAnswered && machine.body.isEmpty)
    }

    @Test func aCompletionHandlersBodyIsTheBody() throws {
        var machine = Self.started()
        guard case .finish(let finish) = machine.receive(.taskEnded(task: nil, body: Data([1, 2]), failed: false))
        else {
            Issue.record("the completion handler finishes the call")
            return
        }
        #expect(finish.caller == 1 && finish.body == Data([1, 2]))
    }

    @Test func completionAfterTheStreamWasHandedOverEndsTheStreamOnly() throws {
        let task = FakeTask()
        var machine = Self.started(Self.configuration(delivery: .stream), task: task)
        let head = try Self.response(200)
        _ = machine.receive(.streamOpened("stream", task: task, response: head, length: nil))
        guard case .finish(let finish) = machine.receive(.taskEnded(task: task, body: nil, failed: false)) else {
            Issue.record("the task's end finishes the stream")
            return
        }
        #expect(finish.caller == nil)
        guard case .stream(let feed) = finish.sink else {
            Issue.record("the stream is finished")
            return
        }
        #expect(feed.stream == "stream")
        // The stream ends once.
        guard case .finish(let again) = machine.receive(.taskEnded(task: nil, body: nil, failed: false)),
            case .memory = again.sink
        else {
            Issue.record("a second end finds no stream")
            return
        }
    }

    @Test func aDeclinedChallengesResponseIsKeptForTheEnd() throws {
        var machine = Self.started()
        let unauthorized = try Self.response(401)
        _ = machine.receive(.challengeDeclined(unauthorized))
        guard case .finish(let finish) = machine.receive(.taskEnded(task: nil, body: nil, failed: true)) else {
            Issue.record("the cancelled task's end finishes the call")
            return
        }
        #expect(finish.declined === unauthorized)
    }

    // MARK: - Redirects

    struct RedirectCase: Sendable, CustomTestStringConvertible {
        var name: String
        var decision: RedirectDecision
        var repeatsBody = false
        var body = Machine.Body(isEmpty: true, isInMemory: true, isReplayable: true)
        var sendsRepeatedBodyHops = false
        var method = "POST"
        var action: String
        var testDescription: String { name }
    }

    static let data = Machine.Body(isEmpty: false, isInMemory: true, isReplayable: true)
    static let file = Machine.Body(isEmpty: false, isInMemory: false, isReplayable: true)
    static let oneShot = Machine.Body(isEmpty: false, isInMemory: false, isReplayable: false)

    static let redirectCases: [RedirectCase] = [
        RedirectCase(name: "302 followed", decision: .follow, action: "followRedirect"),
        RedirectCase(
            name: "303 of a one-shot body followed", decision: .follow, body: oneShot, action: "followRedirect"),
        RedirectCase(
            name: "307 of data followed by the task", decision: .follow, repeatsBody: true, body: data,
            action: "followRedirect"),
        RedirectCase(
            name: "307 of a one-shot body is the response", decision: .follow, repeatsBody: true, body: oneShot,
            sendsRepeatedBodyHops: true, action: "declineRedirect"),
        RedirectCase(
            name: "308 of a file sent by the call (Linux)", decision: .follow, repeatsBody: true, body: file,
            sendsRepeatedBodyHops: true, action: "takeOverRedirect"),
        RedirectCase(
            name: "307 without a body followed by the task (Linux)", decision: .follow, repeatsBody: true,
            sendsRepeatedBodyHops: true, action: "followRedirect"),
        RedirectCase(
            name: "307 after a hop turned the method into GET (Linux)", decision: .follow, repeatsBody: true,
            body: file, sendsRepeatedBodyHops: true, method: "GET", action: "followRedirect"),
        RedirectCase(name: "policy stops", decision: .stop, action: "declineRedirect"),
        RedirectCase(name: "policy refuses", decision: .refuse, action: "refuseRedirect"),
        RedirectCase(name: "too many", decision: .fail(.tooManyRedirects), repeatsBody: true, action: "refuseRedirect"),
    ]

    @Test(arguments: redirectCases)
    func theRedirectDecision(_ redirect: RedirectCase) throws {
        let configuration = Self.configuration(
            method: "POST", body: redirect.body, sendsRepeatedBodyHops: redirect.sendsRepeatedBodyHops)
        var machine = Self.started(configuration, method: redirect.method)
        #expect(machine.receive(.redirectReceived).name == "decideRedirect")
        let action = machine.receive(.redirectDecided(redirect.decision, repeatsBody: redirect.repeatsBody))
        #expect(action.name == redirect.action)
    }

    @Test func redirectsAreNumberedAcrossTheCall() throws {
        var machine = Self.started()
        for expected in 1...3 {
            guard case .decideRedirect(let number) = machine.receive(.redirectReceived) else {
                Issue.record("the policy decides")
                return
            }
            #expect(number == expected)
            _ = machine.receive(.redirectFollowed(Self.request()))
        }
    }

    @Test func aFollowedRedirectsOwnBodyIsNotTheResponse() throws {
        let task = FakeTask()
        var machine = Self.started(task: task)
        _ = machine.receive(.dataReceived(Self.bytes, task: task))
        _ = machine.receive(.redirectReceived)
        _ = machine.receive(.redirectFollowed(Self.request()))
        #expect(machine.body.isEmpty && machine.received == 0)
    }

    @Test func aHopTheCallSendsItselfStartsWhenTheRedirectResponseEnds() throws {
        let task = FakeTask()
        let configuration = Self.configuration(method: "POST", body: Self.file, sendsRepeatedBodyHops: true)
        var machine = Self.started(configuration, task: task, method: "POST")
        _ = machine.receive(.redirectReceived)
        guard case .takeOverRedirect(let current?) = machine.receive(.redirectDecided(.follow, repeatsBody: true))
        else {
            Issue.record("the call takes the hop over")
            return
        }
        var next = current
        next.url = URL(string: "http://127.0.0.1:1/next")
        _ = machine.receive(.hopPrepared(next))
        _ = machine.receive(.dataReceived(Self.bytes, task: task))
        guard case .sendHop(let sent, let session) = machine.receive(.taskEnded(task: task, body: nil, failed: false))
        else {
            Issue.record("the redirect's end sends the hop")
            return
        }
        #expect(sent.url == next.url && session === URLSession.shared && machine.body.isEmpty)
        let hop = FakeTask()
        guard case .resumeTask(let resumed) = machine.receive(.hopStarted(hop, request: sent)) else {
            Issue.record("the hop's task starts")
            return
        }
        #expect(resumed === hop)
        // The hop's task is the call's now: a stop cancels it.
        guard case .stop(let stopping) = machine.receive(.stopRequested(.cancelled, cancelsTask: true)) else {
            Issue.record("the call stops")
            return
        }
        #expect(stopping.task === hop && stopping.caller == 1)
    }

    @Test func aHopPreparedForAFailedRedirectResponseIsNotSent() throws {
        var machine = Self.started()
        _ = machine.receive(.hopPrepared(Self.request()))
        #expect(machine.receive(.taskEnded(task: nil, body: nil, failed: true)).name == "finish")
    }

    @Test func aHopOfAStoppedCallIsCancelled() throws {
        var machine = Self.started()
        _ = machine.receive(.hopPrepared(Self.request()))
        _ = machine.receive(.stopRequested(.timedOut, cancelsTask: true))
        // The call ended: the hop is not sent, and a hop task made in between is cancelled.
        #expect(machine.receive(.taskEnded(task: nil, body: nil, failed: false)).name == "finish")
        let late = FakeTask()
        guard case .cancelTask(let cancelled) = machine.receive(.hopStarted(late, request: Self.request())) else {
            Issue.record("the late hop is cancelled")
            return
        }
        #expect(cancelled === late)
    }

    @Test func theRequestsOwnCookiesAreLeftBehindFromTheFirstHopToAnotherOrigin() throws {
        var machine = Self.started()
        let crossings = [false, true, false]
        let own = crossings.map { crossing -> Bool in
            guard case .setCookieField(let ownPairs) = machine.receive(.cookieFieldNeeded(crossingOrigin: crossing))
            else { return true }
            return ownPairs
        }
        #expect(own == [true, false, false])
    }

    // MARK: - Upload body streams

    struct BodyStreamCase: Sendable, CustomTestStringConvertible {
        var name: String
        var body: Machine.Body
        var provides: Bool
        var testDescription: String { name }
    }

    static let bodyStreamCases: [BodyStreamCase] = [
        BodyStreamCase(name: "a file or a replayable form", body: file, provides: true),
        BodyStreamCase(name: "a one-shot stream", body: oneShot, provides: false),
        BodyStreamCase(name: "data (URLSession sends it again itself)", body: data, provides: false),
    ]

    @Test(arguments: bodyStreamCases)
    func aNewBodyStreamIsGivenEachTimeForAReplayableBodyOnly(_ body: BodyStreamCase) throws {
        var machine = Self.started(Self.configuration(body: body.body))
        for _ in 1...2 {
            guard case .provideBodyStream(let provides) = machine.receive(.bodyStreamRequested) else {
                Issue.record("the request is answered")
                return
            }
            #expect(provides == body.provides)
        }
    }

    // MARK: - A stream asked for again (the Linux window)

    static func resumable() throws -> HTTPURLResponse {
        try response(200, ["Content-Length": "100", "Accept-Ranges": "bytes", "ETag": "\"v1\""])
    }

    /// A stream fed by `task`, handed over, whose response can be asked for again, with 6 bytes received.
    static func pausableStream(task: FakeTask) throws -> Machine {
        var machine = started(configuration(delivery: .stream), task: task, resumable: true)
        let head = try resumable()
        _ = machine.receive(.headReceived(head, task: task))
        _ = machine.receive(.streamOpened("stream", task: task, response: head, length: 100))
        _ = machine.receive(.dataReceived(bytes, task: task))
        return machine
    }

    @Test func aPausedStreamIsAskedForAgainFromTheBytesItWasHanded() throws {
        let task = FakeTask()
        var machine = try Self.pausableStream(task: task)
        #expect(machine.receive(.pauseRequested(task: task)).name == "pauseStream")
        // The cancelled task's last bytes and its end are not the stream's.
        #expect(machine.receive(.dataReceived(Self.bytes, task: task)).name == "none")
        #expect(machine.receive(.taskEnded(task: task, body: nil, failed: true)).name == "none")
        guard case .resumeStream(let request, _) = machine.receive(.resumeRequested(streamCancelled: false)) else {
            Issue.record("the rest is asked for")
            return
        }
        #expect(request.value(forHTTPHeaderField: "Range") == "bytes=6-")
        #expect(request.value(forHTTPHeaderField: "If-Range") == "\"v1\"")
        let next = FakeTask()
        #expect(machine.receive(.resumeStarted(next, streamCancelled: false)).name == "resumeTask")
        let partial = try Self.response(206, ["Content-Range": "bytes 6-99/100"])
        #expect(machine.receive(.headReceived(partial, task: next)).name == "allowBody")
        guard case .deliver(_, _, let received, _) = machine.receive(.dataReceived(Self.bytes, task: next)) else {
            Issue.record("the new task feeds the stream")
            return
        }
        #expect(received == 12)
    }

    @Test func aWholeBodyAgainIsSkippedUpToWhereTheStreamWas() throws {
        let task = FakeTask()
        var machine = try Self.pausableStream(task: task)
        _ = machine.receive(.pauseRequested(task: task))
        _ = machine.receive(.resumeRequested(streamCancelled: false))
        let next = FakeTask()
        _ = machine.receive(.resumeStarted(next, streamCancelled: false))
        let head = try Self.resumable()
        #expect(machine.receive(.headReceived(head, task: next)).name == "allowBody")
        #expect(machine.receive(.dataReceived(Data(repeating: 1, count: 4), task: next)).name == "none")
        guard case .deliver(let data, _, let received, _) = machine.receive(.dataReceived(Self.bytes, task: next))
        else {
            Issue.record("bytes past the skipped ones go on")
            return
        }
        #expect(data.count == 4 && received == 10)
        // A stream read again from its start is not paused again.
        #expect(machine.receive(.pauseRequested(task: next)).name == "none")
    }

    @Test func aChangedResponseFailsThePausedStream() throws {
        let task = FakeTask()
        var machine = try Self.pausableStream(task: task)
        _ = machine.receive(.pauseRequested(task: task))
        _ = machine.receive(.resumeRequested(streamCancelled: false))
        let next = FakeTask()
        _ = machine.receive(.resumeStarted(next, streamCancelled: false))
        let changed = try Self.response(200, ["Content-Length": "100", "ETag": "\"v2\""])
        guard case .failStream(let stream, let received) = machine.receive(.headReceived(changed, task: next)) else {
            Issue.record("the stream fails")
            return
        }
        #expect(stream == "stream" && received == 6)
    }

    @Test func aStreamWhoseReaderStoppedWhilePausedIsNotAskedForAgain() throws {
        let task = FakeTask()
        var machine = try Self.pausableStream(task: task)
        _ = machine.receive(.pauseRequested(task: task))
        #expect(machine.receive(.resumeRequested(streamCancelled: true)).name == "none")
        #expect(machine.receive(.resumeStarted(FakeTask(), streamCancelled: false)).name == "none")
    }

    @Test func aStreamWithoutValidatorIsNotPaused() throws {
        let task = FakeTask()
        var machine = Self.started(Self.configuration(delivery: .stream), task: task, resumable: true)
        let head = try Self.response(200, ["Content-Length": "100"])
        _ = machine.receive(.streamOpened("stream", task: task, response: head, length: 100))
        #expect(machine.receive(.pauseRequested(task: task)).name == "none")
    }
}

extension URLSessionCallStateMachine.Action {
    /// The action's case, for comparing in tables.
    var name: String {
        switch self {
        case .none: "none"
        case .resumeTask: "resumeTask"
        case .refuseStart: "refuseStart"
        case .cancelTask: "cancelTask"
        case .stop: "stop"
        case .rearmDeadline: "rearmDeadline"
        case .allowBody: "allowBody"
        case .openFile: "openFile"
        case .openStream: "openStream"
        case .refuseBody: "refuseBody"
        case .failStream: "failStream"
        case .armIdleTimeout: "armIdleTimeout"
        case .handOverStream: "handOverStream"
        case .deliver: "deliver"
        case .pauseStream: "pauseStream"
        case .resumeStream: "resumeStream"
        case .decideRedirect: "decideRedirect"
        case .declineRedirect: "declineRedirect"
        case .followRedirect: "followRedirect"
        case .takeOverRedirect: "takeOverRedirect"
        case .refuseRedirect: "refuseRedirect"
        case .sendHop: "sendHop"
        case .setCookieField: "setCookieField"
        case .provideBodyStream: "provideBodyStream"
        case .finish: "finish"
        }
    }
}
