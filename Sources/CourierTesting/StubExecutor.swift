import Courier
import Foundation

/// An executor that answers from stubs instead of the network and records every request it receives.
/// Each `stub…` method returns a new executor with a request log of its own.
///
/// Stub by endpoint (its method and path template), by method and path template, or by any predicate;
/// rules are tried in the order they were added and the first match answers. A request that no rule
/// matches fails with an ``/Courier/APIError`` naming the endpoint (see ``UnstubbedRequest``), never a crash or a
/// hang.
///
/// ```swift
/// let stub = StubExecutor()
///     .stub(GitHub.$user, with: .json(#"{"login":"octocat"}"#))
///     .stub(.post, "/repos/{owner}/{repo}/issues", with: .status(201))
///     .stub(where: { $0.url.host == "uploads.example.com" }, with: .error(URLError(.timedOut)))
///
/// try await stub.activate {             // this task and its children only: parallel tests stay apart
///     let user: User = try await GitHub.$user.request(with: "octocat")
/// }
/// #expect(stub.requests(to: GitHub.$user).map(\.url.path) == ["/users/octocat"])
/// ```
public struct StubExecutor: APIExecutor {
    /// Decides whether a rule answers a request.
    public typealias Matcher = @Sendable (APIRequest) -> Bool
    /// Produces the answer to a request.
    public typealias Responder = @Sendable (APIRequest) async throws -> StubResponse

    private struct Rule: Sendable {
        let matches: Matcher
        let respond: Responder
    }

    private var rules: [Rule] = []
    /// Answers what no rule matches.
    private var fallback: StubResponse?
    private var log = RequestLog()

    /// An executor without stubs: add them with the `stub` methods. Every request is recorded.
    public init() {}

    // MARK: - Adding stubs

    /// Answers calls of `endpoint` (same method and path template) with `response`.
    public func stub<Parameter, Method>(_ endpoint: API<Parameter, Method>, with response: StubResponse) -> StubExecutor
    {
        stub(endpoint.endpoint.method, endpoint.endpoint.path, with: response)
    }

    /// Answers calls of `endpoint` with what `respond` returns for each request.
    public func stub<Parameter, Method>(
        _ endpoint: API<Parameter, Method>,
        respond: @escaping Responder
    ) -> StubExecutor {
        let method = endpoint.endpoint.method
        let path = endpoint.endpoint.path
        return adding(Rule(matches: { $0.endpoint.method == method && $0.endpoint.path == path }, respond: respond))
    }

    /// Answers requests of endpoints declared with `method` and the path template `path` with `response`.
    public func stub(_ method: HTTPMethod, _ path: String, with response: StubResponse) -> StubExecutor {
        adding(Rule(matches: { $0.endpoint.method == method && $0.endpoint.path == path }, respond: { _ in response }))
    }

    /// Answers requests that `matches` accepts with `response`.
    public func stub(where matches: @escaping Matcher, with response: StubResponse) -> StubExecutor {
        adding(Rule(matches: matches, respond: { _ in response }))
    }

    /// Answers requests that `matches` accepts with what `respond` returns.
    public func stub(where matches: @escaping Matcher, respond: @escaping Responder) -> StubExecutor {
        adding(Rule(matches: matches, respond: respond))
    }

    /// Answers every request that no other rule matches with `response`.
    public func stubEverything(with response: StubResponse) -> StubExecutor {
        var copy = self
        copy.log = RequestLog()
        copy.fallback = response
        return copy
    }

    /// A copy with `rule` added and a request log of its own.
    private func adding(_ rule: Rule) -> StubExecutor {
        var copy = self
        copy.log = RequestLog()
        copy.rules.append(rule)
        return copy
    }

    // MARK: - Recorded requests

    /// Every request received so far, in order, including unstubbed ones.
    public var requests: [APIRequest] { log.requests }

    /// The bytes each recorded request sent, in the order of ``requests``: in-memory bodies as they are; files,
    /// streams and multipart forms as the stub read them when the request arrived (read them apart with
    /// ``MultipartFormContent``).
    public var sentBodies: [Data] { log.bodies }

    /// The requests made to `endpoint` (same method and path template), in order.
    public func requests<Parameter, Method>(to endpoint: API<Parameter, Method>) -> [APIRequest] {
        requests.filter {
            $0.endpoint.method == endpoint.endpoint.method && $0.endpoint.path == endpoint.endpoint.path
        }
    }

    /// Forgets the recorded requests; the stubs stay.
    public func clearRequests() {
        log.clear()
    }

    // MARK: - Executing

    /// Records `request` and answers it from the first matching stub.
    ///
    /// The body is read whole as a real executor would send it (a file from disk, a multipart form part by part,
    /// a stream to its end), reported to the request's progress as sent, and recorded in ``sentBodies``; a body
    /// that cannot be read (a stream read before, a file that changed) fails with
    /// ``/Courier/APIError/RequestProblem/unreadableBody``, as it would on the network.
    public func execute(_ request: APIRequest) async throws -> APIResponse {
        var sent = Data()
        do {
            let expected = request.body.count.map(Int64.init)
            for try await chunk in request.body.chunks() {
                sent.append(chunk)
                request.progress?.reportSent(Int64(sent.count), expected: expected)
            }
        } catch {
            log.append(request, body: sent)
            throw APIError(
                .invalidRequest(.unreadableBody), endpoint: request.endpoint, request: request, underlyingError: error)
        }
        log.append(request, body: sent)
        if let rule = rules.first(where: { $0.matches(request) }) {
            return try await rule.respond(request).answer(request)
        }
        guard let fallback else {
            throw APIError(
                .other, endpoint: request.endpoint, request: request, underlyingError: UnstubbedRequest(request))
        }
        return try await fallback.answer(request)
    }
}

/// The error a ``StubExecutor`` throws (as an ``/Courier/APIError``'s underlying error) for a request no stub matches.
public struct UnstubbedRequest: Error, CustomStringConvertible {
    /// The endpoint that was called, `METHOD /path/template`.
    public let endpoint: String
    /// The URL that was requested.
    public let url: URL

    /// The URL as the description prints it: redacted, the request's own secret names included.
    private let redactedURL: String

    init(_ request: APIRequest) {
        self.endpoint = request.endpoint.description
        self.url = request.url
        self.redactedURL = SensitiveData.redacted(request.url, for: request)
    }

    /// Names the endpoint and the URL, redacted (see `SensitiveData`).
    public var description: String {
        "no stub for \(endpoint) (\(redactedURL)); add one with stub(_:with:)"
    }
}

private final class RequestLog: Sendable {
    private let stored = LockedBox<[(request: APIRequest, body: Data)]>([])

    var requests: [APIRequest] { stored.value.map(\.request) }
    var bodies: [Data] { stored.value.map(\.body) }

    func append(_ request: APIRequest, body: Data) {
        stored.withLock { $0.append((request, body)) }
    }

    func clear() {
        stored.withLock { $0.removeAll() }
    }
}

extension StubExecutor {
    /// Every transfer: stubs answer downloads (written to the file), streams (chunk by chunk, see
    /// ``StubResponse/chunked(_:every:status:headers:)-([Data],_,_,_)``) and WebSockets (a scripted server, see
    /// ``StubResponse/webSocket(_:headers:)``), and report progress.
    public var supportedTransfers: TransferFeatures { [.all, .webSockets] }
}
