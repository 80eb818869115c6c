import Foundation

/// Splits bytes into lines ending in LF, CRLF or CR, holding at most `limit` bytes of an unfinished line.
struct LineSplitter {
    private var pending: [UInt8] = []
    /// The last chunk ended in CR: a LF at the start of the next one belongs to it.
    private var afterCR = false
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The lines that `chunk` completes; `nil` when an unfinished line grows past the limit.
    mutating func lines(in chunk: Data) -> [String]? {
        var lines: [String] = []
        for byte in chunk {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0A:
                lines.append(String(decoding: pending, as: UTF8.self))
                pending.removeAll(keepingCapacity: true)
            case 0x0D:
                lines.append(String(decoding: pending, as: UTF8.self))
                pending.removeAll(keepingCapacity: true)
                afterCR = true
            default:
                pending.append(byte)
                if pending.count > limit { return nil }
            }
        }
        return lines
    }

    /// The unfinished last line, if any, at the end of the body.
    mutating func rest() -> String? {
        defer { pending = [] }
        return pending.isEmpty ? nil : String(decoding: pending, as: UTF8.self)
    }
}

extension ResponseStream {
    /// The body as lines of UTF-8 text (invalid bytes become U+FFFD), without their line endings (LF, CRLF or
    /// CR). A line longer than the request's ``APIRequest/maxResponseBytes`` fails with
    /// ``APIError/TransportProblem/responseTooLarge``.
    public var lines: Lines { Lines(stream: self) }

    /// The body parsed as Server-Sent Events (`text/event-stream`), as the WHATWG HTML standard says.
    public var events: ServerSentEvents { ServerSentEvents(lines: lines) }

    /// The lines of a ``ResponseStream``.
    public struct Lines: AsyncSequence, Sendable {
        /// The element type: one line of text.
        public typealias Element = String

        let stream: ResponseStream

        /// Reads the lines.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(
                chunks: stream.makeAsyncIterator(),
                splitter: LineSplitter(limit: stream.handle.buffer.request.maxResponseBytes),
                request: stream.handle.buffer.request)
        }

        /// Reads lines one by one.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var chunks: ResponseStream.AsyncIterator
            var splitter: LineSplitter
            let request: APIRequest
            var ready: [String] = []
            var index = 0
            var ended = false

            /// The next line, or `nil` at the end.
            /// - Throws: ``APIError``.
            public mutating func next() async throws -> String? {
                while index == ready.count {
                    guard !ended else { return nil }
                    ready = []
                    index = 0
                    guard let chunk = try await chunks.next() else {
                        ended = true
                        if let rest = splitter.rest() { ready = [rest] }
                        continue
                    }
                    guard let lines = splitter.lines(in: chunk) else {
                        chunks.reader.handle.buffer.cancel()
                        throw APIError(.transport(.responseTooLarge), endpoint: request.endpoint, request: request)
                    }
                    ready = lines
                }
                defer { index += 1 }
                return ready[index]
            }
        }
    }
}

/// One Server-Sent Event.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type (`event:` field); `"message"` when the event named none.
    public var event: String
    /// The data: the `data:` lines of the event joined with `\n`.
    public var data: String
    /// The last event ID (`id:` field), which persists across events until another `id:` line changes it.
    public var id: String?
    /// The reconnection time the stream last set (`retry:` field, in milliseconds), if it set one.
    public var retry: Duration?

    /// Creates an event.
    public init(event: String = "message", data: String, id: String? = nil, retry: Duration? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}

/// The events of a `text/event-stream` body: fields `event`, `data` (over several lines), `id` and `retry`;
/// comment lines (starting with `:`) and unknown fields are ignored, an event without data is not dispatched,
/// and an unfinished event at the end of the stream is dropped.
public struct ServerSentEvents: AsyncSequence, Sendable {
    /// The element type: one event.
    public typealias Element = ServerSentEvent

    let lines: ResponseStream.Lines

    /// Reads the events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: lines.makeAsyncIterator())
    }

    /// Reads events one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var lines: ResponseStream.Lines.AsyncIterator
        var first = true
        var type = ""
        var data = ""
        var hasData = false
        var lastID: String?
        var retry: Duration?

        /// The next event, or `nil` at the end.
        /// - Throws: ``APIError``.
        public mutating func next() async throws -> ServerSentEvent? {
            while var line = try await lines.next() {
                if first {
                    first = false
                    if line.hasPrefix("\u{FEFF}") { line.removeFirst() }
                }
                if line.isEmpty {
                    defer {
                        type = ""
                        data = ""
                        hasData = false
                    }
                    guard hasData else { continue }
                    return ServerSentEvent(event: type.isEmpty ? "message" : type, data: data, id: lastID, retry: retry)
                }
                if line.hasPrefix(":") { continue }
                let field: Substring
                var value: Substring
                if let colon = line.firstIndex(of: ":") {
                    field = line[..<colon]
                    value = line[line.index(after: colon)...]
                    if value.hasPrefix(" ") { value = value.dropFirst() }
                } else {
                    field = line[...]
                    value = ""
                }
                switch field {
                case "event": type = String(value)
                case "data":
                    if hasData { data += "\n" }
                    data += value
                    hasData = true
                    let request = lines.request
                    if data.utf8.count > request.maxResponseBytes {
                        lines.chunks.reader.handle.buffer.cancel()
                        throw APIError(.transport(.responseTooLarge), endpoint: request.endpoint, request: request)
                    }
                case "id": if !value.contains("\u{0}") { lastID = String(value) }
                case "retry":
                    if !value.isEmpty, value.allSatisfy(\.isASCIIDigit), let milliseconds = Int64(value) {
                        retry = .milliseconds(milliseconds)
                    }
                default: break
                }
            }
            return nil
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
