import Courier
import CourierTesting
import Foundation
import Testing

/// `progress:` on the plain call forms (`request(with:progress:)` and the Void forms), above the executor
/// (stubs): the progress reaches the executor, and it always ends when the call ends, whatever the outcome.
/// (Against a real server: UploadIntegrationTests.)
@Suite("Call forms: progress", .timeLimit(.minutes(1)))
struct CallFormProgressTests {
    struct Item: Codable, Sendable, Equatable {
        let id: Int
    }

    static let upload = POST<Data>("/uploads") { .body(.data($0), contentType: "application/octet-stream") }
    static let named = GET<String>("/items/{name}") { ["name": $0] }
    static let ping = GET<Void>(wrappedValue: nil, "/ping")

    /// Reads `progress` in a task of its own, as a user would.
    struct Watcher {
        let task: Task<[TransferProgress.Snapshot], Never>

        /// Every snapshot seen, once the sequence has ended; if it has not ended within `limit`, the reader
        /// stops there (the last snapshot is then not finished), so a progress that never ends fails the test
        /// instead of hanging it.
        func snapshots(within limit: Duration = .seconds(5)) async -> [TransferProgress.Snapshot] {
            let task = task
            let timer = Task {
                try? await Task.sleep(for: limit)
                task.cancel()
            }
            defer { timer.cancel() }
            return await task.value
        }
    }

    static func watch(_ progress: TransferProgress) -> Watcher {
        Watcher(
            task: Task {
                var seen: [TransferProgress.Snapshot] = []
                for await snapshot in progress { seen.append(snapshot) }
                return seen
            })
    }

    @Test("Every plain call form takes a progress, hands it to the executor and ends it on success")
    func everyFormEndsTheProgress() async throws {
        // GIVEN a stub that answers every call with a small JSON body
        let stub = StubExecutor().stubEverything(with: .json(#"{"id":1}"#))
        let configuration = testConfiguration.with { $0.executor = stub }
        let body = Data(repeating: 1, count: 1000)
        var progresses: [TransferProgress] = []
        func next() -> TransferProgress {
            progresses.append(TransferProgress())
            return progresses[progresses.count - 1]
        }

        // WHEN each form is called with a progress (the result type picks the form, as without one)
        let item: Item = try await Self.upload.request(with: body, progress: next(), using: configuration)
        let decoded: DecodedResponse<Item> = try await Self.upload.request(
            with: body, progress: next(), using: configuration)
        let raw: APIResponse = try await Self.upload.request(with: body, progress: next(), using: configuration)
        try await Self.upload.request(with: body, progress: next(), using: configuration)
        let voidItem: Item = try await Self.ping.request(progress: next(), using: configuration)
        let voidDecoded: DecodedResponse<Item> = try await Self.ping.request(
            with: (), progress: next(), using: configuration)
        try await Self.ping.request(progress: next(), using: configuration)

        // THEN each call decoded as before, its request carried its progress, and every progress has ended
        #expect(
            [item, decoded.value, voidItem, voidDecoded.value] == Array(repeating: Item(id: 1), count: 4))
        #expect(raw.statusCode == 200)
        let carried = stub.requests.map(\.progress)
        #expect(carried.count == progresses.count)
        for (sent, progress) in zip(carried, progresses) {
            #expect(sent === progress)
            #expect(progress.current.isFinished)
        }
        // A stub reads the whole body as a real executor sends it, and reports it sent.
        #expect(stub.sentBodies.first == body)
        #expect(progresses.first?.current.sent == Int64(body.count))
        #expect(progresses.first?.current.expectedToSend == Int64(body.count))
    }

    @Test("The forms without a progress still resolve as before (no ambiguity) and send none")
    func formsWithoutProgress() async throws {
        let stub = StubExecutor().stubEverything(with: .json(#"{"id":2}"#))
        let configuration = testConfiguration.with { $0.executor = stub }

        let item: Item = try await Self.named.request(with: "a", using: configuration)
        let optional: Item? = try await Self.named.request(with: "a", using: configuration)
        let text: String = try await Self.named.request(with: "a", using: configuration)
        try await Self.named.request(with: "a", using: configuration)
        let voidItem: Item = try await Self.ping.request(using: configuration)

        #expect([item, optional, voidItem] == Array(repeating: Item(id: 2), count: 3))
        #expect(text == #"{"id":2}"#)
        #expect(stub.requests.allSatisfy { $0.progress == nil })
    }

    /// The ways a call can fail, each with a fresh progress.
    enum Failure: String, CaseIterable, Sendable {
        case unacceptableStatus, transportError, invalidParameter, unsupportedExecutor, cancelled
    }

    @Test("The progress ends when the call fails, however it fails", arguments: Failure.allCases)
    func endsOnFailure(_ failure: Failure) async throws {
        // GIVEN an executor that fails the way under test, and a reader of the progress
        struct NoTransfers: APIExecutor {
            func execute(_ request: APIRequest) async throws -> APIResponse {
                APIResponse(statusCode: 200, request: request)
            }
        }
        let executor: any APIExecutor =
            switch failure {
            case .unacceptableStatus: StubExecutor().stubEverything(with: .data(Data("missing".utf8), status: 404))
            case .transportError: StubExecutor().stubEverything(with: .error(URLError(.networkConnectionLost)))
            case .invalidParameter: StubExecutor().stubEverything(with: .json("{}"))
            case .unsupportedExecutor: NoTransfers()
            case .cancelled:
                StubExecutor().stub(where: { _ in true }) { request in
                    try await Task.sleep(for: .seconds(30))
                    return StubResponse(statusCode: 200)
                }
            }
        let configuration = testConfiguration.with { $0.executor = executor }
        let progress = TransferProgress()
        let watcher = Self.watch(progress)
        let name = failure == .invalidParameter ? ".." : "a"  // `..` as a path segment fails before any I/O

        // WHEN the call fails
        let call = Task { () async throws(APIError) -> Item in
            try await Self.named.request(with: name, progress: progress, using: configuration)
        }
        if failure == .cancelled {
            try await Task.sleep(for: .milliseconds(100))
            call.cancel()
        }
        let result = await call.result

        // THEN it threw the error of its kind, and the progress sequence ended with the final figures
        guard case .failure(let thrown) = result, let error = thrown as? APIError else {
            Issue.record("the call succeeded, or threw something else: \(result)")
            return
        }
        let expected: [Failure: (APIError.Reason) -> Bool] = [
            .unacceptableStatus: { $0 == .unacceptableStatus(.notFound) },
            .transportError: { $0.transportProblem != nil },
            .invalidParameter: { $0.requestProblem != nil },
            .unsupportedExecutor: { $0 == .transport(.unsupportedByExecutor) },
            .cancelled: { $0 == .transport(.cancelled) },
        ]
        #expect(expected[failure]?(error.reason) == true, "\(error.reason)")
        let seen = await watcher.snapshots()
        #expect(seen.last?.isFinished == true)
        #expect(progress.current.isFinished)
    }

    @Test("A progress handed to a failing Void call form ends too")
    func voidFormEndsOnFailure() async throws {
        let configuration = testConfiguration.with { $0.executor = StubExecutor().stubEverything(with: .status(500)) }
        let progress = TransferProgress()
        let watcher = Self.watch(progress)

        await #expect(throws: APIError.self) {
            try await Self.ping.request(progress: progress, using: configuration)
        }

        #expect(await watcher.snapshots().last?.isFinished == true)
    }
}
