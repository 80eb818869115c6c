import Courier
import Foundation

/// Records real traffic to a file once and replays it offline: an executor that wraps another one (URLSession,
/// AsyncHTTPClient, your own) and a cassette file in HAR 1.2, with every secret masked before anything is written.
///
/// ```swift
/// let cassette = Cassette(URL(filePath: "Tests/Cassettes/github-user.har"))   // mode .once: record if missing
/// try await cassette.activate {                    // this task and its children only (see `activate(in:)`)
///     let user: User = try await GitHub.$user.request(with: "octocat")
/// }
/// ```
///
/// The first run sends the calls through the wrapped executor and writes what came back; later runs answer from
/// the file without any network. A request the file holds no answer for fails with an ``/Courier/APIError`` whose
/// underlying error is a ``Problem`` naming the closest recorded interaction and the first difference
/// ("query `page`: 3 vs 2"), never with a silent live call.
///
/// - **Secrets are masked before anything is written**, by Courier's one definition of what is secret (the
///   `Authorization`, `Cookie` and `Set-Cookie` headers, whatever an auth plugin set or
///   ``/Courier/APIConfiguration/sensitiveNames`` names, API keys in headers and query items, the URL's user
///   info, secret keys of JSON and form bodies of requests and responses, and the request's secret values
///   wherever a response echoes them). A replayed request matches through the masks. Mask more with `redact`.
/// - **Matching**: method, endpoint (method and path template), path, query items in any order and the body
///   (JSON compared as values); see ``Matching`` to ignore query items, compare headers or add a predicate.
///   Identical requests replay in recorded order.
/// - **Bodies**: stored as text when they are text, base64 otherwise; compressed responses are stored decoded
///   (without `Content-Encoding` and `Content-Length`). Streams replay their bytes (Server-Sent Events their
///   events), downloads write the recorded bytes to the destination with progress; request bodies from files,
///   streams and multipart forms are read whole and recorded.
/// - **CI**: when the environment variable `CI` is `true` or `1`, every mode replays only (as ``Mode/none``)
///   unless `recordsInCI` is `true`, so CI never calls a live service by accident.
///
/// Copies of a cassette share its state. A cassette is safe to use from many tasks at once.
public struct Cassette: APIExecutor {
    /// When a cassette replays and when it records.
    public enum Mode: Sendable, Hashable {
        /// Records every request when the file does not exist yet; replays only when it does.
        case once
        /// Replays only: a request the file has no answer for fails.
        case none
        /// Replays what the file answers and records (appends) the rest.
        case newEpisodes
        /// Records every request, replacing what the file held.
        case all
    }

    /// The cassette file.
    let file: URL
    /// The mode in effect: the one asked for, or ``Mode/none`` under CI unless recording there was asked for.
    let mode: Mode
    let matching: Matching
    let wrapped: any APIExecutor
    let redact: (@Sendable (inout Interaction) -> Void)?
    let store: CassetteStore

    /// A cassette that reads and writes `file` (HAR 1.2, created with its folder when recording).
    ///
    /// - Parameters:
    ///   - file: The cassette file, conventionally `….har` next to the tests.
    ///   - mode: When to record; ``Mode/once`` by default.
    ///   - matching: How a request finds its recorded answer.
    ///   - executor: The executor that sends what is recorded; ``/Courier/URLSessionExecutor/shared`` by default.
    ///   - recordsInCI: Whether to record when the environment variable `CI` is set; `false` makes every mode
    ///     replay only there.
    ///   - redact: Masks more of each interaction before it is saved (after the built-in masking), and of each
    ///     request before it is matched, so that a replayed request matches through the masks.
    public init(
        _ file: URL,
        mode: Mode = .once,
        matching: Matching = Matching(),
        recordingWith executor: any APIExecutor = URLSessionExecutor.shared,
        recordsInCI: Bool = false,
        redact: (@Sendable (inout Interaction) -> Void)? = nil
    ) {
        self.init(
            file, mode: mode, matching: matching, recordingWith: executor, recordsInCI: recordsInCI, redact: redact,
            environment: ProcessInfo.processInfo.environment)
    }

    init(
        _ file: URL,
        mode: Mode,
        matching: Matching,
        recordingWith executor: any APIExecutor,
        recordsInCI: Bool,
        redact: (@Sendable (inout Interaction) -> Void)?,
        environment: [String: String]
    ) {
        let recordingAllowed = recordsInCI || !TestEnvironment.isCI(environment)
        self.file = file
        self.mode = recordingAllowed ? mode : .none
        self.matching = matching
        self.wrapped = executor
        self.redact = redact
        self.store = CassetteStore(file: file, mode: self.mode, ciGuarded: !recordingAllowed && mode != .none)
    }

    /// Answers `request` from the cassette, or sends it through the wrapped executor and records the exchange,
    /// as the mode says.
    public func execute(_ request: APIRequest) async throws -> APIResponse {
        var request = request
        let sent = try await Self.readBody(of: &request)
        var key = Interaction(request: request, body: sent)
        redact?(&key)
        switch try store.decide(for: key, request: request, matching: matching) {
        case .replay(let interaction):
            Self.reportSent(sent.count, of: request)
            return try await interaction.stubResponse.answer(request)
        case .record:
            return try await record(request, sent: sent)
        }
    }

    /// Every transfer but WebSockets: replayed ones are answered like stubs; recorded ones need the wrapped
    /// executor's features (else they fail with ``/Courier/APIError/TransportProblem/unsupportedByExecutor`` when
    /// sent). A socket's messages cannot be replayed from a file: `connect` through a cassette fails with
    /// ``/Courier/APIError/TransportProblem/unsupportedByExecutor`` before any I/O (test sockets with
    /// ``StubWebSocket``).
    public var supportedTransfers: TransferFeatures { .all }

    /// The request's body, read whole: a one-shot stream is replaced by the bytes it gave, so that it can still be
    /// sent when recording.
    private static func readBody(of request: inout APIRequest) async throws -> Data {
        if request.body.isInMemory { return request.body.data ?? Data() }
        var sent = Data()
        do {
            for try await chunk in request.body.chunks() { sent.append(chunk) }
        } catch {
            throw APIError(
                .invalidRequest(.unreadableBody), endpoint: request.endpoint, request: request, underlyingError: error)
        }
        if request.body.isStream { request.body = .data(sent) }
        return sent
    }

    /// Reports the body as sent to the request's progress, as a real executor would.
    private static func reportSent(_ count: Int, of request: APIRequest) {
        guard count > 0 else { return }
        request.progress?.reportSent(Int64(count), expected: Int64(count))
    }
}
