import Courier
import CourierCombine
import CourierTesting
import Foundation
import Testing

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// `$endpoint.publisher(…)` against `StubExecutor`: outputs, errors, laziness, demand and cancellation.
@Suite struct PublisherStubTests {
    // MARK: - Values and errors

    @Test("A decoded model arrives once, then .finished")
    func decodedModel() async throws {
        let world = await StubWorld()
        let recorder = Recorder<User>()

        await Book.$user.publisher(with: 7, as: User.self, using: world.configuration).subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["value", "finished"])
        #expect(recorder.values == [User(id: 7, name: "User 7")])
        #expect(world.executor.requests.map(\.url.path) == ["/users/7"])
    }

    @Test("The output type can be inferred from the context")
    func inferredType() async throws {
        let world = await StubWorld()
        let recorder = Recorder<User>()

        let publisher: APIPublisher<User> = await Book.$user.publisher(with: 3, using: world.configuration)
        publisher.subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.values == [User(id: 3, name: "User 3")])
    }

    @Test("Data is the body's bytes")
    func data() async throws {
        let world = await StubWorld()
        let recorder = Recorder<Data>()

        await Book.$user.publisher(with: 7, as: Data.self, using: world.configuration).subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["value", "finished"])
        #expect(recorder.values == [Data(#"{"id": 7, "name": "User 7"}"#.utf8)])
    }

    @Test("String is the body's text; publisher() takes no argument for a Void endpoint")
    func string() async throws {
        let world = await StubWorld()
        let recorder = Recorder<String>()

        await Book.$health.publisher(as: String.self, using: world.configuration).subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["value", "finished"])
        #expect(recorder.values == ["ok"])
    }

    @Test("Without a type, the publisher emits the raw APIResponse")
    func rawResponse() async throws {
        let world = await StubWorld()
        let recorder = Recorder<APIResponse>()

        let publisher = await Book.$user.publisher(with: 9, using: world.configuration)
        publisher.subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["value", "finished"])
        let response = try #require(recorder.values.first)
        #expect(response.statusCode == 200)
        #expect(response.request.url.path == "/users/9")
        #expect(response.body.data == Data(#"{"id": 9, "name": "User 9"}"#.utf8))
    }

    @Test("publisher() of a Void endpoint emits the raw APIResponse")
    func voidRawResponse() async throws {
        let world = await StubWorld()
        let recorder = Recorder<APIResponse>()

        await Book.$health.publisher(using: world.configuration).subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.values.map(\.statusCode) == [200])
    }

    @Test("DecodedResponse<T>, inferred from the context, is the decoded value with the status and headers")
    func decodedResponse() async throws {
        let stub = StubExecutor().stub(
            where: { $0.url.path == "/users/5" },
            with: .json(#"{"id": 5, "name": "User 5"}"#, status: 203, headers: ["ETag": "\"v5\""])
        )
        let configuration = APIConfiguration(baseURL: URL(string: "https://stub.invalid"), executor: stub)
        let recorder = Recorder<DecodedResponse<User>>()

        let publisher: APIPublisher<DecodedResponse<User>> = await Book.$user.publisher(with: 5, using: configuration)
        publisher.subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["value", "finished"])
        let page = try #require(recorder.values.first)
        #expect(page.value == User(id: 5, name: "User 5"))
        #expect(page.statusCode == 203)
        #expect(page.headers["etag"] == "\"v5\"")
    }

    @Test("publisher(as: DecodedResponse<T>.self) of a Void endpoint")
    func voidDecodedResponse() async throws {
        let world = await StubWorld()
        let recorder = Recorder<DecodedResponse<String>>()

        await Book.$health.publisher(as: DecodedResponse<String>.self, using: world.configuration).subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["value", "finished"])
        #expect(recorder.values.map(\.value) == ["ok"])
        #expect(recorder.values.map(\.statusCode) == [200])
    }

    @Test("A 404 fails with .unacceptableStatus(.notFound) and no value")
    func notFound() async throws {
        let world = await StubWorld()
        let recorder = Recorder<User>()

        await Book.$user.publisher(with: 404, as: User.self, using: world.configuration).subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["failure"])
        #expect(recorder.failure?.reason == .unacceptableStatus(.notFound))
    }

    @Test("A body that is not the model fails with .decodingFailed")
    func decodingFailure() async throws {
        let world = await StubWorld()
        let recorder = Recorder<User>()

        await Book.$user.publisher(with: 0, as: User.self, using: world.configuration).subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["failure"])
        let error = try #require(recorder.failure)
        #expect(error.reason == .decodingFailed)
        #expect(error.underlyingError is DecodingError)
    }

    @Test("A custom decoder is used instead of JSON")
    func customDecoder() async throws {
        struct NameOnly: ResponseDecoder {
            func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
                try JSONDecoder().decode(type, from: Data(#"{"id": -1, "name": "decoded by NameOnly"}"#.utf8))
            }
        }
        let world = await StubWorld()
        let recorder = Recorder<User>()

        await Book.$user.publisher(with: 1, as: User.self, using: world.configuration, decoder: NameOnly())
            .subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.values == [User(id: -1, name: "decoded by NameOnly")])
    }

    @Test("Without using:, the configuration in effect where the subscriber attaches applies")
    func taskScopedConfiguration() async throws {
        let world = await StubWorld()
        let recorder = Recorder<User>()
        let publisher = await Book.$user.publisher(with: 5, as: User.self)

        await world.executor.activate {
            publisher.subscribe(recorder)
            await recorder.waitForCompletion()
        }

        #expect(recorder.values == [User(id: 5, name: "User 5")])
        #expect(world.executor.requests.count == 1)
    }

    // MARK: - Laziness

    @Test("Creating the publisher sends nothing; each subscription sends its own request")
    func lazyAndOneCallPerSubscription() async throws {
        // GIVEN a publisher that nobody has subscribed to yet
        let world = await StubWorld()
        let publisher = await Book.$user.publisher(with: 2, as: User.self, using: world.configuration)
        try await Task.sleep(for: .milliseconds(100))
        #expect(world.executor.requests.isEmpty)

        // WHEN two subscribers attach, one after the other
        let first = Recorder<User>()
        publisher.subscribe(first)
        await first.waitForCompletion()
        #expect(world.executor.requests.count == 1)
        let second = Recorder<User>()
        publisher.subscribe(second)
        await second.waitForCompletion()

        // THEN each got the value through a request of its own
        #expect(world.executor.requests.map(\.url.path) == ["/users/2", "/users/2"])
        #expect(first.values == [User(id: 2, name: "User 2")])
        #expect(second.values == first.values)
        #expect(first.subscriptionCount == 1 && second.subscriptionCount == 1)
    }

    // MARK: - Demand

    @Test("A subscriber that asks for nothing gets nothing until it asks")
    func demand() async throws {
        // GIVEN a subscriber that asks for no values when it subscribes
        let world = await StubWorld()
        let recorder = Recorder<User>(demand: .none)
        await Book.$user.publisher(with: 4, as: User.self, using: world.configuration).subscribe(recorder)

        // WHEN the call has been made and answered
        #expect(await waitUntil { world.executor.requests.count == 1 })
        try await Task.sleep(for: .milliseconds(200))

        // THEN nothing was delivered …
        #expect(recorder.events.isEmpty)

        // … until it asks for one value
        recorder.request(.max(1))
        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["value", "finished"])
        #expect(recorder.values == [User(id: 4, name: "User 4")])
    }

    @Test("A failure needs no demand")
    func failureWithoutDemand() async throws {
        let world = await StubWorld()
        let recorder = Recorder<User>(demand: .none)

        await Book.$user.publisher(with: 404, as: User.self, using: world.configuration).subscribe(recorder)

        await recorder.waitForCompletion()
        #expect(recorder.eventNames == ["failure"])
        #expect(recorder.failure?.reason == .unacceptableStatus(.notFound))
    }

    @Test("A value held for demand is dropped when the subscription is cancelled")
    func cancelWhileHoldingValue() async throws {
        // GIVEN a value that arrived before any demand
        let world = await StubWorld()
        let recorder = Recorder<User>(demand: .none)
        await Book.$user.publisher(with: 4, as: User.self, using: world.configuration).subscribe(recorder)
        #expect(await waitUntil { world.executor.requests.count == 1 })
        try await Task.sleep(for: .milliseconds(100))

        // WHEN the subscriber cancels, then asks
        recorder.cancel()
        recorder.request(.unlimited)
        try await Task.sleep(for: .milliseconds(100))

        // THEN it never receives anything
        #expect(recorder.events.isEmpty)
    }

    // MARK: - Cancellation

    @Test("Cancelling the subscription cancels the call's task promptly")
    func cancellation() async throws {
        // GIVEN a call that the stub answers after 10 s
        let world = await StubWorld()
        let recorder = Recorder<APIResponse>()
        await Book.$slow.publisher(using: world.configuration).subscribe(recorder)
        #expect(await waitUntil { world.executor.requests.count == 1 })

        // WHEN the subscription is cancelled
        let cancelledAt = ContinuousClock.now
        recorder.cancel()

        // THEN the executor's work ends promptly, because its task was cancelled, and nothing is delivered
        #expect(await waitUntil(timeout: .seconds(5)) { world.slowCallEnded.current != nil })
        let ended = try #require(world.slowCallEnded.current)
        let latency = ended.at - cancelledAt
        #expect(latency < .seconds(5), "the call ended \(latency) after cancel()")
        #expect(ended.sawCancellation)
        try await Task.sleep(for: .milliseconds(100))
        #expect(recorder.events.isEmpty)
    }

    @Test("A subscriber that cancels while subscribing starts no call")
    func cancelInsideReceiveSubscription() async throws {
        let world = await StubWorld()
        let cancellable = await Book.$user.publisher(with: 1, as: User.self, using: world.configuration)
            .handleEvents(receiveSubscription: { $0.cancel() })
            .sink(receiveCompletion: { _ in }, receiveValue: { _ in })

        try await Task.sleep(for: .milliseconds(200))
        #expect(world.executor.requests.isEmpty)
        cancellable.cancel()
    }

    @Test("Many subscriptions cancelled at random moments: each sees nothing or exactly value + finished")
    func concurrentCancellation() async throws {
        let world = await StubWorld()
        let publisher = await Book.$user.publisher(with: 8, as: User.self, using: world.configuration)
        let recorders = (0..<300).map { _ in Recorder<User>() }

        await withTaskGroup(of: Void.self) { group in
            for (index, recorder) in recorders.enumerated() {
                group.addTask {
                    publisher.subscribe(recorder)
                    if index.isMultiple(of: 2) {
                        try? await Task.sleep(for: .microseconds(index * 10))
                        recorder.cancel()
                    }
                }
            }
        }
        // (every subscription left alone has completed, however slow the machine; then a moment for the others)
        for (index, recorder) in recorders.enumerated() where !index.isMultiple(of: 2) {
            _ = await recorder.waitForCompletion()
        }
        try await Task.sleep(for: .milliseconds(100))

        for (index, recorder) in recorders.enumerated() {
            let names = recorder.eventNames
            #expect(names == ["value", "finished"] || (index.isMultiple(of: 2) && names.isEmpty), "\(index): \(names)")
            #expect(recorder.values.allSatisfy { $0 == User(id: 8, name: "User 8") })
        }
        #expect(world.executor.requests.count <= recorders.count)
        #expect(world.executor.requests.count >= recorders.count / 2)
    }

    // MARK: - Operators

    @Test("replaceError(with:) and assign(to:on:) keep a view model up to date")
    func viewModel() async throws {
        let world = await StubWorld()

        let found = ProfileViewModel()
        found.load(await Book.$user.publisher(with: 12, using: world.configuration))
        let missing = ProfileViewModel()
        missing.load(await Book.$user.publisher(with: 404, using: world.configuration))

        #expect(await found.waitUntilLoaded())
        #expect(await missing.waitUntilLoaded())
        #expect(found.name == "User 12")
        #expect(missing.name == "unknown")
    }
}

/// A view-model-like class: a property that a publisher fills, with a placeholder when the call fails.
final class ProfileViewModel {
    /// What a screen would show.
    var name = "…"
    private var cancellables: Set<AnyCancellable> = []
    private let loaded = Locked(false)

    /// Subscribes to `user` and assigns its name (or "unknown") to `name`.
    func load(_ user: APIPublisher<User>) {
        let loaded = self.loaded
        user.map(\.name)
            .replaceError(with: "unknown")
            // Signals after `assign` has written the value: a completion follows the value it ends.
            .handleEvents(receiveCompletion: { _ in loaded.withLock { $0 = true } })
            .assign(to: \.name, on: self)
            .store(in: &cancellables)
    }

    /// Waits until the publisher completed (and `name` was assigned).
    func waitUntilLoaded() async -> Bool {
        let loaded = self.loaded
        return await waitUntil { loaded.current }
    }
}
