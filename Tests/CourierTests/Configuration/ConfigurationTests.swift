import Courier
import CourierTesting
import Foundation
import Testing

@Suite struct ConfigurationTests {
    static let zen = GET<Void>("/zen")

    func stub(_ tag: String) -> StubExecutor {
        StubExecutor().stubEverything(with: .data(Data(tag.utf8)))
    }

    @Test func theCallsOwnConfigurationWinsOverTheTaskScope() async throws {
        let scoped = testConfiguration.with { $0.executor = stub("task") }
        let explicit = testConfiguration.with { $0.executor = stub("call") }
        let text: String = try await APIConfiguration.withCurrent(scoped) {
            try await Self.zen.request(using: explicit)
        }
        #expect(text == "call")
    }

    @Test func theTaskScopeReachesChildTasksAndEnds() async throws {
        var scoped = testConfiguration.with { $0.executor = stub("task") }
        scoped.baseURL = URL(string: "https://scoped.example")
        let texts: [String] = try await APIConfiguration.withCurrent(scoped) {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<3 { group.addTask { try await Self.zen.request() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(texts == ["task", "task", "task"])
        #expect(APIConfiguration.current.baseURL?.host != "scoped.example")
    }

    @Test func parallelScopesNeverSeeEachOthersExecutor() async throws {
        // GIVEN two stubs, each installed in its own task scope
        let first = stub("first")
        let second = stub("second")
        // WHEN both scopes make calls concurrently
        async let a: [String] = APIConfiguration.withCurrent(testConfiguration.with { $0.executor = first }) {
            var seen: [String] = []
            for _ in 0..<20 { seen.append(try await Self.zen.request()) }
            return seen
        }
        async let b: [String] = APIConfiguration.withCurrent(testConfiguration.with { $0.executor = second }) {
            var seen: [String] = []
            for _ in 0..<20 { seen.append(try await Self.zen.request()) }
            return seen
        }
        let (seenA, seenB) = try await (a, b)
        // THEN each saw only its own stub
        #expect(seenA == Array(repeating: "first", count: 20))
        #expect(seenB == Array(repeating: "second", count: 20))
        #expect(first.requests.count == 20)
        #expect(second.requests.count == 20)
    }

    @Test func buildingUsesTheScopedConfiguration() throws {
        let request = try APIConfiguration.withCurrent(APIConfiguration(baseURL: URL(string: "https://scoped.example")))
        {
            try Self.zen.makeRequest()
        }
        #expect(request.url.absoluteString == "https://scoped.example/zen")
    }

    @Test func endpointTimeoutOverridesTheConfiguration() throws {
        var configuration = testConfiguration
        configuration.timeout = .seconds(5)
        #expect(try Self.zen.makeRequest(using: configuration).timeout == .seconds(5))
        let quick = GET<Void>("/quick", timeout: .milliseconds(250))
        #expect(try quick.makeRequest(using: configuration).timeout == .milliseconds(250))
    }

    @Test func copiesWithChanges() {
        let base = testConfiguration
        let changed = base.with { $0.plugins = [.bearer("t")] }.with { $0.timeout = .seconds(3) }
        #expect(changed.plugins.count == 1)
        #expect(changed.timeout == .seconds(3))
        #expect(base.plugins.isEmpty && base.timeout == .seconds(60))
    }

    @Test func defaultsAreDocumented() {
        let configuration = APIConfiguration()
        #expect(configuration.timeout == .seconds(60))
        #expect(configuration.acceptableStatusCodes == .successful)
        #expect(configuration.parameterOptions == ParameterEncodingOptions())
        #expect(configuration.executor is URLSessionExecutor)
    }

    @Test func aCancelledTaskFailsBeforeTheExecutorRuns() async throws {
        let counting = stub("never")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Self.zen.request(using: testConfiguration.with { $0.executor = counting })
        }
        let error = try await #require(throws: APIError.self) { try await task.value }
        #expect(error.reason == .transport(.cancelled))
        #expect(counting.requests.isEmpty)
    }

    @Test func executorErrorsAreWrapped() async throws {
        struct Boom: Error {}
        let failing = StubExecutor().stubEverything(with: .error(Boom()))
        let error = try await #require(throws: APIError.self) {
            try await Self.zen.request(using: testConfiguration.with { $0.executor = failing })
        }
        #expect(error.reason == .other)
        #expect(error.underlyingError is Boom)
        let offline = StubExecutor().stubEverything(with: .error(URLError(.notConnectedToInternet)))
        let offlineError = try await #require(throws: APIError.self) {
            try await Self.zen.request(using: testConfiguration.with { $0.executor = offline })
        }
        #expect(offlineError.reason == .transport(.offline))
        #expect(offlineError.request?.url.path == "/v2/zen")
    }
}

/// Changes the process-wide default, so it runs alone and restores what it found.
@Suite(.serialized, .changesDefaultConfiguration) struct GlobalConfigurationTests {
    @Test func theProcessDefaultIsUsedWhenNothingElseIsSet() async throws {
        let saved = APIConfiguration.default
        defer { APIConfiguration.default = saved }
        APIConfiguration.default = testConfiguration.with {
            $0.executor = StubExecutor().stubEverything(with: .data(Data("global".utf8)))
        }
        let text: String = try await Task.detached { try await GET<Void>("/zen").request() }.value
        #expect(text == "global")
    }
}

/// `APIConfiguration` is a value: copies never share coder settings.
@Suite struct ConfigurationCopyTests {
    struct Model: Codable, Sendable, Equatable {
        let startDate: Int
    }

    static let create = POST<Model>(wrappedValue: .init { $0 }, "/models")

    @Test("Changing a copy's encoder in place leaves the original as it was")
    func copiesAreIndependent() throws {
        let base = testConfiguration
        var copy = base
        copy.encoder.keyEncodingStrategy = .convertToSnakeCase

        let fromBase = try Self.create.makeRequest(with: Model(startDate: 1), using: base)
        let fromCopy = try Self.create.makeRequest(with: Model(startDate: 1), using: copy)

        #expect(fromBase.body.data.map { String(decoding: $0, as: UTF8.self) } == #"{"startDate":1}"#)
        #expect(fromCopy.body.data.map { String(decoding: $0, as: UTF8.self) } == #"{"start_date":1}"#)
    }

    @Test("A coder given to a configuration is copied: later changes to it stay out")
    func givenCodersAreCopied() throws {
        let encoder = JSONEncoder()
        var configuration = testConfiguration
        configuration.encoder = .init(encoder)
        let other = APIConfiguration(baseURL: testConfiguration.baseURL, encoder: encoder)

        encoder.keyEncodingStrategy = .convertToSnakeCase

        for configuration in [configuration, other] {
            let request = try Self.create.makeRequest(with: Model(startDate: 1), using: configuration)
            #expect(request.body.data.map { String(decoding: $0, as: UTF8.self) } == #"{"startDate":1}"#)
        }
        #expect(configuration.encoder.keyEncodingStrategy.isDefault)
    }
}

extension JSONEncoder.KeyEncodingStrategy {
    fileprivate var isDefault: Bool {
        if case .useDefaultKeys = self { return true }
        return false
    }
}
