import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
    // MARK: - A stream's window on Linux

    extension URLSessionCall {
        /// The unread bytes past which a stream's response is cancelled, to be asked for again from where the
        /// reader is once it read them down to half `ResponseStream.windowBytes`: a few windows, so that a
        /// reader a little slower than the network does not reconnect every few hundred kilobytes.
        static let pauseBytes = 4 * ResponseStream.windowBytes

        /// The reader of the stream fed by `dataTask` is a window behind: when the response can be resumed, cancels
        /// the task and asks for the rest once the reader caught up. `false` when it cannot: the bytes keep coming.
        func pause(_ dataTask: URLSessionDataTask, _ stream: ResponseStream.Continuation) -> Bool {
            guard case .pauseStream = receive(.pauseRequested(task: dataTask)) else { return false }
            // Not from here: cancelling waits for the queue this callback runs on.
            Self.offSessionQueue { dataTask.cancel() }
            stream.whenDrained { Self.offSessionQueue { self.reconnect(stream) } }
            return true
        }

        /// Runs `work`, which creates, resumes or cancels a task, off the session's queue and off the threads that
        /// may produce a stream body's chunks: on ``StreamUploads/control`` while such an upload is in flight, else
        /// on a Dispatch thread (as every call's start and stop do).
        private static func offSessionQueue(_ work: @escaping @Sendable () -> Void) {
            if StreamUploads.inFlight { return StreamUploads.control.run(work) }
            DispatchQueue.global().async(execute: work)
        }

        /// Asks for the rest of a paused stream's response: its request again, with a range from the bytes the
        /// stream was handed, valid only if the response has not changed since.
        private func reconnect(_ stream: ResponseStream.Continuation) {
            let next = receive(.resumeRequested(streamCancelled: stream.isCancelled))
            guard case .resumeStream(let urlRequest, let session) = next else { return }
            let task = makeTask(urlRequest, body: request.body, on: session, complete: nil)
            task.delegate = TaskEvents(self)
            guard case .resumeTask(let task) = receive(.resumeStarted(task, streamCancelled: stream.isCancelled))
            else { return }
            task.resume()
            // The reader may have stopped in between, before the task was there to cancel.
            if stream.isCancelled { task.cancel() }
        }
    }
#endif

/// How a streamed response is asked for again from a later byte, when FoundationNetworking cannot pause it: only
/// a `GET` whose `200` declares its length (no content coding), accepts byte ranges, names a validator (a strong
/// `ETag`, else `Last-Modified`) and came from the URL asked for.
struct StreamResumption: Sendable {
    /// The request as first sent.
    let request: URLRequest
    /// The session it was sent on.
    let session: URLSession
    /// The `If-Range` value: the response's strong `ETag` or its `Last-Modified`.
    let validator: String
    /// The length of the whole body.
    let length: Int64

    init?(response: HTTPURLResponse, length: Int64?, sent: (request: URLRequest, session: URLSession)) {
        guard response.statusCode == 200, let length, length > 0,
            sent.request.value(forHTTPHeaderField: "Range") == nil,
            response.url == nil || response.url == sent.request.url,
            let ranges = response.value(forHTTPHeaderField: "Accept-Ranges"),
            ranges.lowercased().split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == "bytes"
            })
        else { return nil }
        if let tag = response.value(forHTTPHeaderField: "ETag"), tag.hasPrefix("\"") {
            validator = tag
        } else if let modified = response.value(forHTTPHeaderField: "Last-Modified"), !modified.isEmpty {
            validator = modified
        } else {
            return nil
        }
        self.request = sent.request
        self.session = sent.session
        self.length = length
    }

    /// The request for the bytes from `offset` on, if the response is still the same.
    func request(from offset: Int) -> URLRequest {
        var next = request
        next.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
        next.setValue(validator, forHTTPHeaderField: "If-Range")
        return next
    }

    /// Whether `response` (a `200`) is the same whole body again.
    func matches(_ response: HTTPURLResponse) -> Bool {
        let tag = response.value(forHTTPHeaderField: "ETag")
        let modified = response.value(forHTTPHeaderField: "Last-Modified")
        return (tag == validator || modified == validator) && response.expectedContentLength == length
            && response.value(forHTTPHeaderField: "Content-Encoding") == nil
    }
}
