import Courier
import CourierTesting
import Foundation
import Testing

/// Which refresh a rejected call shares, with every response and every refresh released by the test in the order it
/// chooses: a call sent before a refresh ended shares that refresh's outcome, success or failure; only a call sent
/// after it starts a new refresh.
@Suite struct RefreshOutcomeSharingTests {
    static let me = GET<String>(wrappedValue: .init { ["call": $0] }, "/me")

    struct RefreshDenied: Error, Equatable {
        let number: Int
    }

    /// A refresh the test did not plan for: it fails at once, so that a test of a second refresh fails instead of
    /// hanging.
    struct UnplannedRefresh: Error, Equatable {
        let number: Int
    }

    /// Holds every request the executor receives until the test answers it, and every planned refresh until the
    /// test ends it.
    actor Switchboard {
        private struct Held {
            let label: String
            let authorization: String?
            let answer: CheckedContinuation<StubResponse, Never>
        }

        private var held: [Held] = []
        private var arrivalWaiter: (label: String, continuation: CheckedContinuation<String?, Never>)?
        /// How many refreshes the test ends itself; later ones fail at once with `UnplannedRefresh`.
        private let planned: Int
        private(set) var refreshes = 0
        private var runningRefresh: CheckedContinuation<String, any Error>?
        private var refreshWaiter: CheckedContinuation<Void, Never>?
        private var joins = 0
        private var joinWaiter: (count: Int, continuation: CheckedContinuation<Void, Never>)?

        init(plannedRefreshes: Int) {
            planned = plannedRefreshes
        }

        // The executor's side.

        func arrive(_ request: APIRequest) async -> StubResponse {
            let label = request.queryItems.first { $0.name == "call" }?.value ?? "?"
            let authorization = request.headers[.authorization]
            return await withCheckedContinuation { continuation in
                held.append(Held(label: label, authorization: authorization, answer: continuation))
                if let waiter = arrivalWaiter, waiter.label == label {
                    arrivalWaiter = nil
                    waiter.continuation.resume(returning: authorization)
                }
            }
        }

        // The plugin's side.

        func refresh() async throws -> String {
            refreshes += 1
            guard refreshes <= planned else { throw UnplannedRefresh(number: refreshes) }
            return try await withCheckedThrowingContinuation { continuation in
                runningRefresh = continuation
                refreshWaiter?.resume()
                refreshWaiter = nil
            }
        }

        nonisolated func noteJoin() {
            Task { await self.joined() }
        }

        private func joined() {
            joins += 1
            if let waiter = joinWaiter, joins >= waiter.count {
                joinWaiter = nil
                waiter.continuation.resume()
            }
        }

        // The test's side.

        /// Waits until a request of the call `label` is held, and returns its `Authorization` header.
        func received(_ label: String) async -> String? {
            if let first = held.first(where: { $0.label == label }) { return first.authorization }
            return await withCheckedContinuation { arrivalWaiter = (label, $0) }
        }

        /// Answers the oldest held request of the call `label` with `status`.
        func answer(_ label: String, _ status: Int) {
            guard let index = held.firstIndex(where: { $0.label == label }) else {
                Issue.record("no request of call \(label) is waiting for an answer")
                return
            }
            held.remove(at: index).answer.resume(returning: StubResponse(statusCode: status, body: Data(label.utf8)))
        }

        /// Waits until a planned refresh runs.
        func refreshRuns() async {
            if runningRefresh != nil { return }
            await withCheckedContinuation { refreshWaiter = $0 }
        }

        /// Ends the running refresh with `outcome`.
        func endRefresh(_ outcome: Result<String, RefreshDenied>) {
            guard let running = runningRefresh else {
                Issue.record("no refresh is running")
                return
            }
            runningRefresh = nil
            running.resume(with: outcome.mapError { $0 })
        }

        /// Waits until `count` calls have joined a running refresh.
        func joinsReach(_ count: Int) async {
            if joins >= count { return }
            await withCheckedContinuation { joinWaiter = (count, $0) }
        }
    }

    /// Tells the switchboard each time a call joins a running refresh.
    struct JoinWatcher: CallObserver {
        let board: Switchboard

        func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
            if event.kind == .authRefresh, event.detail == "joined" { board.noteJoin() }
        }
    }

    /// A configuration whose executor and refresh the switchboard holds, and whose stored token starts as `token-0`.
    func configuration(_ board: Switchboard, token: LockedBox<String>) -> APIConfiguration {
        let auth = RefreshingAuthPlugin<String>(
            credential: { token.value },
            refresh: { _ in
                let fresh = try await board.refresh()
                token.withLock { $0 = fresh }
                return fresh
            },
            apply: { value, request in request.headers[.authorization] = "Bearer \(value)" }
        )
        let executor = StubExecutor().stub(where: { _ in true }) { await board.arrive($0) }
        return testConfiguration.with {
            $0.executor = executor
            $0.plugins = [auth]
            $0.observers = [JoinWatcher(board: board)]
        }
    }

    static func call(_ label: String, using configuration: APIConfiguration) -> Task<Result<String, APIError>, Never> {
        Task {
            do throws(APIError) {
                return .success(try await Self.me.request(with: label, using: configuration))
            } catch {
                return .failure(error)
            }
        }
    }

    /// How the first refresh ends.
    enum Outcome: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case succeeds = "the refresh succeeds"
        case fails = "the refresh fails"

        var testDescription: String { rawValue }

        var result: Result<String, RefreshDenied> {
            self == .succeeds ? .success("token-1") : .failure(RefreshDenied(number: 1))
        }
    }

    /// When the second call's 401 arrives.
    enum Moment: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case whileTheRefreshRuns = "while the refresh runs"
        case afterTheRefreshEnded = "after the refresh ended"

        var testDescription: String { rawValue }
    }

    /// What a call ended with, comparable across calls: its body, or the refresh error it failed with.
    static func summary(_ result: Result<String, APIError>) -> String {
        switch result {
        case .success(let body): "200 \(body)"
        case .failure(let error):
            if let denied = error.underlyingError as? RefreshDenied {
                "denied by refresh \(denied.number)"
            } else if let unplanned = error.underlyingError as? UnplannedRefresh {
                "unplanned refresh \(unplanned.number)"
            } else {
                "\(error.reason)"
            }
        }
    }

    @Test(
        "Two calls sent before a refresh ended share its outcome, whenever the second one's 401 arrives",
        arguments: Outcome.allCases, Moment.allCases)
    func callsSentBeforeARefreshEndedShareItsOutcome(_ outcome: Outcome, _ moment: Moment) async throws {
        // GIVEN calls A and B, both sent with the stored token
        let board = Switchboard(plannedRefreshes: 1)
        let configuration = configuration(board, token: LockedBox("token-0"))
        let a = Self.call("A", using: configuration)
        let b = Self.call("B", using: configuration)
        #expect(await board.received("A") == "Bearer token-0")
        #expect(await board.received("B") == "Bearer token-0")

        // WHEN A's 401 starts refresh 1, and B's 401 arrives while it runs or once it has ended
        await board.answer("A", 401)
        await board.refreshRuns()
        if moment == .whileTheRefreshRuns {
            await board.answer("B", 401)
            await board.joinsReach(1)
        }
        await board.endRefresh(outcome.result)
        if outcome == .succeeds {
            #expect(await board.received("A") == "Bearer token-1")
            await board.answer("A", 200)
        }
        let aResult = await a.value  // A has its outcome: refresh 1 has ended
        if moment == .afterTheRefreshEnded {
            await board.answer("B", 401)
        }
        if outcome == .succeeds {
            #expect(await board.received("B") == "Bearer token-1")
            await board.answer("B", 200)
        }
        let bResult = await b.value

        // THEN one refresh ran, and B ended as A did: sent again with the new token, or failed with the refresh's error
        #expect(await board.refreshes == 1)
        let expected = outcome == .succeeds ? ["200 A", "200 B"] : ["denied by refresh 1", "denied by refresh 1"]
        #expect([Self.summary(aResult), Self.summary(bResult)] == expected)
    }

    @Test(
        "A call sent after a refresh ended starts a new refresh when its token is rejected", arguments: Outcome.allCases
    )
    func aCallSentAfterARefreshEndedStartsANewOne(_ outcome: Outcome) async throws {
        // GIVEN refresh 1, started by A's 401, has ended
        let board = Switchboard(plannedRefreshes: 2)
        let configuration = configuration(board, token: LockedBox("token-0"))
        let a = Self.call("A", using: configuration)
        #expect(await board.received("A") == "Bearer token-0")
        await board.answer("A", 401)
        await board.refreshRuns()
        await board.endRefresh(outcome.result)
        if outcome == .succeeds {
            #expect(await board.received("A") == "Bearer token-1")
            await board.answer("A", 200)
        }
        let aResult = await a.value

        // WHEN C is sent after it (with the stored token: the new one, or the old one after a failed refresh) and
        // gets a 401
        let c = Self.call("C", using: configuration)
        #expect(await board.received("C") == (outcome == .succeeds ? "Bearer token-1" : "Bearer token-0"))
        await board.answer("C", 401)

        // THEN C starts refresh 2 and is sent again with its token
        await board.refreshRuns()
        await board.endRefresh(.success("token-2"))
        #expect(await board.received("C") == "Bearer token-2")
        await board.answer("C", 200)
        let cResult = await c.value
        #expect(await board.refreshes == 2)
        #expect(Self.summary(aResult) == (outcome == .succeeds ? "200 A" : "denied by refresh 1"))
        #expect(Self.summary(cResult) == "200 C")
    }
}
