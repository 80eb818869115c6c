import Courier
import Foundation

/// The parts of a `multipart/form-data` body, read back for assertions (see ``StubExecutor/sentBodies``).
///
/// ```swift
/// let form = try #require(MultipartFormContent(stub.sentBodies[0], contentType: request.headers[.contentType]))
/// #expect(form.parts.map(\.name) == ["title", "photo"])
/// #expect(form.parts[1].data == photoBytes)
/// ```
public struct MultipartFormContent: Sendable, Equatable {
    /// One part as it was sent.
    public struct Part: Sendable, Equatable {
        /// The field name, unescaped (`\"` → `"`, `%0D`/`%0A` → CR/LF).
        public var name: String
        /// The filename, unescaped, for file parts.
        public var filename: String?
        /// The part's `Content-Type`.
        public var contentType: String?
        /// The content.
        public var data: Data

        /// The content as UTF-8 text.
        public var text: String { String(decoding: data, as: UTF8.self) }
    }

    /// The parts, in order.
    public var parts: [Part]

    /// Reads `body` with the boundary of `contentType` (`multipart/form-data; boundary=…`); `nil` when the
    /// content type has no boundary or the body is not a well-formed form with it.
    public init?(_ body: Data, contentType: String?) {
        guard let contentType, let range = contentType.range(of: "boundary=") else { return nil }
        let boundary = Data(("--" + contentType[range.upperBound...].trimmingCharacters(in: .whitespaces)).utf8)
        let separator = Data("\r\n".utf8) + boundary
        guard body.starts(with: boundary) else { return nil }
        var parts: [Part] = []
        var position = body.startIndex + boundary.count
        while true {
            let rest = body[position...]
            if rest.starts(with: Data("--".utf8)) { break }
            guard rest.starts(with: Data("\r\n".utf8)),
                let headerEnd = body.range(of: Data("\r\n\r\n".utf8), in: (position + 2)..<body.endIndex),
                let next = body.range(of: separator, in: headerEnd.upperBound..<body.endIndex)
            else { return nil }
            let headers = String(decoding: body[(position + 2)..<headerEnd.lowerBound], as: UTF8.self)
            guard var part = Self.part(headers) else { return nil }
            part.data = Data(body[headerEnd.upperBound..<next.lowerBound])
            parts.append(part)
            position = next.upperBound
        }
        self.parts = parts
    }

    private static func part(_ headers: String) -> Part? {
        var part = Part(name: "", filename: nil, contentType: nil, data: Data())
        var hasName = false
        for line in headers.components(separatedBy: "\r\n") {
            let lower = line.lowercased()
            if lower.hasPrefix("content-type:") {
                part.contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
            } else if lower.hasPrefix("content-disposition:") {
                if let name = parameter("name", in: line) {
                    part.name = name
                    hasName = true
                }
                part.filename = parameter("filename", in: line)
            }
        }
        return hasName ? part : nil
    }

    /// The unescaped value of `name="…"` in a `Content-Disposition` line.
    private static func parameter(_ name: String, in line: String) -> String? {
        guard let start = line.range(of: "; \(name)=\"") else { return nil }
        var value = ""
        var escaped = false
        for character in line[start.upperBound...] {
            if escaped {
                value.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                return value.replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%0A", with: "\n")
                    .replacingOccurrences(of: "%00", with: "\0")
            } else {
                value.append(character)
            }
        }
        return nil
    }
}
