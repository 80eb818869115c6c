import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one error Courier throws. It names the endpoint (`GET /users/{login}`), says why the call
/// failed in a ``reason`` you can switch over, and carries the request, the response and the
/// underlying error when there are any.
///
/// ```swift
/// do {
///     let user: User = try await GitHub.$user.request(with: "octocat")
/// } catch {  // Courier's calls use typed throws: `error` is an APIError
///     switch error.reason {
///     case .unacceptableStatus(.notFound): showNotFound()
///     case .unacceptableStatus(.unauthorized): signIn()
///     case .transport(.offline), .transport(.cannotConnect): showOffline()
///     case .transport(.cancelled): break
///     default:
///         if let problem = error.decodeBody(as: ServerProblem.self) { show(problem.message) }
///     }
/// }
/// ```
///
/// Descriptions never contain header values or request bodies, so an error can be logged as it is:
/// `print(error)`, `"\(error)"`, `error.localizedDescription`, `String(reflecting: error)` and `dump(error)`
/// show secrets (see `SensitiveData`) as `***`, URLs without user info or secret query values, and bodies
/// as sizes. ``debugDetails(revealingSecrets:)`` shows everything.
public struct APIError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable,
    LocalizedError
{
    /// Why a call failed.
    public enum Reason: Sendable, Hashable {
        /// The endpoint or its parameters could not make a valid request; nothing was sent.
        case invalidRequest(RequestProblem)
        /// The request did not complete: no response, or the connection broke.
        case transport(TransportProblem)
        /// A response arrived with a status code the endpoint does not accept.
        case unacceptableStatus(StatusCategory)
        /// The response body could not be decoded into the requested type.
        case decodingFailed
        /// The service answered with a failure code inside a successful response (see ``EnvelopePlugin``).
        case rejectedByService(code: String, message: String?)
        /// The cache policy reads from the cache only (``CachePolicy/ReadMode/cacheOnly``) and it holds no
        /// fresh response for this request.
        case notCached
        /// A plugin or a custom executor stopped the call with an error of its own (see ``underlyingError``).
        case other
    }

    /// What was wrong with an endpoint definition or the parameters of a call. Each is found before any I/O.
    public enum RequestProblem: Sendable, Hashable {
        /// The path template names a parameter that the call did not provide (or provided as `nil`).
        case missingPathValue(name: String)
        /// A path value would make an empty, `.` or `..` segment.
        case invalidPathValue(name: String)
        /// A path value is an array or a nested object, which has no single-segment form.
        case unsupportedPathValue(name: String)
        /// The path template is malformed: an unbalanced or empty `{}`, a `/` inside braces, or a `%` that
        /// is not followed by two hex digits (in the path or its static query).
        case malformedPathTemplate
        /// A header name is not a valid token, or a header value contains CR, LF or NUL.
        case invalidHeader(name: String)
        /// The endpoint sends a body (`.json` or `.form`) but its method may not carry one.
        case bodyNotAllowed
        /// The parameters cannot be encoded; the `EncodingError` is the ``APIError/underlyingError``. For
        /// example a NaN or infinite number, a date outside its style's range (see
        /// ``ParameterEncodingOptions/DateStyle``), or values nested deeper than ``Parameters/maximumDepth``.
        case unencodableParameters
        /// The parameters' shape does not fit the encoding, for example an array for a query string.
        case unsupportedParameters
        /// Names were appended to parameters that hold a list or a model.
        case mixedParameters
        /// No base URL is configured and the endpoint's path is not an absolute URL.
        case missingBaseURL
        /// The endpoint names a host that the configuration does not map to a URL.
        case unknownHost(APIHost)
        /// The base URL has no scheme or no host.
        case invalidBaseURL
        /// The pieces did not make a valid URL.
        case invalidURL
        /// The request body could not be prepared, for example a file that cannot be read.
        case unreadableBody
        /// The endpoint takes a parameter (of the named type) but declares no parameter builder (`= nil`), so
        /// the call's value would not be sent: declare one, for example `= .init { $0 }`.
        case missingParameterBuilder(String)
        /// A download's destination is not a file URL in an existing folder (or is a folder itself).
        case unwritableDestination
    }

    /// Why a request did not complete.
    public enum TransportProblem: Sendable, Hashable {
        /// The request or the resource timed out.
        case timedOut
        /// The host could not be resolved or did not accept the connection.
        case cannotConnect
        /// The device has no network connection.
        case offline
        /// The calling task was cancelled.
        case cancelled
        /// The connection was lost mid-request.
        case connectionLost
        /// A TLS or certificate problem.
        case secureConnectionFailed
        /// The response body grew past the request's ``APIRequest/maxResponseBytes``; the call stopped
        /// receiving the moment it crossed the limit.
        case responseTooLarge
        /// A redirect was not followed, and the call failed: see the ``RedirectRefusal``.
        case redirectRefused(RedirectRefusal)
        /// The executor cannot carry out this transfer (a download to a file, a stream, progress, a body that is
        /// not in memory); the `ExecutorLimitation` is the ``APIError/underlyingError``. Raised before any I/O.
        case unsupportedByExecutor
        /// Any other transport failure; the `URLError` is the ``APIError/underlyingError``.
        case other
    }

    /// A status code the endpoint does not accept, classified.
    public enum StatusCategory: Sendable, Hashable {
        /// 400.
        case badRequest
        /// 401.
        case unauthorized
        /// 403.
        case forbidden
        /// 404.
        case notFound
        /// Any other 4xx.
        case clientError
        /// Any 5xx.
        case serverError
        /// A 1xx, 2xx or 3xx code the endpoint does not accept.
        case unexpected

        /// The category of `statusCode`.
        public init(statusCode: Int) {
            switch statusCode {
            case 400: self = .badRequest
            case 401: self = .unauthorized
            case 403: self = .forbidden
            case 404: self = .notFound
            case 400..<500: self = .clientError
            case 500..<600: self = .serverError
            default: self = .unexpected
            }
        }
    }

    /// Why the call failed.
    public let reason: Reason
    /// The endpoint that was called.
    public let endpoint: APIEndpoint
    /// The request, when one was built.
    public let request: APIRequest?
    /// The response, when one arrived.
    public let response: APIResponse?
    /// The error behind this one: a `URLError`, an `EncodingError`, a `DecodingError`, or a plugin's error.
    public let underlyingError: (any Error)?
    /// The decoder of the call that failed, for ``decodeBody(as:using:)``.
    var responseDecoder: (any ResponseDecoder)? = nil

    /// Creates an error. Executors and plugins use this to report failures in Courier's terms.
    public init(
        _ reason: Reason,
        endpoint: APIEndpoint,
        request: APIRequest? = nil,
        response: APIResponse? = nil,
        underlyingError: (any Error)? = nil
    ) {
        self.reason = reason
        self.endpoint = endpoint
        self.request = request
        self.response = response
        self.underlyingError = underlyingError
    }

    /// Wraps any error from an executor or a plugin: an ``APIError`` stays as it is, a `URLError` becomes a
    /// classified ``Reason/transport(_:)`` reason, a `CancellationError` becomes
    /// ``TransportProblem/cancelled``, and anything else becomes ``Reason/other``.
    public static func wrapping(_ error: any Error, request: APIRequest) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let urlError as URLError:
            let problem = TransportProblem(urlError)
            return APIError(
                .transport(problem), endpoint: request.endpoint, request: request, underlyingError: urlError)
        case is CancellationError:
            return APIError(
                .transport(.cancelled), endpoint: request.endpoint, request: request, underlyingError: error)
        default:
            return APIError(.other, endpoint: request.endpoint, request: request, underlyingError: error)
        }
    }

    /// The response's status code, when a response arrived.
    public var statusCode: Int? { response?.statusCode }

    /// The response body, when a response arrived.
    public var responseBody: Data? { response?.body.data }

    /// Decodes the response body into the server's own error model, or returns `nil` when there is no
    /// body or it does not decode.
    ///
    /// ```swift
    /// if let problem = error.decodeBody(as: S3Error.self) { … }             // with the call's decoder
    /// if let problem = error.decodeBody(as: Problem.self, using: .json(decoder)) { … }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The server's error model.
    ///   - decoder: The decoder; `nil` for the one the failed call used (its `decoder:` argument, the
    ///     endpoint's, the configuration's ``APIConfiguration/responseDecoder``, else JSON with the
    ///     configuration's `decoder`).
    public func decodeBody<ServerError: Decodable>(
        as type: ServerError.Type,
        using decoder: (any ResponseDecoder)? = nil
    ) -> ServerError? {
        guard let data = response?.body.data, !data.isEmpty else { return nil }
        return try? (decoder ?? responseDecoder ?? JSONResponseDecoder()).decode(type, from: data)
    }

    /// The first 200 characters of the response body, for a decoding failure's diagnosis, as the server sent
    /// them but with every secret masked: the values of secret keys in JSON (`access_token`, `accessToken`, …,
    /// at any depth, even in JSON cut short), of secret `name=value` pairs in forms and text, and every secret
    /// value of the request that the server echoed.
    public var bodyExcerpt: String? {
        guard let data = response?.body.data, !data.isEmpty else { return nil }
        return redactor.excerpt(of: data, contentType: response?.headers[.contentType], limit: 200)
    }

    /// Whether the calling task was cancelled.
    public var isCancellation: Bool { reason == .transport(.cancelled) }

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
        var lines = [revealingSecrets ? "\(endpoint): \(cause)" : description]
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
    private var redactor: Redactor {
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
        switch reason {
        case .invalidRequest(let problem):
            problem.description + ((underlyingError as? MissingPathValueHint).map { " (\($0))" } ?? "")
        case .transport(let problem):
            "\(problem.description)" + (underlyingErrorSummary.map { " (\($0))" } ?? "")
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
        switch self {
        case .invalidRequest(let problem): "invalid request: \(problem)"
        case .transport(let problem): "transport failure: \(problem)"
        case .unacceptableStatus(let category): "unacceptable status: \(category)"
        case .decodingFailed: "decoding failed"
        case .rejectedByService(let code, let message):
            "rejected by the service with code \(code)" + (message.map { ": \($0)" } ?? "")
        case .notCached: "no fresh cached response (the cache policy reads from the cache only)"
        case .other: "other failure"
        }
    }
}

extension APIError.RequestProblem: CustomStringConvertible {
    /// A short English description of the problem.
    public var description: String {
        switch self {
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
        switch self {
        case .timedOut: "the request timed out"
        case .cannotConnect: "could not connect to the server"
        case .offline: "the device is offline"
        case .cancelled: "the request was cancelled"
        case .connectionLost: "the connection was lost"
        case .secureConnectionFailed: "the secure connection failed"
        case .responseTooLarge: "the response body is larger than the limit for this call"
        case .unsupportedByExecutor: "the executor does not support this kind of transfer"
        case .redirectRefused(let refusal): refusal.description
        case .other: "the request failed"
        }
    }

    /// Classifies a `URLError`.
    public init(_ error: URLError) {
        switch error.code {
        case .timedOut: self = .timedOut
        case .cancelled: self = .cancelled
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff: self = .offline
        case .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .cannotLoadFromNetwork: self = .cannotConnect
        case .networkConnectionLost: self = .connectionLost
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
            .clientCertificateRequired:
            self = .secureConnectionFailed
        default: self = .other
        }
    }
}

extension APIError.StatusCategory: CustomStringConvertible {
    /// A short English name of the category.
    public var description: String {
        switch self {
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
