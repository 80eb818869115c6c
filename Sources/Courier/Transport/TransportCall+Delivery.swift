import Foundation

// The final response's body, delivered as the request asks: a `2xx` to a stream or a file, anything else into
// memory within the size limit. Every rule on bytes received lives here: the limit, the declared length, a resumed
// download's `Content-Range`, progress.
extension TransportCall {
    /// Hands the body of `response`, the answer to `hop`, over as the request's delivery asks.
    func deliver(_ response: APIResponse, of hop: APIRequest) async throws -> APIResponse {
        if case .webSocket = response.body.storage { return finalResponse(response, body: response.body) }
        if (200..<300).contains(response.statusCode) {
            switch request.responseDelivery.kind {
            case .stream: return streamed(response, of: hop)
            case .file(let url, let offset, let idleTimeout):
                return try await download(response, to: url, resumingAt: offset, idleTimeout: idleTimeout)
            case .memory, .webSocket: break
            }
        }
        return try await collect(response, of: hop)
    }

    /// The call's response: `response`'s head with `body`, for the call's request.
    private func finalResponse(_ response: APIResponse, body: ResponseBody) -> APIResponse {
        var final = APIResponse(
            statusCode: response.statusCode, headers: response.headers, body: body, url: response.url,
            request: request)
        final.httpVersion = response.httpVersion
        final.trustWarnings = response.trustWarnings
        return final
    }

    /// The length of the decoded body that `response` declares: its `Content-Length`, unless a content coding makes
    /// that the length of the encoded body.
    static func declaredLength(of response: APIResponse) -> Int64? {
        guard let length = response.headers[.contentLength].flatMap({ Int64($0) }), length >= 0 else { return nil }
        let coding = response.headers["Content-Encoding"]?.lowercased()
        return coding == nil || coding == "identity" ? length : nil
    }

    // MARK: - Memory

    /// Reads the body into memory within the size limit, reporting progress.
    private func collect(_ response: APIResponse, of hop: APIRequest) async throws -> APIResponse {
        let limit = request.maxResponseBytes
        // A HEAD answer, a 204 and a 304 declare a length without a body.
        let bodiless = hop.method == .head || response.statusCode == 204 || response.statusCode == 304
        let declared = bodiless ? nil : Self.declaredLength(of: response)
        if let declared, declared > limit { throw ExecutorStop.responseTooLarge.error(for: request) }
        switch response.body.storage {
        case .stream(let stream):
            var body = Data()
            var received = 0
            do {
                for try await chunk in stream {
                    received += chunk.count
                    if received > limit { throw ExecutorStop.responseTooLarge.error(for: request) }
                    if body.isEmpty { body = chunk } else { body.append(chunk) }
                    request.progress?.reportReceived(Int64(received), expected: declared)
                }
            } catch {
                throw lostConnection(failure(error), received: Int64(received), declared: declared)
            }
            if let declared, received < declared {
                throw lostConnection(nil, received: Int64(received), declared: declared)
            }
            return finalResponse(response, body: .data(body))
        case .data(let data):
            if data.count > limit { throw ExecutorStop.responseTooLarge.error(for: request) }
            request.progress?.reportReceived(Int64(data.count), expected: declared)
            return finalResponse(response, body: response.body)
        case .file, .webSocket:
            return finalResponse(response, body: response.body)
        }
    }

    /// The error of a body that ended after `received` of its `declared` bytes: a transfer cut short lost its
    /// connection, whatever the transport called it (FoundationNetworking reports a clean close mid-body as an
    /// unknown error), so that a retry may try again and a download may resume. Any other failure stays as it is.
    private func lostConnection(_ error: APIError?, received: Int64, declared: Int64?) -> APIError {
        if let error {
            let untyped: Bool
            switch error.reason {
            case .transport(.other), .other: untyped = true
            default: untyped = false
            }
            guard untyped, let declared, received < declared else { return error }
            return APIError(
                .transport(.connectionLost), endpoint: request.endpoint, request: request,
                underlyingError: error.underlyingError)
        }
        return APIError(
            .transport(.connectionLost), endpoint: request.endpoint, request: request,
            underlyingError: ShortBody(received: received, declared: declared ?? 0))
    }

    // MARK: - Stream

    /// Hands the response over with its body as a stream: the deadline ends with the head; the stream's idle
    /// timeout (the transport's stream was made for the request's delivery) takes over.
    private func streamed(_ response: APIResponse, of hop: APIRequest) -> APIResponse {
        endDeadline()
        let stream: ResponseStream
        switch response.body.storage {
        case .stream(let transported):
            let declared = Self.declaredLength(of: response)
            let resumption = StreamResumption(response, of: hop, declaredLength: declared)
            guard resumption != nil || request.progress != nil else {
                transported.handle.buffer.limitUnread()
                return finalResponse(response, body: response.body)
            }
            stream = relayedStream(transported, of: hop, resumption: resumption, expected: declared)
        case .data(let data):
            let (whole, continuation) = ResponseStream.makeStream(for: request) {}
            continuation.yield(data)
            request.progress?.reportReceived(Int64(data.count), expected: Int64(data.count))
            request.progress?.finish()
            continuation.finish()
            stream = whole
        case .file, .webSocket:
            return finalResponse(response, body: response.body)
        }
        return finalResponse(response, body: .stream(stream))
    }

    // MARK: - File

    /// Writes the body to `url`: after its first `offset` bytes for a `206` whose `Content-Range` continues them,
    /// else from the start, one block in memory at a time. With `idleTimeout`, the deadline ends with the head and
    /// each chunk must come within the idle timeout of the last.
    private func download(
        _ response: APIResponse, to url: URL, resumingAt offset: Int64, idleTimeout: Duration?
    ) async throws -> APIResponse {
        var start: Int64 = 0
        if response.statusCode == 206 {
            let contentRange = response.headers["Content-Range"]
            guard offset > 0, ContentRange(contentRange)?.start == offset else {
                let problem = DownloadProblem(
                    description: "a 206 response whose Content-Range (\(contentRange ?? "none")) does not continue "
                        + "the file at \(offset)")
                throw transportFailure(problem)
            }
            start = offset
        }
        let writer: FileWriter
        do {
            if !FileManager.default.fileExists(atPath: url.path) {
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
                }
            }
            writer = try FileWriter(url, at: UInt64(start))
        } catch {
            throw transportFailure(error)
        }
        var head = APIResponse(
            statusCode: response.statusCode, headers: response.headers, url: response.url, request: request)
        head.httpVersion = response.httpVersion
        request.responseDelivery.willWrite?(head)
        if let idleTimeout { startIdleTimeout(idleTimeout) }
        let declared = Self.declaredLength(of: response)
        let expected = declared.map { $0 + start }
        let written = LockedBox(start)
        request.progress?.reportReceived(start, expected: expected)
        do {
            switch response.body.storage {
            case .stream(let stream):
                // Written as the transport yields the chunks: no task stands between a transport that cannot pause
                // and the file.
                try await stream.handle.buffer.consume { chunk in
                    if idleTimeout != nil { self.bytesArrived() }
                    try self.write(chunk, to: writer)
                    let received = written.withLock { received -> Int64 in
                        received += Int64(chunk.count)
                        return received
                    }
                    self.request.progress?.reportReceived(received, expected: expected)
                    return true
                }
            case .data(let data):
                try write(data, to: writer)
                let received = written.withLock { received -> Int64 in
                    received += Int64(data.count)
                    return received
                }
                request.progress?.reportReceived(received, expected: expected)
            case .file, .webSocket:
                break
            }
            try close(writer)
        } catch let own as OwnFailure {
            try? writer.close()
            throw own.error
        } catch {
            // The bytes written so far are the file's next ones: kept, so that a later attempt resumes after them.
            try? writer.close()
            throw lostConnection(failure(error), received: written.value - start, declared: declared)
        }
        let received = written.value
        if let declared, received - start < declared {
            throw lostConnection(nil, received: received - start, declared: declared)
        }
        return finalResponse(response, body: .file(url))
    }

    private func write(_ chunk: Data, to writer: FileWriter) throws(OwnFailure) {
        do {
            try writer.write(contentsOf: chunk)
        } catch {
            throw OwnFailure(error: transportFailure(error))
        }
    }

    private func close(_ writer: FileWriter) throws(OwnFailure) {
        do {
            try writer.close()
        } catch {
            throw OwnFailure(error: transportFailure(error))
        }
    }

    /// The error of a call that Courier's own work failed (a file it could not write, a response that does not
    /// continue a download): ``APIError/TransportProblem/other`` over `underlying`.
    private func transportFailure(_ underlying: any Error) -> APIError {
        APIError(.transport(.other), endpoint: request.endpoint, request: request, underlyingError: underlying)
    }
}

/// A failure of the file a download writes, not of the transfer.
struct OwnFailure: Error {
    let error: APIError
}

/// A body that ended before its declared length, without an error of the transport's.
struct ShortBody: Error, CustomStringConvertible {
    let received: Int64
    let declared: Int64

    var description: String { "the body ended after \(received) of its \(declared) bytes" }
}
