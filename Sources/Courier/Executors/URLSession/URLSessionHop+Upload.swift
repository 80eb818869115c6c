import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionHop {
    /// The task that sends `urlRequest` with the request's body: an in-memory body as `httpBody` (already set);
    /// a file as an upload task that reads it from disk (Apple platforms); a stream, a form, and on Linux a file,
    /// through an `InputStream` that reads `RequestBody.chunkSize` bytes at a time. No body is ever read whole.
    ///
    /// `complete` is the completion handler for sessions that do not report events (their own delegate).
    func makeTask(
        _ urlRequest: URLRequest,
        body: RequestBody,
        on session: URLSession,
        complete: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?
    ) -> URLSessionDataTask {
        var urlRequest = urlRequest
        switch body.storage {
        case .empty, .data:
            break
        #if !canImport(FoundationNetworking) || COURIER_APPLE_PATHS
            case .file(let url, _):
                if let complete {
                    return session.uploadTask(with: urlRequest, fromFile: url, completionHandler: complete)
                }
                return session.uploadTask(with: urlRequest, fromFile: url)
        #endif
        default:
            // FoundationNetworking reads a file given to an upload task at a third of the speed of a stream.
            let reader = BodyReader(body)
            if let count = body.count {
                urlRequest.setValue(String(count), forHTTPHeaderField: "Content-Length")
                #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
                    // FoundationNetworking hands libcurl a stream of unknown length, which libcurl sends chunked
                    // even with a Content-Length header (both headers: invalid). A blank Transfer-Encoding is one
                    // libcurl neither sends nor treats as chunked, so the declared length is used.
                    urlRequest.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
                #endif
            }
            urlRequest.httpBodyStream = Self.inputStream(reading: reader) { [weak self] error in
                self?.bodyFailed(error)
            }
        }
        if let complete { return session.dataTask(with: urlRequest, completionHandler: complete) }
        return session.dataTask(with: urlRequest)
    }

    #if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
        /// FoundationNetworking reads an `InputStream` subclass directly, on libcurl's thread.
        static func inputStream(
            reading reader: BodyReader,
            onFailure: @escaping @Sendable (any Error) -> Void
        ) -> InputStream {
            BodyInputStream(reader: reader, onFailure: onFailure)
        }
    #else
        /// Apple platforms read only their own streams: a bound pair, fed by a thread of its own.
        static func inputStream(
            reading reader: BodyReader,
            onFailure: @escaping @Sendable (any Error) -> Void
        ) -> InputStream? {
            var input: InputStream?
            var output: OutputStream?
            Stream.getBoundStreams(
                withBufferSize: RequestBody.chunkSize * 4, inputStream: &input, outputStream: &output)
            guard let input, let output else { return nil }
            let pump = BoundStreamPump(reader: reader, output: output, onFailure: onFailure)
            Thread { pump.run() }.start()
            return input
        }
    #endif
}

#if canImport(FoundationNetworking) && !COURIER_APPLE_PATHS
    /// Counts the calls in flight whose body holds a one-shot stream (Linux), and gives them a thread of their own.
    ///
    /// FoundationNetworking reads a body stream on its work queue, which every session shares; while a read
    /// awaits the stream's next chunk (produced by Swift tasks), the queue is held. A thread that then creates,
    /// resumes or cancels a URLSession task waits for that queue; Swift's tasks run on the same Dispatch threads,
    /// and once enough of them wait so, the chunk is produced late or never. So while such a call is in flight,
    /// Courier starts and cancels tasks on ``control``, one thread of its own, and never blocks the threads
    /// that produce the chunks.
    enum StreamUploads {
        private static let count = LockedBox(0)
        /// The thread that starts and cancels URLSession tasks while a stream upload is in flight.
        static let control = ControlThread()

        static var inFlight: Bool { count.value > 0 }
        static func begin() { count.withLock { $0 += 1 } }
        static func end() { count.withLock { $0 -= 1 } }
    }

    /// One thread that runs closures in order (not a Dispatch queue: those share Swift's threads).
    final class ControlThread: Sendable {
        private let pending = LockedBox<[@Sendable () -> Void]>([])
        private let wakeUp = DispatchSemaphore(value: 0)

        init() {
            let thread = Thread { [pending, wakeUp] in
                while true {
                    wakeUp.wait()
                    let next = pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    next?()
                }
            }
            thread.name = "Courier URLSession control"
            thread.start()
        }

        func run(_ work: @escaping @Sendable () -> Void) {
            pending.withLock { $0.append(work) }
            wakeUp.signal()
        }
    }

    /// A request body as an `InputStream` for FoundationNetworking, which reads it synchronously on libcurl's thread,
    /// a chunk at a time. A stream body's chunks are awaited there (blocking that thread only while it waits).
    final class BodyInputStream: InputStream {
        private let reader: BodyReader
        private let onFailure: @Sendable (any Error) -> Void
        private var status = Stream.Status.notOpen
        private var failure: (any Error)?

        init(reader: BodyReader, onFailure: @escaping @Sendable (any Error) -> Void) {
            self.reader = reader
            self.onFailure = onFailure
            super.init(data: Data())
        }

        override func open() { status = .open }

        override func close() {
            status = .closed
            reader.close()
        }

        override var streamStatus: Stream.Status { status }
        override var streamError: (any Error)? { failure }
        override var hasBytesAvailable: Bool { status == .open || status == .notOpen }

        override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
            guard status == .open, length > 0 else { return 0 }
            do {
                guard let chunk = try reader.nextBlocking(maxCount: length) else {
                    status = .atEnd
                    return 0
                }
                chunk.copyBytes(to: buffer, count: chunk.count)
                return chunk.count
            } catch {
                status = .error
                failure = error
                onFailure(error)
                return -1
            }
        }

        override func getBuffer(
            _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
            length len: UnsafeMutablePointer<Int>
        ) -> Bool { false }
    }
#else
    /// Copies a body into the output half of a bound stream pair, on a thread of its own: the writes block
    /// while URLSession has not read the previous bytes, so at most the pair's buffer is in memory.
    // @unchecked: the output stream is used by the pump's own thread only.
    private final class BoundStreamPump: @unchecked Sendable {
        private let reader: BodyReader
        private let output: OutputStream
        private let onFailure: @Sendable (any Error) -> Void

        init(reader: BodyReader, output: OutputStream, onFailure: @escaping @Sendable (any Error) -> Void) {
            self.reader = reader
            self.output = output
            self.onFailure = onFailure
        }

        func run() {
            output.open()
            defer {
                output.close()
                reader.close()
            }
            do {
                while let chunk = try reader.nextBlocking(maxCount: RequestBody.chunkSize) {
                    var offset = 0
                    while offset < chunk.count {
                        let written = chunk.withUnsafeBytes { bytes -> Int in
                            guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return -1 }
                            return output.write(base + offset, maxLength: chunk.count - offset)
                        }
                        // The reading side closed (the task ended or was cancelled).
                        guard written > 0 else { return }
                        offset += written
                    }
                }
            } catch {
                onFailure(error)
            }
        }
    }
#endif

#if canImport(FoundationNetworking) && COURIER_APPLE_PATHS
    // Only for type-checking the Apple code paths on Linux (`scripts/check-apple-paths`): FoundationNetworking
    // has no bound stream pair. This stand-in makes none, so a build with COURIER_APPLE_PATHS sends no stream
    // body and is never shipped or tested.
    extension Stream {
        static func getBoundStreams(
            withBufferSize bufferSize: Int,
            inputStream: UnsafeMutablePointer<InputStream?>?,
            outputStream: UnsafeMutablePointer<OutputStream?>?
        ) {}
    }
#endif
