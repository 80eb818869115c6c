import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields and files, streamed part by part and never
/// assembled in memory.
///
/// Endpoints build one with `encoding: .multipart` from a dictionary literal (see `MultipartParameterEncoder`
/// and ``MultipartFile``); executors read it from `RequestBody.multipartForm` (executor support only).
///
/// The boundary is 32 random characters after `courier-`; a text or in-memory part that happens to contain it
/// makes a new one, so it never occurs in content Courier can see (a file or stream would have to guess 190
/// random bits). Names and filenames are sent as UTF-8 quoted strings with `"` and `\` escaped by a
/// backslash and CR, LF and NUL percent-encoded, so no name can break out of its header. Its size (and so
/// `Content-Length`) is known when every part's size is.
public struct MultipartForm: Sendable, Hashable {
    /// The boundary between parts.
    public private(set) var boundary: String
    /// The parts, in order.
    public private(set) var parts: [MultipartPart]

    /// A form with `parts` and a fresh random boundary that none of the in-memory parts contains.
    public init(parts: [MultipartPart] = []) {
        self.parts = parts
        self.boundary = Self.makeBoundary()
        while parts.contains(where: { $0.contains(boundary) }) { boundary = Self.makeBoundary() }
    }

    /// Appends a part, choosing a new boundary if the part's in-memory content holds the current one.
    public mutating func append(_ part: MultipartPart) {
        parts.append(part)
        while parts.contains(where: { $0.contains(boundary) }) { boundary = Self.makeBoundary() }
    }

    /// `multipart/form-data; boundary=…`, the request's `Content-Type`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The size of the whole body in bytes, when every part's size is known.
    public var count: Int? {
        var total = 0
        for segment in segments {
            switch segment {
            case .bytes(let data): total += data.count
            case .body(let body):
                guard let count = body.count else { return nil }
                total += count
            }
        }
        return total
    }

    /// The body as pieces to send in order: headers and boundaries in memory, each part's content as it is.
    var segments: [Segment] {
        var segments: [Segment] = []
        var pending = Data()
        for part in parts {
            pending.append(contentsOf: Array("--\(boundary)\r\n".utf8))
            pending.append(part.headerBytes)
            if let data = part.content.data {
                pending.append(data)
            } else if !part.content.isInMemory {
                segments.append(.bytes(pending))
                segments.append(.body(part.content))
                pending = Data()
            }
            pending.append(contentsOf: Array("\r\n".utf8))
        }
        pending.append(contentsOf: Array("--\(boundary)--\r\n".utf8))
        segments.append(.bytes(pending))
        return segments
    }

    enum Segment {
        case bytes(Data)
        /// A file or stream part's content (never in memory, never another form's).
        case body(RequestBody)
    }

    /// `courier-` and 32 random letters and digits (190 bits).
    static func makeBoundary() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return "courier-"
            + String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }
}

/// One part of a ``MultipartForm``: a name, optional filename and content type, and its content.
public struct MultipartPart: Sendable, Hashable {
    /// The field name, sent in `Content-Disposition`.
    public var name: String
    /// The filename, for file parts; servers treat a part with a filename as an uploaded file.
    public var filename: String?
    /// The part's `Content-Type`; `nil` sends none (servers assume `text/plain`).
    public var contentType: String?
    /// The content: in-memory data, a file or a stream (see ``RequestBody``).
    public var content: RequestBody

    /// Creates a part.
    public init(name: String, filename: String? = nil, contentType: String? = nil, content: RequestBody) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.content = content
    }

    /// A text field, sent as UTF-8 without a content type.
    public static func field(_ name: String, _ value: String) -> MultipartPart {
        MultipartPart(name: name, content: .data(Data(value.utf8)))
    }

    /// A file read from disk while it is sent; the filename defaults to the file's last path component and the
    /// content type to `application/octet-stream`.
    public static func file(
        _ name: String,
        _ url: URL,
        filename: String? = nil,
        contentType: String = "application/octet-stream"
    ) -> MultipartPart {
        MultipartPart(
            name: name, filename: filename ?? url.lastPathComponent, contentType: contentType, content: .file(url))
    }

    /// Bytes in memory sent as a file.
    public static func data(
        _ name: String,
        _ data: Data,
        filename: String? = nil,
        contentType: String = "application/octet-stream"
    ) -> MultipartPart {
        MultipartPart(name: name, filename: filename, contentType: contentType, content: .data(data))
    }

    /// `Content-Disposition` and `Content-Type` lines and the blank line after them.
    var headerBytes: Data {
        var text = "Content-Disposition: form-data; name=\"\(Self.quoted(name))\""
        if let filename { text += "; filename=\"\(Self.quoted(filename))\"" }
        text += "\r\n"
        if let contentType { text += "Content-Type: \(Self.headerSafe(contentType))\r\n" }
        text += "\r\n"
        return Data(text.utf8)
    }

    /// Whether `boundary` occurs in the part's headers or in-memory content.
    func contains(_ boundary: String) -> Bool {
        let needle = Data(boundary.utf8)
        if headerBytes.range(of: needle) != nil { return true }
        if let data = content.data, data.range(of: needle) != nil { return true }
        return false
    }

    /// `text` for inside a quoted string: `"` and `\` escaped with a backslash, CR, LF and NUL percent-encoded.
    static func quoted(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            case "\0": result += "%00"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` without CR, LF and NUL, which would end the header line.
    static func headerSafe(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" })
    }
}
