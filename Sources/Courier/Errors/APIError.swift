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
/// } catch {  // typed throws: `error` is an APIError (in a closure, write `do throws(APIError)`)
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
/// A ``Reason`` matches like an enum case but is a struct that later versions may add members to: end a
/// `switch` over it with `default:`.
///
/// Descriptions never contain header values or request bodies, so an error can be logged as it is:
/// `print(error)`, `"\(error)"`, `error.localizedDescription`, `String(reflecting: error)` and `dump(error)`
/// show secrets (see `SensitiveData`) as `***`, URLs without user info or secret query values, and bodies
/// as sizes. ``debugDetails(revealingSecrets:)`` shows everything.
public struct APIError: Error, Sendable {
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
    /// The call's recorder, set where the call ends (the error's request may be one a plugin made).
    var recorder: CallRecorder? = nil
    /// Where and why the executor says a secure connection was refused (see ``tlsRefusal``).
    var reportedTLSRefusal: TLSRefusal? = nil

    /// What happened during the call that failed, up to the failure: its attempts, retries, redirects and cache
    /// decisions; `nil` when no observer of the configuration watches events (see ``CallTimeline``).
    public var timeline: CallTimeline? { (recorder ?? request?.recorder)?.timeline }

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
    ///     endpoint's or the configuration's ``APIConfiguration/responseDecoder``).
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
}
