import Courier
import Foundation

/// The executor conformance suite: checks that an ``/Courier/APIExecutor`` keeps Courier's executor contract
/// against real servers, so that swapping executors never changes what a call does.
///
/// Both shipped executors pass it (`URLSessionExecutor`, and `AsyncHTTPClientExecutor` in the
/// `CourierAsyncHTTPClient` package); run it for an executor of your own (an Alamofire adapter, say) the same
/// way. It needs a real [httpbin](https://github.com/postmanlabs/httpbin) and Courier's fault server, both on
/// loopback: CourierTesting ships the fault server (Python's standard library only) and
/// ``Servers/startingFaultServer(httpbin:)`` starts it from any package.
/// It uses no test framework: it returns the failures, and your test asserts that there are none.
///
/// ```swift
/// import CourierTesting
/// import Foundation
/// import Testing
///
/// @Test(arguments: ExecutorConformance.Check.allCases)
/// func conformance(_ check: ExecutorConformance.Check) async throws {
///     let httpbin = try #require(URL(string: "http://127.0.0.1:8080"))  // a real httpbin you run
///     let servers = try await ExecutorConformance.Servers.startingFaultServer(httpbin: httpbin)
///     let suite = ExecutorConformance(executor: MyExecutor(), servers: servers)
///     let failures = await suite.run(check)
///     #expect(failures.isEmpty, "\(failures)")
/// }
/// ```
///
/// Each ``Check`` covers one part of the contract: methods and bodies, repeated header fields both ways,
/// status codes returned unvalidated, empty bodies, redirects (followed, not followed, credentials removed
/// on an origin change, refused), the timeout as a deadline for the whole call, cancellation within a
/// second, the response size limit, the classification of transport failures, 64 calls at once, and transfers:
/// file, stream and multipart bodies, streamed responses, downloads to files with resume and with an idle timeout,
/// progress, and `307`s after an upload; WebSockets. The transfer and WebSocket checks follow the executor's
/// ``/Courier/APIExecutor/supportedTransfers``: what it does not declare must fail before any I/O. Every check
/// has a time limit (``timeLimit``), so an executor that hangs fails instead of stalling your tests.
public struct ExecutorConformance: Sendable {
    /// The servers the checks talk to.
    public struct Servers: Sendable {
        /// A real httpbin, for example `http://127.0.0.1:8080`.
        public var httpbin: URL
        /// Courier's fault server (shipped with CourierTesting), for example `http://127.0.0.1:9000`.
        public var faultServer: URL
        /// The fault server on another host, same port (`http://127.0.0.2:9000`), for cross-origin redirects.
        public var faultServerOtherHost: URL
        /// The fault server on another port, same host, for cross-origin redirects.
        public var faultServerOtherPort: URL

        /// Creates the set of servers.
        public init(httpbin: URL, faultServer: URL, faultServerOtherHost: URL, faultServerOtherPort: URL) {
            self.httpbin = httpbin
            self.faultServer = faultServer
            self.faultServerOtherHost = faultServerOtherHost
            self.faultServerOtherPort = faultServerOtherPort
        }

        /// The servers named by the environment variables that Courier's test scripts export:
        /// `COURIER_HTTPBIN_URL`, `COURIER_FAULT_URL`, `COURIER_FAULT_URL_OTHER_HOST` and
        /// `COURIER_FAULT_URL_OTHER_PORT`; `nil` when one is missing.
        public static func fromEnvironment(
            _ environment: [String: String] = ProcessInfo.processInfo.environment
        ) -> Servers? {
            func url(_ key: String) -> URL? { Servers.url(key, in: environment) }
            guard let httpbin = url("COURIER_HTTPBIN_URL"), let fault = url("COURIER_FAULT_URL"),
                let otherHost = url("COURIER_FAULT_URL_OTHER_HOST"), let otherPort = url("COURIER_FAULT_URL_OTHER_PORT")
            else { return nil }
            return Servers(
                httpbin: httpbin, faultServer: fault, faultServerOtherHost: otherHost, faultServerOtherPort: otherPort)
        }
    }

    /// One part of the executor contract.
    public enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        /// `GET`, `HEAD`, `POST`, `PUT`, `PATCH` and `DELETE` arrive with their method, headers and body, and
        /// the response carries the server's body, status and URL.
        case methodsAndBodies
        /// A request header field repeated with two values arrives with both, in order.
        case repeatedRequestHeaders
        /// A response header field the server repeats is returned with both values, in order.
        case repeatedResponseHeaders
        /// Every status code (2xx, 4xx, 5xx) is returned as a response, not thrown: validation is not the
        /// executor's job.
        case statusCodesPassedThrough
        /// `204`, `HEAD` and a `Content-Length: 0` response have empty bodies.
        case emptyBodies
        /// Absolute and relative redirects are followed to the end; `307` keeps the method and the body,
        /// `303` continues as a `GET`.
        case redirectsFollowed
        /// With `.doNotFollow` (or a policy that stops) the redirect itself is the response.
        case redirectsNotFollowed
        /// Before a hop to another host or port every credential is removed (`Authorization`, `Cookie`,
        /// `X-API-Key`, and the request's ``/Courier/APIRequest/sensitiveNames``); on the same origin they stay.
        /// Of the `Cookie` field only the request's own pair counts: cookies the executor adds from its own store
        /// follow that store's rules (RFC 6265 binds a cookie to a host, not to a port), so the check passes or
        /// fails alike whatever the store holds.
        case redirectCredentialsRemoved
        /// Too many hops, and a hop the policy refuses, fail with
        /// ``/Courier/APIError/TransportProblem/redirectRefused(_:)``.
        case redirectsRefused
        /// The timeout bounds the whole call: a server that sends its head late, or its body a byte at a
        /// time, fails with ``/Courier/APIError/TransportProblem/timedOut`` close to the timeout (a timeout of
        /// 4 s, within a quarter of it plus 1.5 s: an executor that waits twice the timeout fails).
        case timeoutIsDeadline
        /// Cancelling the calling task ends the call within a second, while it waits for the head or for the
        /// body, with ``/Courier/APIError/TransportProblem/cancelled``.
        case cancellation
        /// A body over ``/Courier/APIRequest/maxResponseBytes`` (declared, chunked, or a gzip bomb) fails with
        /// ``/Courier/APIError/TransportProblem/responseTooLarge``; a body at the limit is returned whole.
        case sizeLimit
        /// A refused connection is ``/Courier/APIError/TransportProblem/cannotConnect``; a body cut short of its
        /// `Content-Length` and a garbage status line fail at once with a transport error (not a success, not a
        /// timeout).
        case transportErrors
        /// A server that sends a bare status line and closes the connection makes the call fail with a
        /// transport error, not a crash. FoundationNetworking traps on it (swift-corelibs-foundation#5285):
        /// exclude this check for `URLSessionExecutor` on Linux.
        case bareStatusLine
        /// 64 calls at once each get their own response.
        case concurrency
        /// A file body and a one-shot stream body (with and without a count) arrive byte for byte
        /// (httpbin's `/anything`), with `Content-Length` when the size is known.
        ///
        /// This and the other transfer checks go through Courier's call forms with the executor under test.
        /// A call that needs a feature the executor does not declare in
        /// ``/Courier/APIExecutor/supportedTransfers`` must instead fail with
        /// ``/Courier/APIError/TransportProblem/unsupportedByExecutor`` before any request reaches the executor.
        case fileAndStreamBodies
        /// A multipart form (text fields, a file from disk, bytes from memory) arrives field by field and file by
        /// file (httpbin's `/post`), with its `Content-Length`.
        case multipartBody
        /// A streamed response arrives in order and complete, as it comes (the first byte of a slow body well
        /// before the last), and leaving the loop after the first chunk ends the call promptly.
        ///
        /// It covers WebSockets too, the other response that arrives as it comes (a check of their own would be a new
        /// case of this enum, which a 1.x release cannot add). When the executor declares ``/Courier/TransferFeatures/webSockets`` (opened with
        /// ``/Courier/API/connect(with:pingInterval:reconnect:using:)``, against the fault server's `/ws/` routes):
        /// text and binary messages are echoed whole and in order, also when the server sends them in fragments;
        /// the server's subprotocol is the socket's; the handshake carries the request's headers and query; a close
        /// `1008` from the server fails the loop with ``/Courier/APIError/TransportProblem/closedByPeer``, a
        /// connection dropped without a close with ``/Courier/APIError/TransportProblem/connectionLost``; a `401`
        /// handshake comes back as a response (so status validation fails it with `unauthorized` and an auth
        /// plugin can refresh); a message over ``/Courier/APIRequest/maxResponseBytes`` fails with
        /// ``/Courier/APIError/TransportProblem/responseTooLarge`` and one at the limit arrives whole. An executor
        /// that does not declare WebSockets must instead fail `connect` with
        /// ``/Courier/APIError/TransportProblem/unsupportedByExecutor`` before any request reaches it.
        case streamedResponse
        /// A download writes the whole body to its destination; a `404` fails and leaves a file under the final
        /// name as it was; a file delivery resumed at an offset appends a `206` and is replaced by a `200`; a
        /// download cancelled midway keeps its partial file and resumes with `Range`.
        case downloadToFile
        /// A download with an idle timeout runs past the request's timeout as long as bytes keep coming (the
        /// timeout bounds the wait for the head only), and fails with
        /// ``/Courier/APIError/TransportProblem/timedOut`` when the body stalls for longer than the idle timeout (the
        /// fault server's `/slow-body`).
        case downloadIdleTimeout
        /// Progress of a download, a stream and a file upload reaches the byte counts and their totals, and ends
        /// when the call ends.
        case progressReported
        /// A `307` after a file body is followed with the file sent again; after a one-shot stream body the
        /// `307` is the response (the stream cannot be sent twice).
        case redirectedUploads
        /// A secret planted in every place a call can carry one — a path template's query, an absolute URL's user
        /// info and pre-signed query, a query item, a header, a cookie, a body member, a redirect's target — appears
        /// masked, never in clear, on every surface that prints the call: the descriptions, debug descriptions,
        /// mirrors and `debugDetails()` of endpoints, requests, responses and errors (a `2xx`, a `401`, a refused
        /// connection, a body that does not decode), the call timelines, the logging plugin's lines with headers,
        /// bodies and cURL, and a ``Cassette`` file recorded through the executor.
        case secretsStayMasked

        /// The check's name.
        public var description: String { rawValue }
    }

    /// One way an executor broke the contract.
    public struct Failure: Sendable, CustomStringConvertible {
        /// The check that failed.
        public let check: Check
        /// What happened, and what was expected.
        public let message: String

        /// Creates a failure.
        public init(check: Check, message: String) {
            self.check = check
            self.message = message
        }

        /// `check: message`.
        public var description: String { "\(check): \(message)" }
    }

    /// The executor under test.
    public var executor: any APIExecutor
    /// The servers the checks talk to.
    public var servers: Servers
    /// Checks that ``run()`` leaves out (running one by name runs it whatever this set holds).
    public var excluded: Set<Check>
    /// The longest a check may take before it fails as hung (default 30 s; a check takes a few seconds).
    public var timeLimit: Duration

    /// A suite for `executor` against `servers`, without the checks in `excluded`.
    public init(
        executor: any APIExecutor,
        servers: Servers,
        excluding excluded: Set<Check> = [],
        timeLimit: Duration = .seconds(30)
    ) {
        self.executor = executor
        self.servers = servers
        self.excluded = excluded
        self.timeLimit = timeLimit
    }

    /// Runs every check but the excluded ones, one after another, and returns all failures (none when the
    /// executor conforms).
    public func run() async -> [Failure] {
        await run(Check.allCases.filter { !excluded.contains($0) })
    }

    /// Runs `checks`, one after another, and returns all their failures.
    public func run(_ checks: [Check]) async -> [Failure] {
        var failures: [Failure] = []
        for check in checks {
            failures += await run(check)
        }
        return failures
    }

    /// Runs `check` and returns its failures (none when the executor passes it).
    public func run(_ check: Check) async -> [Failure] {
        let context = Context(check: check, executor: executor, servers: servers)
        let finished = await Self.bounded(timeLimit) {
            await context.run()
            return context.failures
        }
        guard let failures = finished else {
            return [Failure(check: check, message: "did not finish within \(timeLimit)")]
        }
        return failures
    }

    /// Runs `operation` in a task of its own and returns its result, or `nil` when it takes longer than
    /// `limit` (it is then cancelled and left behind, so that a hung executor cannot hang the suite).
    static func bounded<Value: Sendable>(
        _ limit: Duration,
        _ operation: @escaping @Sendable () async -> Value
    ) async -> Value? {
        let outcome = Once<Value?>()
        let work = Task {
            let value = await operation()
            outcome.resolve(value)
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            outcome.resolve(nil)
        }
        let value = await outcome.value
        work.cancel()
        timer.cancel()
        return value
    }
}

/// A value set once, by whichever side gets there first, and awaited.
final class Once<Value: Sendable>: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Value, Never>])
        case resolved(Value)
    }

    private enum Wait {
        case ready(Value)
        case queued
    }

    private let state = LockedBox(State.waiting([]))

    /// Sets the value unless it is already set, and wakes whoever waits.
    func resolve(_ value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, Never>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .resolved(value)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    /// The value, once set.
    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let wait = state.withLock { state -> Wait in
                    switch state {
                    case .resolved(let value):
                        return .ready(value)
                    case .waiting(let waiters):
                        state = .waiting(waiters + [continuation])
                        return .queued
                    }
                }
                if case .ready(let value) = wait { continuation.resume(returning: value) }
            }
        }
    }
}
