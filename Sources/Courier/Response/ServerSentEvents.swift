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
    public var lines: APISequence<String> { APISequence { LineReader(stream: self) } }

    /// The body parsed as Server-Sent Events (`text/event-stream`), as the WHATWG HTML standard says: fields
    /// `event`, `data` (over several lines), `id` and `retry`; comment lines (starting with `:`) and unknown
    /// fields are ignored, an event without data is not dispatched, and an unfinished event at the end of the
    /// stream is dropped. ``events(reconnect:)`` goes on across reconnections.
    public var events: APISequence<ServerSentEvent> { events(reconnect: .never) }

    /// Reads the lines of a ``ResponseStream`` one by one.
    struct LineReader: APISequenceSource {
        var chunks: ResponseStream.AsyncIterator
        var splitter: LineSplitter
        let request: APIRequest
        var ready: [String] = []
        var index = 0
        var ended = false

        init(stream: ResponseStream) {
            chunks = stream.makeAsyncIterator()
            splitter = LineSplitter(limit: stream.handle.buffer.request.maxResponseBytes)
            request = stream.handle.buffer.request
        }

        /// The next line, or `nil` at the end.
        mutating func next() async throws(APIError) -> String? {
            while index == ready.count {
                guard !ended else { return nil }
                ready = []
                index = 0
                guard let chunk = try await chunks.reader.next() else {
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

/// Reads the events of a `text/event-stream` body one by one, across reconnections when its policy says so
/// (``ResponseStream/events`` and ``ResponseStream/events(reconnect:)``).
struct EventReader: APISequenceSource {
    var lines: ResponseStream.LineReader
    var parser = EventParser()
    /// `nil` without reconnection.
    var reconnection: Reconnection?
    /// Whether the first response was checked (with reconnection: an event stream).
    var checked = false
    /// Whether the events ended or failed: `next()` returns `nil` from then on.
    var done = false

    init(stream: ResponseStream, reconnect: ServerSentEvent.ReconnectPolicy) {
        self.lines = ResponseStream.LineReader(stream: stream)
        self.reconnection = Reconnection(policy: reconnect, origin: stream.origin)
    }

    /// The next event, or `nil` at the end.
    mutating func next() async throws(APIError) -> ServerSentEvent? {
        guard !done else { return nil }
        do {
            return try await nextAcrossReconnections()
        } catch {
            done = true
            // The events failed: stop the transfer now, not when the iterator goes away.
            lines.chunks.reader.handle.buffer.cancel()
            throw error
        }
    }

    private mutating func nextAcrossReconnections() async throws(APIError) -> ServerSentEvent? {
        if !checked, let origin = reconnection?.origin, origin.response.statusCode != 204 {
            checked = true
            try Reconnection.check(origin.response)
        }
        while true {
            let failure: APIError?
            do {
                if let event = try await nextOnThisStream() {
                    reconnection?.attempts = 0
                    return event
                }
                failure = nil
            } catch {
                failure = APIError.wrapping(error, request: lines.request)
            }
            guard var reconnection else {
                if let failure { throw failure }
                done = true
                return nil
            }
            self.reconnection = nil
            guard
                let stream = try await reconnection.reopen(
                    after: failure, lastEventID: parser.lastID, retry: parser.retry, request: lines.request)
            else {
                done = true
                return nil
            }
            self.reconnection = reconnection
            lines = ResponseStream.LineReader(stream: stream)
            parser.startStream()
        }
    }

    /// The next event of the stream being read, or `nil` at its end.
    private mutating func nextOnThisStream() async throws(APIError) -> ServerSentEvent? {
        while let line = try await lines.next() {
            switch parser.take(line, limit: lines.request.maxResponseBytes) {
            case .event(let event): return event
            case .tooLarge:
                let request = lines.request
                lines.chunks.reader.handle.buffer.cancel()
                throw APIError(.transport(.responseTooLarge), endpoint: request.endpoint, request: request)
            case nil: continue
            }
        }
        return nil
    }
}

/// The field rules of the WHATWG HTML standard's event stream interpretation, line by line.
struct EventParser: Sendable {
    enum Outcome {
        case event(ServerSentEvent)
        case tooLarge
    }

    var first = true
    var type = ""
    var data = ""
    var hasData = false
    /// The last event ID: it persists across events and reconnections.
    var lastID: String?
    /// The reconnection time: it persists across events and reconnections.
    var retry: Duration?
    /// A new stream begins (after a reconnection): an unfinished event of the last one is dropped.
    mutating func startStream() {
        first = true
        type = ""
        data = ""
        hasData = false
    }

    /// Takes one line: the event it completes, if any; `.tooLarge` when the event's data grows past `limit` bytes.
    mutating func take(_ line: String, limit: Int) -> Outcome? {
        var line = line
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
            guard hasData else { return nil }
            return .event(ServerSentEvent(event: type.isEmpty ? "message" : type, data: data, id: lastID, retry: retry))
        }
        if line.hasPrefix(":") { return nil }
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
            if data.utf8.count > limit { return .tooLarge }
        case "id": if !value.contains("\u{0}") { lastID = String(value) }
        case "retry":
            if !value.isEmpty, value.allSatisfy(\.isASCIIDigit), let milliseconds = Int64(value) {
                retry = .milliseconds(milliseconds)
            }
        default: break
        }
        return nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
