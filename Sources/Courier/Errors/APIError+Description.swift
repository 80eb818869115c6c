import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Every text Courier makes of an error: the error's description, debug description, mirror and details, and the
// descriptions of the reason types. None holds a header value, a body or a secret (see `SensitiveData`); the
// reason types' texts hold only names the caller or the definition chose (a path parameter, a header name, a
// host name, a type name), plus a service's own code and message.

extension APIError: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable, LocalizedError {
    /// `METHOD /path/template: cause`, without header values or bodies; a secret value of the request that
    /// the cause repeats (a server's message, an underlying error's text) is masked, and so are the secrets of
    /// any URL in it.
    public var description: String {
        redactor.scrub("\(endpoint): \(cause)")
    }

    /// The ``description``, then the request, the response and the underlying error, all redacted.
    public var debugDescription: String {
        let redactor = self.redactor
        var parts = [description]
        if let request { parts.append("request: \(request)") }
        if let response { parts.append("response: \(response)") }
        if let underlying = underlyingErrorDetail(redactor) { parts.append("underlying error: \(underlying)") }
        return "APIError(" + parts.joined(separator: "; ") + ")"
    }

    /// A mirror whose children hold redacted values: the request and response mirror themselves redacted, and
    /// the underlying error is a redacted summary (a `URLError`'s failing URL, for one, can hold query secrets).
    /// `dump(error)` prints it.
    public var customMirror: Mirror {
        let redactor = self.redactor
        return Mirror(
            self,
            children: [
                "reason": redactor.scrub(reason.description), "endpoint": endpoint.description,
                "request": request as Any,
                "response": response as Any, "underlyingError": underlyingErrorDetail(redactor) as Any,
            ],
            displayStyle: .struct
        )
    }

    /// Everything about the failure on several lines: the description, the underlying error, and the
    /// response's (or the request's) details with the body as text.
    ///
    /// By default secrets are redacted as everywhere else. With `revealingSecrets: true` the text holds
    /// **every credential in clear** — header values, query values, URL passwords, bodies, and the underlying
    /// error as `String(reflecting:)` prints it. Never log it; use it for a one-off look in a debugger.
    public func debugDetails(revealingSecrets: Bool = false) -> String {
        let redactor = self.redactor
        var lines = [revealingSecrets ? "\(endpoint.method.rawValue) \(endpoint.path): \(cause)" : description]
        lines.append("reason: " + (revealingSecrets ? "\(reason)" : redactor.scrub("\(reason)")))
        if let underlyingError {
            let text = revealingSecrets ? String(reflecting: underlyingError) : underlyingErrorDetail(redactor)
            lines.append("underlying error: \(text ?? "-")")
        }
        if let response {
            lines.append("response: " + response.debugDetails(revealingSecrets: revealingSecrets))
        } else if let request {
            lines.append("request: " + request.debugDetails(revealingSecrets: revealingSecrets))
        }
        return lines.joined(separator: "\n")
    }

    /// Redacts with the secrets of the request as built and as sent (the response's, with the credentials
    /// the plugins added).
    var redactor: Redactor {
        Redactor(requests: [request, response?.request].compactMap { $0 })
    }

    /// The underlying error, summarized and redacted: a `URLError` as its code and redacted failing URL.
    private func underlyingErrorDetail(_ redactor: Redactor) -> String? {
        switch underlyingError {
        case nil:
            return nil
        case let error as URLError:
            let url = error.failingURL.map { ", failingURL: \(redactor.url($0))" } ?? ""
            return "URLError(\(error.code.rawValue)\(url))"
        case let error as DecodingError:
            return redactor.scrub("DecodingError(\(Self.summary(of: error)))")
        case let error as EncodingError:
            return redactor.scrub("EncodingError(\(Self.summary(of: error)))")
        case let error?:
            return redactor.scrub("\(type(of: error))(\(String(describing: error)))")
        }
    }

    /// The same text as ``description``.
    public var errorDescription: String? { description }

    private var cause: String {
        switch reason.kind {
        case .invalidRequest(let problem):
            problem.description + ((underlyingError as? MissingPathValueHint).map { " (\($0))" } ?? "")
        case .transport(let problem):
            if let refusal = tlsRefusal {
                // Courier's words only: a TLS library's text names files of its build.
                "the secure connection to \(refusal.origin) failed: \(refusal.why)"
            } else {
                "\(problem.description)" + (underlyingErrorSummary.map { " (\($0))" } ?? "")
            }
        case .unacceptableStatus(let category):
            "unacceptable status \(statusCode.map(String.init) ?? "?") (\(category.description))"
        case .decodingFailed:
            if let response, response.body.isEmpty,
                case .valueNotFound(let type, _)? = underlyingError as? DecodingError
            {
                "the response body is empty; decode an Optional (\(type)?) to get nil for an empty body"
            } else {
                "the response body could not be decoded" + (underlyingErrorSummary.map { ": \($0)" } ?? "")
            }
        case .rejectedByService(let code, let message):
            "the service rejected the request with code \(code)" + (message.map { ": \($0)" } ?? "")
        case .notCached: "no fresh cached response, and the cache policy reads from the cache only"
        case .governorRefused(let refusal): "not sent: \(refusal)" + (underlyingErrorSummary.map { " (\($0))" } ?? "")
        case .other:
            underlyingErrorSummary ?? "failed"
        }
    }

    private var underlyingErrorSummary: String? {
        switch underlyingError {
        case nil: nil
        case let error as URLError: "URLError \(error.code.rawValue)"
        case let error as DecodingError: Self.summary(of: error)
        case let error as EncodingError: Self.summary(of: error)
        case let error?: String(describing: error)
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty
            ? "top level"
            : codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                .joined(separator: ".")
    }

    static func summary(of error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            "type mismatch for \(type) at \(path(context.codingPath)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            "missing \(type) value at \(path(context.codingPath))"
        case .keyNotFound(let key, let context):
            "missing key '\(key.stringValue)' at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            "data corrupted at \(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            "\(error)"
        }
    }

    static func summary(of error: EncodingError) -> String {
        switch error {
        case .invalidValue(_, let context):
            "invalid value at \(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            "encoding failed"
        }
    }
}

extension APIError.Reason: CustomStringConvertible {
    /// A short English description: the kind of failure, then the detail.
    public var description: String {
        switch kind {
        case .invalidRequest(let problem): "invalid request: \(problem)"
        case .transport(let problem): "transport failure: \(problem)"
        case .unacceptableStatus(let category): "unacceptable status: \(category)"
        case .decodingFailed: "decoding failed"
        case .rejectedByService(let code, let message):
            "rejected by the service with code \(code)" + (message.map { ": \($0)" } ?? "")
        case .notCached: "no fresh cached response (the cache policy reads from the cache only)"
        case .governorRefused(let refusal): "refused by the traffic governor: \(refusal)"
        case .other: "other failure"
        }
    }
}

extension APIError.RequestProblem: CustomStringConvertible {
    /// A short English description of the problem.
    public var description: String {
        switch kind {
        case .missingPathValue(let name): "missing value for path parameter '\(name)'"
        case .invalidPathValue(let name): "path parameter '\(name)' would make an empty, '.' or '..' segment"
        case .unsupportedPathValue(let name):
            "path parameter '\(name)' is an array or object; a path segment needs a single value"
        case .malformedPathTemplate:
            "the path template is malformed (unbalanced or empty '{}', or a '%' not followed by two hex digits)"
        case .invalidHeader(let name): "header '\(name)' has an invalid name or a value with CR, LF or NUL"
        case .bodyNotAllowed: "this method cannot carry a request body; use the .query encoding"
        case .unencodableParameters: "the parameters could not be encoded"
        case .unsupportedParameters: "this encoding needs named parameters (a dictionary or a keyed model)"
        case .mixedParameters: "named values cannot be added to a list or a model parameter"
        case .missingBaseURL: "no base URL is configured and the path is not an absolute URL"
        case .unknownHost(let host): "host '\(host)' is not configured"
        case .invalidBaseURL: "the base URL needs a scheme and a host"
        case .invalidURL: "the parts do not make a valid URL"
        case .unreadableBody: "the request body could not be read"
        case .missingParameterBuilder(let type):
            "the endpoint takes a \(type) parameter but its parameter builder is nil, so the value would not be "
                + "sent; declare one, for example `= .init { $0 }`"
        case .unwritableDestination: "the download's destination is not a file URL in an existing folder"
        }
    }
}

extension APIError.TransportProblem: CustomStringConvertible {
    /// A short English description of the problem.
    public var description: String {
        switch kind {
        case .timedOut: "the request timed out"
        case .cannotConnect: "could not connect to the server"
        case .offline: "the device is offline"
        case .cancelled: "the request was cancelled"
        case .connectionLost: "the connection was lost"
        case .secureConnectionFailed: "the secure connection failed"
        case .responseTooLarge: "the response body is larger than the limit for this call"
        case .unsupportedByExecutor: "the executor does not support this kind of transfer"
        case .closedByPeer: "the WebSocket peer closed the connection"
        case .proxyAuthenticationRequired: "the proxy refused the credentials (407)"
        case .redirectRefused(let refusal): refusal.description
        case .other: "the request failed"
        }
    }
}

extension APIError.StatusCategory: CustomStringConvertible {
    /// A short English name of the category.
    public var description: String {
        switch kind {
        case .badRequest: "bad request"
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .notFound: "not found"
        case .clientError: "client error"
        case .serverError: "server error"
        case .unexpected: "unexpected status"
        }
    }
}

extension RedirectRefusal: CustomStringConvertible {
    /// A short English description.
    public var description: String {
        switch kind {
        case .insecureRedirect: "a redirect from https to http was refused"
        case .tooManyRedirects: "too many redirects"
        case .refusedByPolicy: "the redirect policy refused a redirect"
        }
    }
}
