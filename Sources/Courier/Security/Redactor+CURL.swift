extension Redactor {
    /// The file a `curl` command reads a body from when the body is not shown.
    static let curlBodyFile = "request-body.bin"

    /// The request as a `curl` command, every value shell-quoted and redacted.
    ///
    /// A text body (form, JSON, other UTF-8) of at most `maxBodyBytes` bytes, secrets masked, is inlined with
    /// `--data-raw`. A body that is binary, longer than `maxBodyBytes`, or not in memory is never inlined or
    /// replaced by a placeholder: the command reads it with `--data-binary @request-body.bin`, and a shell
    /// comment on the line before says how many bytes were not shown. Replayed as it is, the command fails
    /// because the file is missing, instead of uploading the wrong bytes.
    func curl(_ request: APIRequest, maxBodyBytes: Int) -> String {
        let method = request.method.rawValue
        let plain = !method.isEmpty && method.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        var parts = ["curl", "-X", plain ? method : Self.shellQuoted(method), Self.shellQuoted(url(of: request))]
        for field in request.headers {
            parts += ["-H", Self.shellQuoted("\(field.name.rawValue): \(headerValue(field))")]
        }
        var note = ""
        if !request.body.isEmpty {
            let contentType = request.headers[.contentType]
            let kind: String
            if let data = request.body.data {
                if (data.count - 1024) / 4 > maxBodyBytes || data.count > Self.maxRedactedBodyBytes {
                    // Masking shortens a body only so much: this one cannot fit, so it is not rendered at all.
                    kind = "longer than maxBodyBytes (\(maxBodyBytes))"
                } else if let text = text(of: data, contentType: contentType) {
                    if text.utf8.count <= maxBodyBytes {
                        return (parts + ["--data-raw", Self.shellQuoted(text)]).joined(separator: " ")
                    }
                    kind = "longer than maxBodyBytes (\(maxBodyBytes))"
                } else {
                    kind = "binary"
                }
            } else {
                kind = "not in memory"
            }
            let size = Self.summary(ofBodyCount: request.body.count, contentType: contentType)
            note = "# The request body (\(size)) is \(kind) and not shown: save it as \(Self.curlBodyFile) to replay.\n"
            parts += ["--data-binary", "@" + Self.curlBodyFile]
        }
        return note + parts.joined(separator: " ")
    }

    /// `text` in single quotes, safe to paste into a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
