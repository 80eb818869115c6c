import Courier
import Foundation

extension Cassette {
    /// Sends `request` through the wrapped executor and saves the exchange: an in-memory body or a downloaded
    /// file at once, a stream when it ends (or when its reader stops early: what had arrived is saved).
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
            recording.respond(response)
            response.body = .stream(recording.relay(stream, for: request))
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

    /// A stream that hands over `stream`'s chunks and records them. The exchange is saved before the reader sees
    /// the end (or the error), or as soon as the reader stops early, with what had arrived by then.
    func relay(_ stream: ResponseStream, for request: APIRequest) -> ResponseStream {
        let pump = LockedBox<Task<Void, Never>?>(nil)
        let (relayed, continuation) = ResponseStream.makeStream(for: request) { [self] in
            try? save()
            pump.value?.cancel()
        }
        pump.value = Task {
            do {
                for try await chunk in stream {
                    append(chunk)
                    await continuation.send(chunk)
                }
                try save()
                continuation.finish()
            } catch {
                try? save()
                continuation.finish(throwing: error)
            }
        }
        return relayed
    }
}

extension Duration {
    fileprivate var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
