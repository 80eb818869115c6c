/// The one definition of what is secret in a request or a response: which header values, and which query
/// names and body keys. Redirect handling (credentials are removed on an origin change), logging, cURL
/// output, and the descriptions and mirrors of requests, responses and errors all use it.
///
/// A request adds its own secret headers in ``APIRequest/sensitiveHeaders``: the auth plugins put the
/// header they set there, and ``APIConfiguration/sensitiveHeaders`` names more for every request.
public enum SensitiveData {
    /// Headers that are always secret: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and
    /// the common API-key and token headers.
    public static let headers: Set<HTTPHeaderName> = [
        .authorization, .proxyAuthorization, .cookie, .setCookie, "X-API-Key", "X-Auth-Token",
        "X-Access-Token", "X-CSRF-Token", "X-XSRF-Token", "X-Amz-Security-Token",
    ]

    /// Whether the value of the header `name` is secret in `request` (built-in names, or one the request
    /// marks as sensitive).
    public static func isSensitive(_ name: HTTPHeaderName, in request: APIRequest? = nil) -> Bool {
        headers.contains(name) || (request?.sensitiveHeaders.contains(name) ?? false)
    }
}
