import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension API {
    /// Calls the endpoint with `parameter` and writes the response body to the file at `destination`.
    ///
    /// ```swift
    /// let progress = TransferProgress()
    /// try await Files.$report.download(with: id, to: destination, progress: progress)
    /// ```
    ///
    /// - **No half file under the final name.** The body goes to a hidden partial file next to `destination`
    ///   (`.<name>.courier-partial`) and is moved into place only when the call succeeds, replacing any file
    ///   there. A failed, cancelled or timed-out download leaves `destination` as it was.
    /// - **Only a `2xx` body is written.** An accepted `304 Not Modified` (a conditional download with
    ///   `If-None-Match`) or any other accepted status that is not `2xx` leaves `destination` exactly as it was;
    ///   the returned response then holds its own (usually empty) body in memory.
    /// - **Resume.** When a partial file from an earlier attempt of the same download exists and its response
    ///   named a validator (a strong `ETag`, else `Last-Modified`), the call asks for the rest
    ///   (`Range: bytes=<size>-` with `If-Range`). A `206` continues the file; a `200` (the resource changed, or
    ///   the server ignores ranges) starts it again from the first byte; a `416` discards the partial file and
    ///   downloads afresh once. A retry of the call (``RetryPlugin``) resumes the same way. The same download
    ///   means the same `destination` and the same URL, or the same `resumeKey` whatever the URL (a presigned
    ///   URL changes its signature on every call). Its resume record (`.<name>.courier-partial.resume`) sits
    ///   beside the partial file; ``discardPartialDownload(to:)`` removes both. Pass `resume: false` to always
    ///   start afresh.
    /// - **Status and errors as for every call.** Any status the endpoint does not accept fails with
    ///   ``APIError/Reason/unacceptableStatus(_:)`` carrying its body (read into memory, bounded by
    ///   ``APIRequest/maxResponseBytes``). A body that ends before its `Content-Length` is
    ///   ``APIError/TransportProblem/connectionLost`` (retryable, and resumable). The file is not bounded by
    ///   `maxResponseBytes`.
    /// - **A deadline, or an idle timeout.** By default the request's ``APIRequest/timeout`` is a deadline for
    ///   the whole download. With `idleTimeout`, the timeout bounds the wait for the response head only; after
    ///   it the download runs as long as bytes keep coming, and fails when none arrive for `idleTimeout`. Either
    ///   way it fails with ``APIError/TransportProblem/timedOut``.
    ///
    /// - Parameters:
    ///   - parameter: The call's parameter.
    ///   - destination: A file URL in an existing folder; anything else fails before any I/O with
    ///     ``APIError/RequestProblem/unwritableDestination``.
    ///   - resume: Whether to continue a partial file from an earlier attempt.
    ///   - resumeKey: What identifies the download for a resume instead of its URL (a presigned URL's object
    ///     key, say); `nil` for the URL.
    ///   - idleTimeout: The longest wait for the next bytes of the body, instead of a deadline for the whole
    ///     download; `nil` for the deadline.
    ///   - progress: Where bytes received are reported while the call runs; it ends when the call ends.
    ///   - configuration: The configuration for this call; `nil` for ``APIConfiguration/current``.
    /// - Returns: The response, whose body is `ResponseBody.file(_:)` at `destination` for a `2xx`.
    /// - Throws: ``APIError``.
    @discardableResult
    public func download(
        with parameter: Parameter,
        to destination: URL,
        resume: Bool = true,
        resumeKey: String? = nil,
        idleTimeout: Duration? = nil,
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil
    ) async throws(APIError) -> APIResponse {
        let configuration = configuration ?? .current
        defer { progress?.finish() }
        var request = try makeCall(with: parameter, using: configuration, progress: progress)
        request.progress = progress
        try Download.check(destination, for: request)
        do {
            let response = try await Download(
                request: request, destination: destination, identity: resumeKey.map { "key \($0)" },
                idleTimeout: idleTimeout
            )
            .run(resume: resume, configuration: configuration)
            request.recorder?.finish(response, request: request)
            return response
        } catch {
            throw request.recorder?.finished(error, request: request) ?? error
        }
    }

    /// Removes the partial file and resume record that an unfinished download to `destination` left beside it,
    /// so that the next download to `destination` starts afresh. Does nothing when there are none; never
    /// touches `destination` itself.
    public func discardPartialDownload(to destination: URL) {
        Download.removeLeftovers(for: destination)
    }

    /// Calls the endpoint with `parameter` and returns its body as a ``ResponseStream`` as soon as the
    /// response head has arrived and its status is acceptable.
    ///
    /// ```swift
    /// for try await event in try await Feeds.$live.stream(with: "news").events {
    ///     print(event.event, event.data)
    /// }
    /// ```
    ///
    /// The request's ``APIRequest/timeout`` bounds the wait for the response head; after it, `idleTimeout`
    /// bounds each wait for the next chunk, however long the stream lasts. Leaving the loop early or
    /// cancelling the task cancels the transfer. Memory stays bounded by the stream's window
    /// (`ResponseStream.windowBytes`), not by ``APIRequest/maxResponseBytes``; a status that is not
    /// acceptable fails with its body read into memory as for every call.
    ///
    /// - Parameters:
    ///   - parameter: The call's parameter.
    ///   - idleTimeout: The longest wait for the next chunk.
    ///   - progress: Where bytes received are reported; it ends when the stream ends.
    ///   - configuration: The configuration for this call; `nil` for ``APIConfiguration/current``.
    /// - Throws: ``APIError``.
    public func stream(
        with parameter: Parameter,
        idleTimeout: Duration = .seconds(60),
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil
    ) async throws(APIError) -> ResponseStream {
        let configuration = configuration ?? .current
        var request = try makeCall(with: parameter, using: configuration, progress: progress)
        request.responseDelivery = .stream(idleTimeout: idleTimeout)
        request.progress = progress
        do {
            let stream = try await ResponseStream.open(request, configuration: configuration)
            // The call ends when its stream opens (its status is known); the body is read afterwards.
            if let recorder = request.recorder, let head = stream.origin?.response {
                recorder.finish(head, request: request, detail: "stream opened")
            }
            return stream
        } catch {
            throw request.recorder?.finished(error, request: request) ?? error
        }
    }
}

extension API where Parameter == Void {
    /// Calls the endpoint and writes the response body to `destination`; see
    /// ``download(with:to:resume:resumeKey:idleTimeout:progress:using:)``.
    /// - Throws: ``APIError``.
    @discardableResult
    public func download(
        to destination: URL,
        resume: Bool = true,
        resumeKey: String? = nil,
        idleTimeout: Duration? = nil,
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil
    ) async throws(APIError) -> APIResponse {
        try await download(
            with: (), to: destination, resume: resume, resumeKey: resumeKey, idleTimeout: idleTimeout,
            progress: progress, using: configuration)
    }

    /// Calls the endpoint and returns its body as a stream; see ``stream(with:idleTimeout:progress:using:)``.
    /// - Throws: ``APIError``.
    public func stream(
        idleTimeout: Duration = .seconds(60),
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil
    ) async throws(APIError) -> ResponseStream {
        try await stream(with: (), idleTimeout: idleTimeout, progress: progress, using: configuration)
    }
}

extension ResponseStream {
    /// Sends `request` through the plugins and returns the response body as a stream that knows how to send
    /// the request again (``ResponseStream/events(reconnect:)`` reconnects with it).
    static func open(_ request: APIRequest, configuration: APIConfiguration) async throws(APIError) -> ResponseStream {
        let progress = request.progress
        let response: APIResponse
        do {
            response = try await CallExecution.execute(request, configuration: configuration)
        } catch {
            progress?.finish()
            throw error
        }
        var stream: ResponseStream
        if let body = response.body.stream {
            stream = body
        } else {
            // A plugin or executor answered from memory (a stub, a cached response): one chunk.
            progress?.finish()
            let data = response.data
            stream = ResponseStream(
                AsyncStream { continuation in
                    if !data.isEmpty { continuation.yield(data) }
                    continuation.finish()
                }, for: request)
        }
        var head = response
        head.body = .empty
        // A one-shot body cannot be sent again. The first call's progress ends with its stream.
        var next = request
        next.progress = nil
        let again = next
        let reopen: @Sendable (String?) async throws(APIError) -> ResponseStream = { lastEventID throws(APIError) in
            var request = again
            if let lastEventID { request.headers["Last-Event-ID"] = lastEventID.isEmpty ? nil : lastEventID }
            return try await open(request, configuration: configuration)
        }
        stream.origin = StreamOrigin(response: head, reopen: request.body.isReplayable ? reopen : nil)
        return stream
    }
}

/// One download: the partial file beside the destination, its resume record, and the move into place.
struct Download {
    let request: APIRequest
    let destination: URL
    /// What the resume record names the download by: the caller's key (`key <key>`), else the URL.
    let identity: String
    let idleTimeout: Duration?

    init(request: APIRequest, destination: URL, identity: String? = nil, idleTimeout: Duration? = nil) {
        self.request = request
        self.destination = destination
        self.identity = identity ?? request.url.absoluteString
        self.idleTimeout = idleTimeout
    }

    /// The partial file, hidden beside the destination so that the final move is a rename.
    var partial: URL { Self.partial(for: destination) }

    static func partial(for destination: URL) -> URL {
        destination.deletingLastPathComponent().appendingPathComponent(
            ".\(destination.lastPathComponent).courier-partial")
    }

    /// Throws ``APIError/RequestProblem/unwritableDestination`` before any I/O unless `destination` is a file URL
    /// in an existing folder, and not a folder itself.
    static func check(_ destination: URL, for request: APIRequest) throws(APIError) {
        var isFolder: ObjCBool = false
        let folder = destination.deletingLastPathComponent().path
        let exists = FileManager.default.fileExists(atPath: destination.path, isDirectory: &isFolder)
        var parentIsFolder: ObjCBool = false
        guard destination.isFileURL, !(exists && isFolder.boolValue),
            FileManager.default.fileExists(atPath: folder, isDirectory: &parentIsFolder), parentIsFolder.boolValue
        else {
            throw APIError(.invalidRequest(.unwritableDestination), endpoint: request.endpoint, request: request)
        }
    }

    /// What a later attempt needs to resume: the identity and the validator, one per line.
    var record: URL { partial.appendingPathExtension("resume") }

    func run(resume: Bool, configuration: APIConfiguration) async throws(APIError) -> APIResponse {
        // Checked here, so that an executor that lacks a feature is named, not the stage that wraps it below.
        var needs = request
        needs.responseDelivery = .file(partial)
        try configuration.executor.checkSupport(for: needs)
        var configuration = configuration
        configuration.executor = ResumingStage(base: configuration.executor, download: self)
        let offset = resume ? resumableBytes() : 0
        do {
            return try await attempt(from: offset, configuration: configuration)
        } catch  where offset > 0 && error.statusCode == 416 {
            // The server cannot serve the rest of the partial file: start afresh, once.
            return try await attempt(from: 0, configuration: configuration)
        }
    }

    private func attempt(from offset: Int64, configuration: APIConfiguration) async throws(APIError) -> APIResponse {
        var request = request
        var start: Int64 = 0
        if offset > 0, let validator = validator() {
            request.headers["Range"] = "bytes=\(offset)-"
            request.headers["If-Range"] = validator
            start = offset
        } else {
            Self.removeLeftovers(for: destination)
        }
        request.responseDelivery = delivery(resumingAt: start)
        let response = try await CallExecution.execute(request, configuration: configuration)
        // Only a 2xx body is the resource: a 304 (the caller's copy is current) or another accepted status
        // leaves the destination as it was.
        guard (200..<300).contains(response.statusCode) else { return response }
        guard let file = response.body.fileURL else {
            // An executor or plugin answered from memory (a stub, a cache): write that body.
            return try finish(response, writing: response.data)
        }
        return try finish(response, from: file)
    }

    /// The delivery of one attempt: to the partial file after its first `offset` bytes, recording the
    /// validator a later attempt needs.
    func delivery(resumingAt offset: Int64) -> ResponseDelivery {
        let record = record
        let identity = identity
        return .file(partial, resumingAt: offset, idleTimeout: idleTimeout) { response in
            // Resumable only with a strong validator; without one a later attempt starts afresh.
            let etag = response.headers["ETag"].flatMap { $0.hasPrefix("W/") ? nil : $0 }
            if let validator = etag ?? response.headers["Last-Modified"] {
                try? Data("\(identity)\n\(validator)".utf8).write(to: record, options: .atomic)
            } else {
                try? FileManager.default.removeItem(at: record)
            }
        }
    }

    /// The validator recorded for this download, if its record names it.
    func validator() -> String? {
        guard let text = try? String(contentsOf: record, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", maxSplits: 1)
        guard lines.count == 2, lines[0] == identity else { return nil }
        return String(lines[1])
    }

    /// How many bytes of an earlier attempt can be resumed (0 when there is no usable partial file).
    func resumableBytes() -> Int64 {
        guard validator() != nil,
            let attributes = try? FileManager.default.attributesOfItem(atPath: partial.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value
        else { return 0 }
        return size
    }

    static func removeLeftovers(for destination: URL) {
        let partial = partial(for: destination)
        try? FileManager.default.removeItem(at: partial)
        try? FileManager.default.removeItem(at: partial.appendingPathExtension("resume"))
    }

    private func finish(_ response: APIResponse, writing data: Data) throws(APIError) -> APIResponse {
        do {
            try data.write(to: partial, options: .atomic)
        } catch {
            throw APIError(
                .other, endpoint: request.endpoint, request: request, response: response, underlyingError: error)
        }
        return try finish(response, from: partial)
    }

    private func finish(_ response: APIResponse, from file: URL) throws(APIError) -> APIResponse {
        // rename(2) replaces the destination atomically: it holds the old file or the new one, never a part.
        guard rename(file.path, destination.path) == 0 else {
            let error = CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])
            throw APIError(
                .other, endpoint: request.endpoint, request: request, response: response, underlyingError: error)
        }
        try? FileManager.default.removeItem(at: record)
        var response = response
        response.body = .file(destination)
        return response
    }
}

/// The stage under the plugins of a download: an attempt after the first (a retry) continues the partial file
/// the attempts before it wrote, instead of starting it again.
private struct ResumingStage: APIExecutor {
    let base: any APIExecutor
    let download: Download

    var supportedTransfers: TransferFeatures { base.supportedTransfers }

    func execute(_ request: APIRequest) async throws -> APIResponse {
        var request = request
        let bytes = download.resumableBytes()
        if request.responseDelivery.fileURL == download.partial, bytes > request.responseDelivery.resumeOffset,
            let validator = download.validator()
        {
            request.headers["Range"] = "bytes=\(bytes)-"
            request.headers["If-Range"] = validator
            request.responseDelivery = download.delivery(resumingAt: bytes)
        }
        return try await base.execute(request)
    }
}
