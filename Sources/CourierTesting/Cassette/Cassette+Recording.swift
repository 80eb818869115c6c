@_spi(ExecutorSupport) import Courier
import Foundation

extension Cassette {
    /// Sends `request` through the wrapped executor and saves the exchange: an in-memory body or a downloaded
    /// file at once, a stream when its reader reaches the end (or stops reading: what it read is saved).
    func record(_ request: APIRequest, sent: Data) async throws -> APIResponse {
        let missing = request.requiredTransferFeatures.subtracting(wrapped.supportedTransfers)
        guard missing.isEmpty else {
            throw APIError(
                .transport(.unsupportedByExecutor), endpoint: request.endpoint, request: request,
                underlyingError: ExecutorLimitation(executor: wrapped, missing: missing))
        }
        let recording = Recording(
            interaction: Interaction(request: request, body: sent), request: request, store: store, redact: redact)
        var response = try await wrapped.execute(request)
        if let stream = response.body.stream {
            response.body = .stream(ResponseStream(RecordingChunks(stream: stream, recording: recording), for: request))
            recording.respond(response)
            return response
        }
        var body = response.body.data ?? Data()
        if let file = response.body.fileURL {
            body = try Data(contentsOf: file)
            if response.statusCode == 206 { body = body.dropFirst(Int(request.responseDelivery.resumeOffset)) }
        }
        recording.respond(response)
        recording.append(body)
        try recording.save()
        return response
    }
}

/// One exchange being recorded: the request half, then the response head, then the body as it arrives.
final class Recording: Sendable {
    private struct State {
        var interaction: Cassette.Interaction
        var response: APIResponse?
        var body = Data()
        var saved = false
    }

    private let state: LockedBox<State>
    private let request: APIRequest
    private let store: CassetteStore
    private let redact: (@Sendable (inout Cassette.Interaction) -> Void)?
    private let start = ContinuousClock.now

    init(
        interaction: Cassette.Interaction, request: APIRequest, store: CassetteStore,
        redact: (@Sendable (inout Cassette.Interaction) -> Void)?
    ) {
        self.state = LockedBox(State(interaction: interaction))
        self.request = request
        self.store = store
        self.redact = redact
    }

    func respond(_ response: APIResponse) {
        state.withLock { $0.response = response }
    }

    func append(_ chunk: Data) {
        state.withLock { $0.body.append(chunk) }
    }

    /// Masks the exchange, runs the `redact` hook and appends it to the cassette, once.
    func save() throws {
        let finished: Cassette.Interaction? = state.withLock { state in
            guard !state.saved, let response = state.response else { return nil }
            state.saved = true
            state.interaction.respond(response, body: state.body, request: request)
            return state.interaction
        }
        guard var interaction = finished else { return }
        let elapsed = ContinuousClock.now - start
        interaction.milliseconds = (elapsed.timeInterval * 1000).rounded()
        redact?(&interaction)
        try store.save(interaction)
    }

    /// A stream dropped before its end is saved with what was read.
    deinit {
        try? save()
    }
}

/// A response stream read through, each chunk recorded; the exchange is saved when the stream ends or fails.
struct RecordingChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let stream: ResponseStream
    let recording: Recording

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(inner: stream.makeAsyncIterator(), recording: recording)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var inner: ResponseStream.AsyncIterator
        let recording: Recording

        mutating func next() async throws -> Data? {
            do {
                guard let chunk = try await inner.next() else {
                    try recording.save()
                    return nil
                }
                recording.append(chunk)
                return chunk
            } catch {
                try? recording.save()
                throw error
            }
        }
    }
}

extension Duration {
    fileprivate var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
