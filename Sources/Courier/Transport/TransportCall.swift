import Foundation

/// One call over an ``HTTPTransport``: Courier's HTTP policy, in one place for every transport. It sends the
/// request, then each redirect hop the policy follows, through ``HTTPTransport/send(_:)``, and hands the final body
/// over as the request's delivery asks (`TransportCall+Delivery.swift`).
///
/// The call's work runs in a task of its own, started at once on the caller's thread, so that the deadline can
/// cancel it wherever it waits (for a head, for body bytes): one ``DeadlineClock`` entry per call, which the head
/// of a stream ends, and which a download with an idle timeout turns into that idle timeout.
final class TransportCall<Transport: HTTPTransport>: DeadlineClock.Client, Sendable {
    let request: APIRequest
    let transport: Transport

    private struct State {
        /// Why Courier stopped the call, once it did: the first reason wins.
        var stopped: ExecutorStop?
        /// The call's work, cancelled when it stops.
        var work: Task<APIResponse, any Error>?
        /// A download's idle timeout, once its head arrived, and when its last bytes arrived (uptime nanoseconds).
        var idle: (timeout: Duration, lastBytes: UInt64)?
    }

    private let state = LockedBox(State())
    /// When the call started, in uptime nanoseconds: each hop gets what is left of the deadline as its timeout.
    private let started = DispatchTime.now().uptimeNanoseconds

    init(request: APIRequest, transport: Transport) {
        self.request = request
        self.transport = transport
    }

    /// Runs the call and returns the final response.
    func run() async throws -> APIResponse {
        if Task.isCancelled { throw ExecutorStop.cancelled.error(for: request) }
        DeadlineClock.shared.add(self, timeout: request.timeout)
        defer { DeadlineClock.shared.remove(self) }
        let work = start { try await self.hops() }
        let stoppedEarly = state.withLock { state -> Bool in
            state.work = work
            return state.stopped != nil
        }
        if stoppedEarly { work.cancel() }
        do {
            let response = try await withTaskCancellationHandler {
                try await work.value
            } onCancel: {
                self.stop(.cancelled)
            }
            // A stream's progress ends with the stream.
            if response.body.stream == nil { request.progress?.finish() }
            return response
        } catch {
            request.progress?.finish()
            throw failure(error)
        }
    }

    /// Starts `operation` in a task of its own, at once on the caller's thread where the platform can.
    private func start(
        _ operation: sending @escaping @isolated(any) () async throws -> APIResponse
    ) -> Task<APIResponse, any Error> {
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return Task.immediate(operation: operation)
        }
        return Task(operation: operation)
    }

    // MARK: - Stopping

    /// Ends the call with `reason` unless it ended before: cancels its work, which cancels the hop in flight or
    /// the read of its body.
    func stop(_ reason: ExecutorStop) {
        let work = state.withLock { state -> Task<APIResponse, any Error>? in
            guard state.stopped == nil else { return nil }
            state.stopped = reason
            return state.work
        }
        work?.cancel()
    }

    /// The deadline passed, or a download's idle timeout: then the call goes on while bytes came within it.
    func deadlinePassed() {
        let wait = state.withLock { state -> Duration? in
            guard let idle = state.idle else { return nil }
            let quiet = Duration.nanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds &- idle.lastBytes))
            return quiet < idle.timeout ? idle.timeout - quiet : nil
        }
        if let wait { return DeadlineClock.shared.add(self, timeout: wait) }
        stop(.timedOut)
    }

    /// The head of a download with an idle timeout arrived: from here on, the idle timeout replaces the deadline.
    func startIdleTimeout(_ timeout: Duration) {
        state.withLock { $0.idle = (timeout, DispatchTime.now().uptimeNanoseconds) }
        DeadlineClock.shared.add(self, timeout: timeout)
    }

    /// Bytes of a download with an idle timeout arrived.
    func bytesArrived() {
        state.withLock { $0.idle?.lastBytes = DispatchTime.now().uptimeNanoseconds }
    }

    /// The head of a stream arrived: the deadline ends.
    func endDeadline() {
        DeadlineClock.shared.remove(self)
    }

    /// The error to throw for `error`: the stop's when Courier stopped the call, else `error` classified.
    func failure(_ error: any Error) -> APIError {
        if let stopped = state.withLock({ $0.stopped }) { return stopped.error(for: request) }
        return APIError.wrapping(error, request: request)
    }

    /// What is left of the call's deadline.
    private var timeLeft: Duration {
        let elapsed = Duration.nanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds &- started))
        return max(.zero, request.timeout - elapsed)
    }

    // MARK: - Hops

    /// Sends the request, then each redirect hop the policy follows; returns the final response with its body.
    private func hops() async throws -> APIResponse {
        var hop = request
        hop.responseDelivery = Self.hopDelivery(for: request.responseDelivery)
        var redirects = 0
        let trust = (transport as? any TLSTrustHolding)?.heldTrust
        var warnings: [String] = []
        while true {
            // A transport's own timeouts must not end a body that an idle timeout, not the deadline, bounds.
            hop.timeout = request.responseDelivery.idleTimeout.map { max(timeLeft, $0) } ?? timeLeft
            if let trust, trust.rotations != nil {
                for warning in trust.rotationWarnings(for: hop.url) {
                    request.record(.trust, detail: warning)
                    warnings.append(warning)
                }
            }
            var response = try await transport.send(hop)
            response.trustWarnings = warnings
            if let stopped = state.withLock({ $0.stopped }) { throw stopped.error(for: request) }
            // The body is sent once the head arrives: a transport that reports no progress of its own reports it here.
            if let progress = request.progress, let count = hop.body.count {
                progress.reportSent(Int64(count), expected: Int64(count))
            }
            guard let next = try await redirect(response, of: hop, number: redirects + 1) else {
                request.recorder?.record(
                    .responseHeadReceived, statusCode: response.statusCode, httpVersion: response.httpVersion)
                return try await deliver(response, of: hop)
            }
            redirects += 1
            hop = next
        }
    }

    /// What a hop's transport sees of the delivery: whether it is a handshake, and a stream's idle timeout (its
    /// body, when it is the final one, is handed to the reader as it is). Courier delivers the rest; until it takes
    /// the body, the hop's stream holds what arrives however late that is (on disk past a few windows).
    private static func hopDelivery(for delivery: ResponseDelivery) -> ResponseDelivery {
        var hop: ResponseDelivery =
            switch delivery.kind {
            case .webSocket, .stream: delivery
            case .memory, .file: .memory
            }
        hop.relayed = true
        return hop
    }

    /// Whether `statusCode` redirects (with a `Location`).
    static func redirects(_ statusCode: Int) -> Bool {
        statusCode == 301 || statusCode == 302 || statusCode == 303 || statusCode == 307 || statusCode == 308
    }

    /// The next hop when `response` is a redirect the policy follows; `nil` when `response` is the call's response.
    private func redirect(_ response: APIResponse, of hop: APIRequest, number: Int) async throws -> APIRequest? {
        let statusCode = response.statusCode
        guard Self.redirects(statusCode), !request.responseDelivery.isWebSocket,
            request.redirectPolicy.followsRedirects,
            let location = response.headers["Location"],
            let target = URL(string: location, relativeTo: hop.url)?.absoluteURL
        else { return nil }
        let redirect = RedirectHop(
            statusCode: statusCode, headers: response.headers, from: hop.url, to: target, number: number)
        switch request.redirectPolicy.decision(for: redirect) {
        case .follow:
            let next = hop.following(redirect, credentialsOf: request)
            // A one-shot body already sent cannot be sent again: the redirect is the response.
            if !next.body.isEmpty, !next.body.isReplayable { return nil }
            request.recordRedirect(redirect)
            await Self.discard(response.body)
            return next
        case .stop:
            return nil
        case .fail(let refusal):
            var redirectResponse = APIResponse(
                statusCode: statusCode, headers: response.headers, url: hop.url, request: request)
            redirectResponse.httpVersion = response.httpVersion
            throw ExecutorStop.redirectRefused(refusal, response: redirectResponse).error(for: request)
        }
    }

    /// Reads and drops a redirect's body, so that its connection can serve the next hop; a long one is abandoned
    /// (dropping the stream cancels its transfer).
    private static func discard(_ body: ResponseBody) async {
        guard let stream = body.stream else { return }
        var dropped = 0
        do {
            for try await chunk in stream {
                dropped += chunk.count
                if dropped > 64 * 1024 { return }
            }
        } catch {
            // The hop's response is complete as far as the call is concerned.
        }
    }
}

extension APIRequest {
    /// The next hop after `redirect`, from this one: `303` (and `301`/`302` after a `POST`) continue as a body-less
    /// `GET` (a `HEAD` stays a `HEAD`), `307`/`308` send the method and the body again; a hop to another origin
    /// leaves behind every credential of `call` (the headers `SensitiveData` names and its ``sensitiveNames``).
    func following(_ redirect: RedirectHop, credentialsOf call: APIRequest) -> APIRequest {
        var next = self
        next.url = redirect.to
        let becomesGET =
            (redirect.statusCode == 303 && method != .head)
            || ((redirect.statusCode == 301 || redirect.statusCode == 302) && method == .post)
        if becomesGET {
            next.method = .get
            next.body = .empty
            for name: HTTPHeaderName in [.contentType, .contentLength, "Content-Encoding", "Transfer-Encoding"] {
                next.headers.remove(name)
            }
        }
        if redirect.isCrossOrigin {
            for field in headers where SensitiveData.isSensitive(field.name, in: call) {
                next.headers.remove(field.name)
            }
        }
        return next
    }
}
