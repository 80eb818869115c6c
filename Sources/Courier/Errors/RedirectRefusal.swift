/// Why a redirect was not followed.
///
/// A struct with a static member for each refusal, not an enum, so that Courier can add refusals without
/// breaking your code: it matches in a `switch` (end it with `default:`) and with `==`.
public struct RedirectRefusal: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case insecureRedirect
        case tooManyRedirects
        case refusedByPolicy
    }

    let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The redirect goes from `https` to `http`.
    public static let insecureRedirect = RedirectRefusal(.insecureRedirect)
    /// The call reached its policy's ``RedirectPolicy/maxRedirects``.
    public static let tooManyRedirects = RedirectRefusal(.tooManyRedirects)
    /// The policy's own rule refused it.
    public static let refusedByPolicy = RedirectRefusal(.refusedByPolicy)
}
