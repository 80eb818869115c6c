import Foundation

/// An executor that adds cookies from a storage of its own. The response cache sits before the executor and would
/// not see that `Cookie` field: it asks for it, so that a response to a request with a session cookie is keyed on
/// the cookie and kept off the disk like any other credentialed response.
///
/// ## Implementing
///
/// An executor whose client keeps cookies answers with the field that client would send:
///
/// ```swift
/// extension CookieClientExecutor: CookieSendingExecutor {
///     func cookieField(for url: URL) -> String? {
///         let cookies = client.cookieStorage.cookies(for: url) ?? []
///         return cookies.isEmpty ? nil : HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
///     }
/// }
/// ```
public protocol CookieSendingExecutor: APIExecutor {
    /// The `Cookie` field the executor adds to a request for `url` from its storage, if any.
    func cookieField(for url: URL) -> String?
}
