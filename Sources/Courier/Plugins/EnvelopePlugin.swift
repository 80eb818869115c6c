import Foundation

/// Unwraps APIs that wrap every payload in an envelope such as `{"code": 0, "msg": "ok", "data": {...}}`.
///
/// With the plugin in place, every call of every endpoint is checked: a success code passes the `data`
/// member on as the body, so `request(with:)` decodes the payload type directly — no envelope model per
/// endpoint; any other code fails the call with ``APIError/Reason/rejectedByService(code:message:)``.
///
/// ```swift
/// configuration.plugins = [EnvelopePlugin(successCodes: [0, 200])]
///
/// let user: User = try await Legacy.$user.request(with: 42)   // the envelope's `data`, decoded as User
///
/// do { ... } catch {  // `error` is an APIError
///     if let rejection = error.reason.serviceRejection { show(rejection.code, rejection.message) }
/// }
/// ```
///
/// Responses whose status is not accepted or whose body is not a JSON object with the code key are
/// passed on untouched, so status errors still surface as ``APIError/Reason/unacceptableStatus(_:)``.
/// A missing or `null` `data` member becomes an empty body, which an `Optional` result decodes as `nil`.
public struct EnvelopePlugin: APIPlugin {
    /// The key of the status code member.
    let codeKey: String
    /// The key of the message member.
    let messageKey: String
    /// The key of the payload member.
    let dataKey: String
    private let isSuccess: @Sendable (String) -> Bool

    /// An envelope whose code (a number or a string) means success when it is one of `successCodes`.
    public init(
        codeKey: String = "code",
        messageKey: String = "msg",
        dataKey: String = "data",
        successCodes: Set<Int> = [0]
    ) {
        let accepted = Set(successCodes.map(String.init))
        self.init(codeKey: codeKey, messageKey: messageKey, dataKey: dataKey) { accepted.contains($0) }
    }

    /// An envelope whose code, in its text form (`"0"`, `"OK"`), means success when `isSuccess` says so.
    public init(
        codeKey: String = "code",
        messageKey: String = "msg",
        dataKey: String = "data",
        isSuccess: @escaping @Sendable (_ code: String) -> Bool
    ) {
        self.codeKey = codeKey
        self.messageKey = messageKey
        self.dataKey = dataKey
        self.isSuccess = isSuccess
    }

    /// Replaces the body by the envelope's payload, or throws when the code is not a success.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        var response = try await next(request)
        let acceptable = request.endpoint.acceptableStatusCodes ?? .successful
        guard acceptable.contains(response.statusCode), let data = response.body.data, !data.isEmpty,
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let rawCode = object[codeKey], let code = Self.text(of: rawCode)
        else { return response }
        guard isSuccess(code) else {
            throw APIError(
                .rejectedByService(code: code, message: object[messageKey].flatMap(Self.text(of:))),
                endpoint: request.endpoint,
                request: request,
                response: response
            )
        }
        if let payload = object[dataKey], !(payload is NSNull) {
            do {
                response.body = .data(try JSONSerialization.data(withJSONObject: payload, options: [.fragmentsAllowed]))
            } catch {
                throw APIError(
                    .decodingFailed, endpoint: request.endpoint, request: request, response: response,
                    underlyingError: error)
            }
        } else {
            response.body = .empty
        }
        return response
    }

    private static func text(of value: Any) -> String? {
        switch value {
        case let string as String: string
        case let int as Int: String(int)
        case let double as Double:
            double == double.rounded() && abs(double) < 1e15 ? String(Int64(double)) : String(double)
        case let number as NSNumber: number.stringValue
        default: nil
        }
    }
}
