import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redirects that repeat the body (`307`, `308`) on Linux.
///
/// FoundationNetworking follows a `307`/`308` with the method but without the body (the request it hands the
/// redirect delegate has none, and a body set there is not sent), and cannot send a streamed body (a file, a form)
/// twice at all. So on Linux, once the redirect policy said *follow*, the call declines FoundationNetworking's hop,
/// lets the redirect response end, and sends the next hop itself as a new task: the same method and headers, the
/// body read again from its start (it is replayable: data, a file, a form of those). Everything else is as for any
/// hop: the policy was asked (hop number, limit, `https` → `http`), credentials are removed when the origin
/// changes, and the deadline and cancellation cover every task of the call. A one-shot stream is never sent twice:
/// the redirect is the response. On Apple platforms URLSession sends the body again itself
/// (``URLSessionCall/newBodyStream(_:)``).
extension URLSessionCall {
    /// Whether `hop` repeats the method and the body (`307`, `308`).
    static func repeatsBody(_ hop: RedirectHop) -> Bool {
        hop.statusCode == 307 || hop.statusCode == 308
    }

    /// Prepares the next hop, to `url`, from `current`, the request of this hop, which
    /// ``complete(data:response:task:error:)`` sends once the redirect response has ended: the request of this hop
    /// to another URL, without credentials when the origin changes.
    func takeOver(_ current: URLRequest?, to url: URL, crossOrigin: Bool) {
        guard var next = current else { return }
        next.url = url
        if let data = request.body.data { next.httpBody = data }
        if crossOrigin { removeCredentials(from: &next) }
        setCookieField(of: &next, crossingOrigin: crossOrigin)
        _ = receive(.hopPrepared(next))
    }

    /// Sends `next` as a new task of this call, on `session`. Not from the calling thread: it runs inside a task
    /// callback, on the queue that creating a task waits for (see `InlineOperationQueue`).
    func send(_ next: URLRequest, on session: URLSession?) {
        guard let session else { return }
        let start: @Sendable () -> Void = { self.startHop(next, on: session) }
        #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
            if StreamUploads.inFlight { return StreamUploads.control.run(start) }
        #endif
        DispatchQueue.global().async(execute: start)
    }

    private func startHop(_ next: URLRequest, on session: URLSession) {
        let task = makeTask(next, body: request.body, on: session, complete: completionHandler)
        task.delegate = TaskEvents(self)
        switch receive(.hopStarted(task, request: next)) {
        case .resumeTask(let task): task.resume()
        // Stopped in between (cancelled, past the deadline): the caller already has its error.
        case .cancelTask(let task?): task.cancel()
        default: break
        }
    }

    /// The completion handler of the call's tasks on a session that does not report events (it keeps its own
    /// delegate); `nil` on a session that does.
    var completionHandler: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)? {
        guard !reportsEvents else { return nil }
        return { data, response, error in self.complete(data: data, response: response, error: error) }
    }
}
