import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Requests, responses, errors, headers and bodies are safe to print: `print`, `String(describing:)`,
// `String(reflecting:)`, string interpolation, `dump` and `Mirror` show secret values as `***` (see
// `SensitiveData`), URLs without their user info or secret query values, and bodies as sizes. The full
// detail is only in `debugDetails(revealingSecrets: true)`.

extension APIRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `METHOD URL`, with the URL redacted, and the body's size and content type:
    /// `POST https://api.example.com/login?api_key=*** (body: 27 bytes, application/json)`.
    public var description: String {
        let redactor = Redactor(request: self, collectingSecrets: false)
        var text = "\(method) \(redactor.url(of: self))"
        if !body.isEmpty { text += " (body: \(bodySummary))" }
        return text
    }

    /// The method, redacted URL, headers with secret values masked, the body's size and the endpoint.
    public var debugDescription: String {
        let redactor = Redactor(request: self, collectingSecrets: false)
        let fields = headers.map { "\($0.name): \(redactor.headerValue($0))" }.joined(separator: ", ")
        return "APIRequest(\(method) \(redactor.url(of: self)), headers: [\(fields)], body: \(bodySummary), "
            + "endpoint: \(endpoint))"
    }

    /// A mirror whose children hold redacted values: the URL as redacted text, the headers with secret values
    /// masked, the body as its size. `dump(request)` prints it.
    public var customMirror: Mirror {
        let redactor = Redactor(request: self, collectingSecrets: false)
        return Mirror(
            self,
            children: [
                "method": method, "url": redactor.url(of: self), "headers": redactor.headers(headers),
                "body": bodySummary,
                "timeout": timeout, "redirectPolicy": redirectPolicy, "maxResponseBytes": maxResponseBytes,
                "sensitiveNames": sensitiveNames.map(\.rawValue).sorted(), "endpoint": endpoint.description,
            ],
            displayStyle: .struct
        )
    }

    /// Everything about the request on several lines: method and URL, endpoint, headers, and the body as
    /// text (or its size when it is binary).
    ///
    /// By default secrets are redacted as everywhere else, and the body is cut after 4096 bytes. With
    /// `revealingSecrets: true` the text holds **every credential in clear**: header values, query values,
    /// the URL's password and the whole body. Never log it; use it for a one-off look in a debugger.
    public func debugDetails(revealingSecrets: Bool = false) -> String {
        let redactor = Redactor(request: self, collectingSecrets: !revealingSecrets)
        var lines = [
            "\(method) \(revealingSecrets ? url.absoluteString : redactor.url(of: self))",
            "endpoint: \(revealingSecrets ? "\(endpoint.method.rawValue) \(endpoint.path)" : endpoint.description)",
        ]
        lines += headers.map { "\($0.name): \(revealingSecrets ? $0.value : redactor.headerValue($0))" }
        if let data = body.data, !data.isEmpty {
            lines.append("")
            lines.append(
                Self.bodyText(data, contentType: headers[.contentType], redactor: redactor, revealing: revealingSecrets)
            )
        } else if !body.isEmpty {
            lines.append("")
            lines.append("<\(bodySummary)>")
        }
        return lines.joined(separator: "\n")
    }

    var bodySummary: String {
        Redactor.summary(ofBodyCount: body.count, contentType: headers[.contentType])
    }

    static func bodyText(_ data: Data, contentType: String?, redactor: Redactor, revealing: Bool) -> String {
        guard revealing else { return redactor.body(data, contentType: contentType, limit: 4096) }
        guard let text = String(data: data, encoding: .utf8), !Redactor.isBinary(text) else {
            return "<\(data.count) bytes of binary data>"
        }
        return text
    }
}

extension APIResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The status, the redacted URL, and the body's size and content type:
    /// `200 https://api.example.com/users/octocat (body: 1355 bytes, application/json)`.
    public var description: String {
        let redactor = Redactor(request: request, collectingSecrets: false)
        return "\(statusCode) \(url.map(redactor.url) ?? "-") (body: \(bodySummary))"
    }

    /// The status, redacted URL, headers with secret values masked, the body's size, and the request.
    public var debugDescription: String {
        let redactor = Redactor(request: request, collectingSecrets: false)
        let fields = headers.map { "\($0.name): \(redactor.headerValue($0))" }.joined(separator: ", ")
        return "APIResponse(\(statusCode) \(url.map(redactor.url) ?? "-"), headers: [\(fields)], "
            + "body: \(bodySummary), request: \(request))"
    }

    /// A mirror whose children hold redacted values (see ``APIRequest/customMirror``); the body is its size.
    public var customMirror: Mirror {
        let redactor = Redactor(request: request, collectingSecrets: false)
        return Mirror(
            self,
            children: [
                "statusCode": statusCode, "headers": redactor.headers(headers), "body": bodySummary,
                "url": url.map(redactor.url) as Any, "request": request,
            ],
            displayStyle: .struct
        )
    }

    /// Everything about the response on several lines: status and URL, headers, and the body as text (or
    /// its size when it is binary), followed by the request's ``APIRequest/debugDetails(revealingSecrets:)``.
    ///
    /// By default secrets are redacted — including every secret value of the request that the server echoes
    /// back — and the body is cut after 4096 bytes. With `revealingSecrets: true` the text holds **every
    /// credential in clear**. Never log it.
    public func debugDetails(revealingSecrets: Bool = false) -> String {
        let redactor = Redactor(request: request, collectingSecrets: !revealingSecrets)
        var lines = ["\(statusCode) \(url.map { revealingSecrets ? $0.absoluteString : redactor.url($0) } ?? "-")"]
        lines += headers.map { "\($0.name): \(revealingSecrets ? $0.value : redactor.headerValue($0))" }
        if !data.isEmpty {
            lines.append("")
            lines.append(
                APIRequest.bodyText(
                    data, contentType: headers[.contentType], redactor: redactor, revealing: revealingSecrets))
        }
        lines.append("")
        lines.append("request: " + request.debugDetails(revealingSecrets: revealingSecrets))
        return lines.joined(separator: "\n")
    }

    private var bodySummary: String {
        Redactor.summary(ofBodyCount: body.data?.count, contentType: headers[.contentType])
    }
}

extension HTTPHeaders: CustomDebugStringConvertible, CustomReflectable {
    /// `[Name: value, …]` with the values of secret headers (see `SensitiveData`) masked.
    public var debugDescription: String {
        "[" + fields.map(\.description).joined(separator: ", ") + "]"
    }

    /// A mirror of the fields, each with its value masked when the header is secret.
    public var customMirror: Mirror {
        Mirror(self, unlabeledChildren: fields, displayStyle: .collection)
    }
}

extension HTTPHeaders.Field: CustomStringConvertible, CustomReflectable {
    /// `Name: value`, with the value masked when the header is secret (see `SensitiveData`).
    public var description: String {
        "\(name): \(redactedValue)"
    }

    /// A mirror with the name and the value, masked when the header is secret.
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name.rawValue, "value": redactedValue], displayStyle: .struct)
    }

    private var redactedValue: String {
        SensitiveData.isSensitive(name) ? SensitiveData.mask : value
    }
}

extension RequestBody: CustomStringConvertible, CustomReflectable {
    /// The size (`27 bytes`, `empty`), never the contents.
    public var description: String { Redactor.summary(ofBodyCount: count, contentType: nil) }

    /// A mirror with the size only.
    public var customMirror: Mirror {
        Mirror(self, children: ["count": count as Any], displayStyle: .struct)
    }
}

extension ResponseBody: CustomStringConvertible, CustomReflectable {
    /// The size (`1355 bytes`, `empty`), never the contents.
    public var description: String { Redactor.summary(ofBodyCount: data?.count, contentType: nil) }

    /// A mirror with the size only.
    public var customMirror: Mirror {
        Mirror(self, children: ["count": data?.count as Any], displayStyle: .struct)
    }
}

extension APIEndpoint: CustomReflectable {
    /// A mirror of the declaration with the static headers' secret values masked, and the path and base URL
    /// redacted (a declared URL's user info and secret query values masked).
    public var customMirror: Mirror {
        let redactor = Redactor(request: nil, collectingSecrets: false)
        return Mirror(
            self,
            children: [
                "method": method, "path": printablePath, "host": options.host as Any,
                "baseURL": options.baseURL.map { redactor.redactingURLs(in: $0.absoluteString) } as Any,
                "encoding": options.encoding as Any, "headers": redactor.headers(options.headers),
                "timeout": options.timeout as Any, "tags": options.tags, "plugins": options.plugins.count,
            ],
            displayStyle: .struct
        )
    }
}

extension WebSocketConnection: CustomStringConvertible, CustomReflectable {
    /// The redacted URL and whether the socket is open: `WebSocket wss://chat.example.com/rooms/lobby (open)`.
    public var description: String {
        let redactor = Redactor(request: request, collectingSecrets: false)
        let close = receivedClose.map { ", peer closed \($0.code)" } ?? ""
        return "WebSocket \(redactor.url(of: request)) (\(isOpen ? "open" : "closed")\(close))"
    }

    /// A mirror of the request (redacted, see ``APIRequest/customMirror``), the subprotocol and the peer's close;
    /// never the transport.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "request": request, "subprotocol": subprotocol as Any, "receivedClose": receivedClose as Any,
                "isOpen": isOpen,
            ],
            displayStyle: .class)
    }
}
