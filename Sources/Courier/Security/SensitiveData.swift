import Foundation

/// The one definition of what is secret in a request or a response: which header values, and which query
/// names and body keys. Redirect handling (credentials are removed on an origin change), logging, cURL
/// output, and the descriptions and mirrors of requests, responses and errors all use it.
///
/// A request adds its own secret headers in ``APIRequest/sensitiveNames``: the auth plugins put the
/// header they set there, and ``APIConfiguration/sensitiveNames`` names more for every request.
///
/// ## Secret names
///
/// Header names, query names, form fields and JSON keys are all judged by the same rules. A name is first
/// *normalized*: lowercased, with `_`, `-`, `.` and spaces removed, so `accessToken`, `access_token`,
/// `Access-Token` and `access.token` are all `accesstoken`. A normalized name is secret when it
///
/// - ends with one of these words (`password`, `passwd`, `passphrase`, `passcode`, `secret`,
///   `secrets`, `token`, `apikey`, `accesskey`, `secretkey`, `privatekey`, `signingkey`, `encryptionkey`,
///   `subscriptionkey`, `sessionid`, `sessid`, `sessionkey`, `credential`, `credentials`, `signature`,
///   `authorization`, `cookie`): `clientSecret`, `X-Auth-Token`, `X-API-Key`, `Set-Cookie`,
///   `Proxy-Authorization`, `new_password`, `PHPSESSID`;
/// - starts with `password` or `passwd` (`password_confirmation`);
/// - or is one of these names (`auth`, `jwt`, `otp`, `pwd`, `sig`);
///
/// unless it ends with one of these words (`pagetoken`, `nexttoken`, `continuationtoken`: pagination
/// cursors such as `nextPageToken`; `allowcredentials`: the CORS flag `Access-Control-Allow-Credentials`). Whole words only: `author`, `authority`, `tokenizer`, `token_type`,
/// `max_tokens`, `secretary`, `publicKey` and `key` are not secret. Add names of your own with
/// ``APIConfiguration/sensitiveNames``.
///
/// A nested key is secret when any of its parts is, or when the parts run together are: `profile[password]`,
/// `filter[password]`, `profile.password` and `user[api][key]` are secret, and so is everything below a secret
/// key (`{"credentials": {"user": …}}`).
///
/// A path parameter with a secret name (`@POST("/invites/{token}/accept")`) is masked in printed URLs too
/// (`/invites/***/accept`).
///
/// Where a value is redacted it is printed as ``mask`` (`***`).
public enum SensitiveData {
    /// What a redacted value is printed as: `***`.
    public static let mask = "***"

    /// Headers that are always secret: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and
    /// the common API-key and token headers. Every name that the secret-name rules match is secret too.
    public static let headers: Set<HTTPHeaderName> = [
        .authorization, .proxyAuthorization, .cookie, .setCookie, "X-API-Key", "X-Auth-Token",
        "X-Access-Token", "X-CSRF-Token", "X-XSRF-Token", "X-Amz-Security-Token",
    ]

    /// Normalized names that are secret on their own (see "Secret names" above).
    static let secretNames: Set<String> = ["auth", "jwt", "otp", "pwd", "sig"]

    /// Normalized endings that make a name secret (see "Secret names" above).
    static let secretSuffixes: [String] = [
        "password", "passwd", "passphrase", "passcode", "secret", "secrets", "token", "apikey", "accesskey",
        "secretkey", "privatekey", "signingkey", "encryptionkey", "subscriptionkey", "sessionid", "sessid",
        "sessionkey", "credential", "credentials", "signature", "authorization", "cookie",
    ]

    /// Normalized beginnings that make a name secret: `password`, `passwd`.
    static let secretPrefixes: [String] = ["password", "passwd"]

    /// Normalized endings of names that look secret but are not: pagination cursors, the CORS credentials flag.
    static let publicSuffixes: [String] = ["pagetoken", "nexttoken", "continuationtoken", "allowcredentials"]

    /// Whether the value of the header `name` is secret in `request`: a name in ``headers``, a name the
    /// secret-name rules match, or a name the request marks in ``APIRequest/sensitiveNames``.
    public static func isSensitive(_ name: HTTPHeaderName, in request: APIRequest? = nil) -> Bool {
        headers.contains(name) || (request?.sensitiveNames.contains(name) ?? false) || isSensitiveKey(name.rawValue)
    }

    /// Whether a query name, form field or JSON key names a secret, at any nesting (`filter[password]`,
    /// `profile.password`); see "Secret names" above.
    public static func isSensitiveKey(_ key: String) -> Bool {
        var whole = ""
        var part = ""
        var found = false
        for character in key.lowercased() {
            switch character {
            case "[", "]", ".":
                found = found || isSensitiveName(part)
                whole += part
                part = ""
            case "_", "-", " ":
                continue
            default:
                part.append(character)
            }
            if found { return true }
        }
        whole += part
        return isSensitiveName(part) || isSensitiveName(whole)
    }

    /// `url` as text with its user and password masked, and the values of secret query items (and of secret
    /// `name=value` pairs in its fragment) masked: `https://***:***@api.example.com/me?api_key=***&page=2`.
    public static func redacted(_ url: URL) -> String {
        Redactor(request: nil, collectingSecrets: false).url(url)
    }

    /// `url` as ``redacted(_:)`` prints it, with the names `request` marks secret
    /// (``APIRequest/sensitiveNames``, such as an API key's query item) masked too.
    public static func redacted(_ url: URL, for request: APIRequest) -> String {
        let redactor = Redactor(request: request, collectingSecrets: false)
        return url == request.url ? redactor.url(of: request) : redactor.url(url)
    }

    /// `name` lowercased, without `_`, `-`, `.` and spaces.
    static func normalized(_ name: String) -> String {
        String(name.lowercased().filter { !"_-. ".contains($0) })
    }

    /// Whether one normalized name is secret.
    private static func isSensitiveName(_ name: String) -> Bool {
        guard !name.isEmpty else { return false }
        if secretNames.contains(name) { return true }
        if publicSuffixes.contains(where: { name.hasSuffix($0) }) { return false }
        return secretSuffixes.contains { name.hasSuffix($0) } || secretPrefixes.contains { name.hasPrefix($0) }
    }
}
