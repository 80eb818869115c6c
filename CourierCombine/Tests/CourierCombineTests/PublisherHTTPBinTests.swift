import Courier
import CourierCombine
import Foundation
import Testing

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// `$endpoint.publisher(…)` against a real httpbin through `URLSessionExecutor`.
@Suite(.httpbin) struct PublisherHTTPBinTests {
    @Test("A decoded model from /get")
    func decodedModel() async throws {
        let recorder = Recorder<Echo>()

        await HTTPBinAPI.$get.publisher(with: "ann", as: Echo.self, using: try HTTPBin.configuration())
            .subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["value", "finished"])
        #expect(recorder.values.first?.args == ["name": "ann"])
    }

    @Test("Data and String from /get")
    func dataAndString() async throws {
        let configuration = try HTTPBin.configuration()
        let bytes = Recorder<Data>()
        let text = Recorder<String>()

        await HTTPBinAPI.$get.publisher(with: "bytes", as: Data.self, using: configuration).subscribe(bytes)
        await HTTPBinAPI.$get.publisher(with: "text", as: String.self, using: configuration).subscribe(text)

        await bytes.waitForCompletion()
        await text.waitForCompletion()
        #expect(bytes.eventNames == ["value", "finished"])
        #expect(text.eventNames == ["value", "finished"])
        let echo = try JSONDecoder().decode(Echo.self, from: try #require(bytes.values.first))
        #expect(echo.args == ["name": "bytes"])
        #expect(text.values.first?.contains(#""name": "text""#) == true)
    }

    @Test("The raw APIResponse from /get")
    func rawResponse() async throws {
        let recorder = Recorder<APIResponse>()

        await HTTPBinAPI.$get.publisher(with: "raw", using: try HTTPBin.configuration()).subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["value", "finished"])
        let response = try #require(recorder.values.first)
        #expect(response.statusCode == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.request.url.query == "name=raw")
    }

    @Test("DecodedResponse: the decoded value with the status and headers of /response-headers")
    func decodedResponse() async throws {
        let recorder = Recorder<DecodedResponse<HeaderEcho>>()

        await HTTPBinAPI.$responseHeaders.publisher(
            with: "courier-42", as: DecodedResponse<HeaderEcho>.self, using: try HTTPBin.configuration()
        ).subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["value", "finished"])
        let page = try #require(recorder.values.first)
        #expect(page.value == HeaderEcho(echo: "courier-42"))
        #expect(page.statusCode == 200)
        #expect(page.headers["X-Courier-Echo"] == "courier-42")
        #expect(page.headers["content-type"] == "application/json")
        #expect(page.response.request.url.query == "X-Courier-Echo=courier-42")
    }

    @Test("DecodedResponse of a failed call: one .unacceptableStatus failure, no value")
    func decodedResponseFailure() async throws {
        let recorder = Recorder<DecodedResponse<Echo>>()

        await HTTPBinAPI.$status.publisher(
            with: 503, as: DecodedResponse<Echo>.self, using: try HTTPBin.configuration()
        )
        .subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["failure"])
        #expect(recorder.failure?.response?.statusCode == 503)
    }

    @Test("/status/404 fails with .unacceptableStatus(.notFound)")
    func notFound() async throws {
        let recorder = Recorder<Data>()

        await HTTPBinAPI.$status.publisher(with: 404, as: Data.self, using: try HTTPBin.configuration())
            .subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["failure"])
        #expect(recorder.failure?.reason == .unacceptableStatus(.notFound))
        #expect(recorder.failure?.response?.statusCode == 404)
    }

    @Test("/get decoded as the wrong model fails with .decodingFailed")
    func decodingFailure() async throws {
        let recorder = Recorder<[Int]>()

        await HTTPBinAPI.$get.publisher(with: "x", as: [Int].self, using: try HTTPBin.configuration())
            .subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["failure"])
        #expect(recorder.failure?.reason == .decodingFailed)
    }

    @Test("Each subscription is a call of its own: two subscriptions, two UUIDs")
    func eachSubscriptionCalls() async throws {
        let publisher = await HTTPBinAPI.$uuid.publisher(as: UUIDAnswer.self, using: try HTTPBin.configuration())
        let first = Recorder<UUIDAnswer>()
        let second = Recorder<UUIDAnswer>()

        publisher.subscribe(first)
        publisher.subscribe(second)

        await first.waitForCompletion()
        await second.waitForCompletion()
        let uuids = first.values + second.values
        #expect(uuids.count == 2)
        #expect(Set(uuids).count == 2)
    }

    @Test("Cancelling the subscription stops a /delay/10 call long before its end, in the executor too")
    func cancellation() async throws {
        // GIVEN a 10 s call in flight, through an executor that records when its work ends
        let executor = ObservedExecutor(base: URLSessionExecutor.shared)
        let configuration = try HTTPBin.configuration(timeout: .seconds(30), executor: executor)
        let recorder = Recorder<APIResponse>()
        await HTTPBinAPI.$delay.publisher(with: 10, using: configuration).subscribe(recorder)
        try await Task.sleep(for: .milliseconds(300))
        #expect(executor.ended.current == nil)

        // WHEN the subscription is cancelled
        let clock = ContinuousClock()
        let cancelledAt = clock.now
        recorder.cancel()

        // THEN the executor's work ends long before the delay (5 s of slack), in a task that saw the cancellation
        #expect(await waitUntil(timeout: .seconds(5)) { executor.ended.current != nil })
        let ended = try #require(executor.ended.current)
        let latency = ended.at - cancelledAt
        print("PublisherHTTPBinTests.cancellation: the executor's call ended \(latency) after cancel()")
        #expect(latency < .seconds(5), "the call ended \(latency) after cancel()")
        #expect(ended.sawCancellation)
        #expect(ended.threw)
        // … and the cancelled subscriber receives nothing
        try await Task.sleep(for: .milliseconds(100))
        #expect(recorder.events.isEmpty)
    }

    @Test("replaceError(with:) and assign(to:on:) with a real server")
    func viewModel() async throws {
        let configuration = try HTTPBin.configuration()
        let found = EchoViewModel()
        let failed = EchoViewModel()

        found.load(await HTTPBinAPI.$get.publisher(with: "ann", using: configuration))
        failed.load(await HTTPBinAPI.$status.publisher(with: 500, using: configuration))

        #expect(await found.waitUntilLoaded())
        #expect(await failed.waitUntilLoaded())
        #expect(found.greeting == "Hello, ann")
        #expect(failed.greeting == "offline")
    }
}

/// A view-model-like class filled from a publisher of any decodable model, here httpbin's echo.
final class EchoViewModel {
    /// What a screen would show.
    var greeting = ""
    private var cancellables: Set<AnyCancellable> = []
    private let loaded = Locked(false)

    /// Subscribes to `echo` and assigns a greeting (or "offline") to `greeting`.
    func load(_ echo: APIPublisher<Echo>) {
        let loaded = self.loaded
        echo.map { "Hello, \($0.args["name"] ?? "?")" }
            .replaceError(with: "offline")
            .handleEvents(receiveCompletion: { _ in loaded.withLock { $0 = true } })
            .assign(to: \.greeting, on: self)
            .store(in: &cancellables)
    }

    /// Waits until the publisher completed (and `greeting` was assigned).
    func waitUntilLoaded() async -> Bool {
        let loaded = self.loaded
        return await waitUntil { loaded.current }
    }
}
