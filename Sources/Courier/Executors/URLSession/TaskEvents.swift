import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URLSession delegate of ``URLSessionExecutor``'s hops: the one place their delegate methods are written,
/// each handing its event to the ``URLSessionHop`` of the task. (A WebSocket's handshake, on Apple platforms, waits
/// on a delegate of its own, `WebSocketHandshake`: its task has no hop.)
///
/// Every task's own delegate is a `TaskEvents` for its hop; Apple platforms report every task event there. On
/// Linux, FoundationNetworking reports most task events only to the session's delegate (redirects go to the
/// task's own): a session that ``URLSessionExecutor`` creates there has a `TaskEvents` without a hop, which
/// finds the hop through the task's own delegate. No registry and no lock: the task carries its hop.
final class TaskEvents: NSObject, URLSessionDataDelegate, Sendable {
    /// The hop of the task this delegate belongs to; `nil` for a session's delegate.
    private let call: URLSessionHop?

    /// The delegate of a task of `call`, or (without one) of a session.
    init(_ call: URLSessionHop? = nil) {
        self.call = call
    }

    /// The hop `task` belongs to: this delegate's own, else the one its task delegate names.
    private func call(of task: URLSessionTask) -> URLSessionHop? {
        call ?? (task.delegate as? TaskEvents)?.call
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let call = call(of: dataTask) else { return completionHandler(.allow) }
        call.received(response, of: dataTask, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        call(of: dataTask)?.received(data, from: dataTask)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Courier's policy follows redirects, hop by hop: the redirect is the hop's response.
        completionHandler(call(of: task) == nil ? request : nil)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        guard let call = call(of: task) else { return completionHandler(nil) }
        call.newBodyStream(completionHandler)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let call = call(of: task) else { return completionHandler(.cancelAuthenticationChallenge, nil) }
        call.challenged(task, by: challenge, completionHandler: completionHandler)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        call(of: task)?.sentBody(totalBytesSent, of: totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        call(of: task)?.collected(metrics)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        call(of: task)?.completed(task, error: error)
    }
}
