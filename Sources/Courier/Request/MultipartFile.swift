import Foundation

/// A file in a multipart dictionary literal: `"photo": .file(url, contentType: "image/jpeg")`.
///
/// Only `MultipartParameterEncoder` can send it; any other encoding fails with
/// ``APIError/RequestProblem/unencodableParameters``.
public struct MultipartFile: Encodable, Sendable, Hashable {
    /// The content: a file, bytes in memory, or a stream.
    var content: RequestBody
    /// The filename sent with the part.
    var filename: String?
    /// The part's content type.
    var contentType: String?

    /// Creates a file part's value (``Swift/Encodable/file(_:filename:contentType:)`` and its siblings are the
    /// spellings to use).
    init(content: RequestBody, filename: String?, contentType: String?) {
        self.content = content
        self.filename = filename
        self.contentType = contentType
    }

    /// Fails: a file can only be sent in a multipart body.
    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            filename ?? "file",
            EncodingError.Context(
                codingPath: encoder.codingPath, debugDescription: "A file can only be sent with encoding: .multipart"))
    }
}

extension Encodable where Self == MultipartFile {
    /// A file read from disk while it is sent; the filename defaults to the file's last path component.
    public static func file(
        _ url: URL,
        filename: String? = nil,
        contentType: String = "application/octet-stream"
    ) -> MultipartFile {
        MultipartFile(content: .file(url), filename: filename ?? url.lastPathComponent, contentType: contentType)
    }

    /// Bytes in memory sent as a file.
    public static func data(
        _ data: Data,
        filename: String?,
        contentType: String = "application/octet-stream"
    ) -> MultipartFile {
        MultipartFile(content: .data(data), filename: filename, contentType: contentType)
    }

    /// A one-shot stream sent as a file (a form holding one is never retried).
    public static func stream<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks,
        count: Int? = nil,
        filename: String?,
        contentType: String = "application/octet-stream"
    ) -> MultipartFile where Chunks.Element == Data {
        MultipartFile(content: .stream(chunks, count: count), filename: filename, contentType: contentType)
    }
}
