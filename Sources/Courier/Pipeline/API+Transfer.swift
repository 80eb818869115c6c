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
    /// - **Resume.** When a partial file from an earlier attempt exists and its response named a validator
    ///   (a strong `ETag`, else `Last-Modified`), the call asks for the rest (`Range: bytes=<size>-` with
    ///   `If-Range`). A `206` continues the file; a `200` (the resource changed, or the server ignores ranges)
    ///   starts it again from the first byte; a `416` discards the partial file and downloads afresh once.
    ///   Pass `resume: false` to always start afresh.
    /// - **Status and errors as for every call.** Only a `2xx` body is written to disk; any other status fails
    ///   with ``APIError/Reason/unacceptableStatus(_:)`` carrying its body (read into memory, bounded by
    ///   ``APIRequest/maxResponseBytes``). The request's ``APIRequest/timeout`` is a deadline for the whole
    ///   download: give long downloads a long timeout. The file is not bounded by `maxResponseBytes`.
    ///
    /// - Parameters:
    ///   - parameter: The call's parameter.
    ///   - destination: A file URL in an existing folder; anything else fails before any I/O with
    ///     ``APIError/RequestProblem/unwritableDestination``.
    ///   - resume: Whether to continue a partial file from an earlier attempt.
    ///   - progress: Where bytes received are reported while the call runs; it ends when the call ends.
    ///   - configuration: The configuration for this call; `nil` for ``APIConfiguration/current``.
    /// - Returns: The response, whose body is ``ResponseBody/file(_:)`` at `destination`.
    /// - Throws: ``APIError``.
    @discardableResult
    public func download(
        with parameter: Parameter,
        to destination: URL,
        resume: Bool = true,
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil
    ) async throws(APIError) -> APIResponse {
        let configuration = configuration ?? .current
        defer { progress?.finish() }
        var request = try makeRequest(with: parameter, using: configuration)
        request.progress = progress
        try Download.check(destination, for: request)
        return try await Download(request: request, destination: destination)
            .run(resume: resume, configuration: configuration)
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
    /// (``ResponseStream/windowBytes``), not by ``APIRequest/maxResponseBytes``; a status that is not
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
        var request = try makeRequest(with: parameter, using: configuration)
        request.responseDelivery = .stream(idleTimeout: idleTimeout)
        request.progress = progress
        return try await ResponseStream.open(request, configuration: configuration)
    }
}

extension API where Parameter == Void {
    /// Calls the endpoint and writes the response body to `destination`; see
    /// ``download(with:to:resume:progress:using:)``.
    /// - Throws: ``APIError``.
    @discardableResult
    public func download(
        to destination: URL,
        resume: Bool = true,
        progress: TransferProgress? = nil,
        using configuration: APIConfiguration? = nil
    ) async throws(APIError) -> APIResponse {
        try await download(with: (), to: destination, resume: resume, progress: progress, using: configuration)
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
    /// the request again (``ServerSentEvents`` reconnect with it).
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

    /// The partial file, hidden beside the destination so that the final move is a rename.
    var partial: URL {
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

    /// What a later attempt needs to resume: the URL and the validator, one per line.
    var record: URL { partial.appendingPathExtension("resume") }

    func run(resume: Bool, configuration: APIConfiguration) async throws(APIError) -> APIResponse {
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
        let record = record
        let target = request.url.absoluteString
        if offset > 0, let validator = try? String(contentsOf: record, encoding: .utf8).split(separator: "\n").last {
            request.headers["Range"] = "bytes=\(offset)-"
            request.headers["If-Range"] = String(validator)
        } else {
            removeLeftovers()
        }
        request.responseDelivery = .file(partial, resumingAt: offset) { response in
            // Resumable only with a strong validator; without one a later attempt starts afresh.
            let etag = response.headers["ETag"].flatMap { $0.hasPrefix("W/") ? nil : $0 }
            if let validator = etag ?? response.headers["Last-Modified"] {
                try? Data("\(target)\n\(validator)".utf8).write(to: record, options: .atomic)
            } else {
                try? FileManager.default.removeItem(at: record)
            }
        }
        let response = try await CallExecution.execute(request, configuration: configuration)
        guard let file = response.body.fileURL else {
            // An executor or plugin answered from memory (a stub, a cache): write that body.
            return try finish(response, writing: response.data)
        }
        return try finish(response, from: file)
    }

    /// How many bytes of an earlier attempt can be resumed (0 when there is no usable partial file).
    private func resumableBytes() -> Int64 {
        guard let text = try? String(contentsOf: record, encoding: .utf8),
            text.split(separator: "\n").first.map(String.init) == request.url.absoluteString,
            let attributes = try? FileManager.default.attributesOfItem(atPath: partial.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value
        else { return 0 }
        return size
    }

    private func removeLeftovers() {
        try? FileManager.default.removeItem(at: partial)
        try? FileManager.default.removeItem(at: record)
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
