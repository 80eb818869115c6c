import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Apple platforms only: FoundationNetworking's libcurl has no WebSocket support, so on Linux URLSessionExecutor does
// not declare `.webSockets` and never gets here (scripts/check-apple-paths type-checks this file there).
#if !canImport(FoundationNetworking) || COURIER_APPLE_PATHS
    /// The WebSockets of ``URLSessionExecutor`` on Apple platforms: a `URLSessionWebSocketTask` as a
    /// ``WebSocketTransport``.
    ///
    /// ``open(_:on:cookies:)`` performs the handshake, bounded by the request's ``APIRequest/timeout``, and answers
    /// `101` with the open socket, or the status and headers of the response that refused it (`URLSession` keeps no
    /// body of a refused handshake). The task reads messages and answers pings itself; `maximumMessageSize` (the
    /// request's ``APIRequest/maxResponseBytes``) refuses a larger one before it is read whole. The close handshake
    /// goes through a ``WebSocketStateMachine``: the peer's close is answered once, with its code, and a close
    /// requested after it closes the task without another frame.
    struct WebSocketTaskTransport: WebSocketTransport {
        let task: URLSessionWebSocketTask
        /// The handshake request: errors name its endpoint.
        let request: APIRequest
        /// The close handshake's state.
        let machine: LockedBox<WebSocketStateMachine<Data>>

        init(task: URLSessionWebSocketTask, request: APIRequest) {
            self.task = task
            self.request = request
            self.machine = LockedBox(WebSocketStateMachine(maxMessageBytes: request.maxResponseBytes))
        }

        /// Opens the WebSocket of `request` on `session`, answering TLS challenges with `trust`; `cookies`, when the
        /// executor sends the session's cookies itself, gives the handshake's `Cookie` field.
        static func open(
            _ request: APIRequest, on session: URLSession, cookies: CookieJar?, trust: TLSTrust
        ) async throws -> APIResponse {
            // The request's headers go as they are, a `Sec-WebSocket-Protocol` among them.
            var urlRequest = request.urlRequest
            urlRequest.url = webSocketURL(request.url)
            if let cookies {
                urlRequest.httpShouldHandleCookies = false
                let field = cookies.cookieField(for: request.url, merging: request.headers.values(for: .cookie))
                urlRequest.setValue(field, forHTTPHeaderField: "Cookie")
            }
            let task = session.webSocketTask(with: urlRequest)
            task.maximumMessageSize = request.maxResponseBytes
            let handshake = WebSocketHandshake(trust: trust)
            task.delegate = handshake
            let chosen: String?
            do {
                chosen = try await handshake.wait(for: task, timeout: request.timeout)
            } catch let refused as WebSocketHandshake.TLSRefused {
                task.cancel()
                throw APIError(.transport(.secureConnectionFailed), endpoint: request.endpoint, request: request)
                    .refusing(refused.refusal)
            } catch {
                task.cancel()
                // A server that answered with another status: that response, for the status check and the plugins
                // (a refreshing auth plugin retries a `401`).
                if !(error is CancellationError), let refused = task.response as? HTTPURLResponse,
                    refused.statusCode != 101
                {
                    return APIResponse(
                        statusCode: refused.statusCode, headers: HTTPHeaders(refused), body: .empty, url: refused.url,
                        request: request)
                }
                throw error
            }
            let response = task.response as? HTTPURLResponse
            let subprotocol = chosen ?? response?.value(forHTTPHeaderField: "Sec-WebSocket-Protocol")
            let connection = WebSocketConnection(
                request: request, transport: WebSocketTaskTransport(task: task, request: request),
                subprotocol: subprotocol)
            return APIResponse(
                statusCode: 101, headers: response.map(HTTPHeaders.init) ?? [:], body: .webSocket(connection),
                url: response?.url, request: request)
        }

        /// `url` with `ws` for `http` and `wss` for `https` (any other scheme as it is).
        static func webSocketURL(_ url: URL) -> URL {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
            switch components.scheme?.lowercased() {
            case "http": components.scheme = "ws"
            case "https": components.scheme = "wss"
            default: return url
            }
            return components.url ?? url
        }

        func receive() async throws -> WebSocketEvent {
            do {
                switch try await task.receive() {
                case .string(let text): return .message(.text(text))
                case .data(let data): return .message(.binary(data))
                @unknown default: throw URLError(.cannotParseResponse)
                }
            } catch let error as POSIXError where error.code == .EMSGSIZE {
                // Over `maximumMessageSize`: the task closed the socket with `1009`.
                throw APIError(
                    .transport(.responseTooLarge), endpoint: request.endpoint, request: request, underlyingError: error)
            } catch {
                // The peer's close ends a pending receive with an error; the task then holds the close.
                if task.closeCode != .invalid {
                    let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
                    let frame = WebSocketStateMachine<Data>.Frame.close(code: task.closeCode.rawValue, reason: reason)
                    if case .answerClose(.close(let code, _), let close) = machine.withLock({ $0.received(frame) }) {
                        let answer = code.flatMap(URLSessionWebSocketTask.CloseCode.init(rawValue:)) ?? .normalClosure
                        task.cancel(with: answer, reason: nil)
                        return .close(close)
                    }
                    return .close(WebSocketClose(code: task.closeCode.rawValue, reason: reason))
                }
                if error is URLError || error is CancellationError { throw error }
                throw APIError(
                    .transport(.connectionLost), endpoint: request.endpoint, request: request, underlyingError: error)
            }
        }

        func send(_ message: WebSocketMessage) async throws {
            switch message {
            case .text(let text): try await task.send(.string(text))
            case .binary(let data): try await task.send(.data(data))
            }
        }

        func ping() async throws {
            try await withCheckedThrowingContinuation { (pong: CheckedContinuation<Void, any Error>) in
                task.sendPing { error in
                    if let error { pong.resume(throwing: error) } else { pong.resume() }
                }
            }
        }

        func close(_ close: WebSocketClose) async {
            switch machine.withLock({ $0.closeRequested(code: close.code, reason: close.reason) }) {
            case .sendAndWait(let code, let reason, _), .sendAndClose(let code, let reason):
                // The task waits for the peer's answer itself, within its own bound.
                let code = URLSessionWebSocketTask.CloseCode(rawValue: code) ?? .normalClosure
                task.cancel(with: code, reason: Data(reason.utf8))
            case .close, .wait:
                // Both closes were sent, or the connection failed (1006): it goes without another frame.
                task.cancel()
            case .none:
                break
            }
        }
    }

    /// Waits for the handshake of one `URLSessionWebSocketTask`, as its task delegate: the caller is resumed once,
    /// when the socket opens (the delegate's `didOpenWithProtocol`, or the pong of a ping sent right after the
    /// start, whichever comes first), when the task fails, when the deadline passes, or when the caller is
    /// cancelled. A handshake is not redirected: the redirect is its response (credentials never follow it).
    final class WebSocketHandshake: NSObject, URLSessionWebSocketDelegate, DeadlineClock.Client, Sendable {
        private struct State {
            var continuation: CheckedContinuation<String?, any Error>?
            /// The subprotocol the server chose, or why the handshake failed, once decided.
            var outcome: Result<String?, any Error>?
        }

        /// The handshake refused the server's certificate, or could not present the client's.
        struct TLSRefused: Error {
            let refusal: TLSRefusal
        }

        private let state = LockedBox(State())
        /// How the handshake answers TLS challenges.
        private let trust: TLSTrust

        init(trust: TLSTrust) {
            self.trust = trust
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            let answer = TrustChallenge.answer(challenge, trust: trust) ?? .defaultHandling
            if let refusal = answer.refusal {
                // Cancelling the challenge fails the task as cancelled: the handshake fails with the refusal instead.
                finish(.failure(TLSRefused(refusal: refusal)))
            }
            completionHandler(answer.disposition, answer.credential)
        }

        /// Starts `task` and returns the subprotocol the server chose, once the socket is open.
        /// - Throws: the task's error, `URLError(.timedOut)` after `timeout`, `CancellationError` when cancelled.
        func wait(for task: URLSessionWebSocketTask, timeout: Duration) async throws -> String? {
            DeadlineClock.shared.add(self, timeout: timeout)
            defer { DeadlineClock.shared.remove(self) }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let decided = state.withLock { state -> Result<String?, any Error>? in
                        if state.outcome == nil { state.continuation = continuation }
                        return state.outcome
                    }
                    if let decided { return continuation.resume(with: decided) }
                    task.resume()
                    task.sendPing { [self] error in finish(error.map { .failure($0) } ?? .success(nil)) }
                }
            } onCancel: {
                finish(.failure(CancellationError()))
            }
        }

        /// Decides the handshake, once: resumes the caller when it waits.
        private func finish(_ outcome: Result<String?, any Error>) {
            let continuation = state.withLock { state -> CheckedContinuation<String?, any Error>? in
                guard state.outcome == nil else { return nil }
                state.outcome = outcome
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(with: outcome)
        }

        func deadlinePassed() {
            finish(.failure(URLError(.timedOut)))
        }

        func urlSession(
            _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?
        ) {
            finish(.success(`protocol`))
        }

        func urlSession(
            _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
            didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
        ) {
            // After the open: the transport reads the close from the task (FoundationNetworking requires the method).
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            finish(.failure(error ?? URLError(.badServerResponse)))
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }
#endif
