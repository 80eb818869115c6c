@_spi(CourierInternals) import Courier
import CourierTesting
import Foundation
import Testing

/// Observers told only each call's start and end (what `.metrics()` is): told once each, in order, with the
/// outcome, for every call form, without a timeline unless another observer wants one.
@Suite struct CallOutcomeObserverTests {
    typealias User = CallTimelineTests.User
    static let user = CallTimelineTests.user

    /// What the observer was told, in order: `started <path>` and `ended <path> <status> <failure> <bytes>`.
    final class Outcomes: CallOutcomeObserver {
        final class Token: Sendable {}
        let told = LockedBox<[String]>([])
        let token = Token()
        let tokensBack = LockedBox(0)

        func callStarted(_ request: APIRequest) -> (any AnyObject & Sendable)? {
            told.withLock { $0.append("started \(request.endpoint.path)") }
            return token
        }

        func callEnded(_ request: APIRequest, outcome: CallOutcome, context: (any AnyObject & Sendable)?) {
            if context === token { tokensBack.withLock { $0 += 1 } }
            let failure = outcome.failure.map { "\($0)" } ?? "-"
            let status = outcome.statusCode.map { "\($0)" } ?? "-"
            let bytes = outcome.responseBytes.map { "\($0)" } ?? "-"
            told.withLock { $0.append("ended \(request.endpoint.path) \(status) \(failure) \(bytes)") }
            #expect(outcome.duration >= .zero)
        }

        func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
            told.withLock { $0.append("event \(event.kind.rawValue)") }
        }
    }

    func configuration(
        _ statuses: [Int], observers: [any CallObserver], plugins: [any APIPlugin] = []
    )
        -> APIConfiguration
    {
        testConfiguration.with {
            $0.executor = CallTimelineTests.answering(statuses, headers: ["Retry-After": "0"])
            $0.observers = observers
            $0.plugins = plugins
        }
    }

    @Test("A call is told as started then ended, once each, with its status and body size; no timeline is recorded")
    func successIsToldOnce() async throws {
        let outcomes = Outcomes()
        let configuration = configuration([503, 200], observers: [outcomes], plugins: [.retry()])

        let response: DecodedResponse<User> = try await Self.user.request(with: 1, using: configuration)

        #expect(response.value == User(id: 1))
        #expect(outcomes.told.value == ["started /users/{id}", "ended /users/{id} 200 - 8"])
        #expect(outcomes.tokensBack.value == 1)
        #expect(response.timeline == nil)
    }

    @Test("A failing call is told its status and reason; the error has no timeline")
    func failureIsTold() async throws {
        let outcomes = Outcomes()
        let configuration = configuration([404], observers: [outcomes])

        let error = try await #require(throws: APIError.self) {
            try await Self.user.request(with: 1, using: configuration) as User
        }

        #expect(outcomes.told.value == ["started /users/{id}", "ended /users/{id} 404 \(error.reason) 0"])
        #expect(error.timeline == nil)
    }

    @Test("With an event observer beside it, the timeline is recorded and the outcome observer is still told once")
    func besideAnEventObserver() async throws {
        let outcomes = Outcomes()
        let events = CallTimelineTests.Recorder()
        let configuration = configuration([200], observers: [outcomes, events])

        let response: DecodedResponse<User> = try await Self.user.request(with: 1, using: configuration)

        #expect(outcomes.told.value == ["started /users/{id}", "ended /users/{id} 200 - 8"])
        #expect(events.kinds == [.started, .built, .attemptStarted, .responseReceived, .decoded, .finished])
        #expect(response.timeline?.events.count == 6)
    }

    @Test(
        "Every call form tells its start and end once",
        arguments: ["request", "send", "raw", "stream", "download"])
    func everyCallForm(form: String) async throws {
        let outcomes = Outcomes()
        let two = Outcomes()
        let configuration = configuration([200], observers: [outcomes, two])
        switch form {
        case "request": _ = try await Self.user.request(with: 1, using: configuration) as User
        case "send": try await Self.user.makeRequest(with: 1, using: configuration).send(using: configuration)
        case "raw": try await Self.user.request(with: 1, using: configuration)
        case "stream": _ = try await Self.user.stream(with: 1, using: configuration)
        default:
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("outcome-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            try await Self.user.download(with: 1, to: file, using: configuration)
        }
        for observer in [outcomes, two] {
            #expect(observer.told.value.count == 2)
            #expect(observer.told.value.first == "started /users/{id}")
            #expect(observer.told.value.last?.hasPrefix("ended /users/{id} 200 -") == true)
            #expect(observer.tokensBack.value == 1)
        }
    }
}
