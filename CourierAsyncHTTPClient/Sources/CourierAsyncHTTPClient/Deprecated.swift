// Declarations kept for source compatibility: nothing in the package makes them.

/// Why a download failed: the server answered a resumed download with a `206` that does not continue the file
/// where it stopped. Courier's policy checks a resumed download for every transport, with errors of its own.
@available(*, deprecated, message: "Courier's policy checks a resumed download's 206 for every transport")
public struct DownloadMismatch: Error, Sendable, CustomStringConvertible {
    /// Where the file was to continue.
    public let offset: Int64
    /// The range header the server sent, if any.
    public let contentRange: String?

    /// A short English description.
    public var description: String {
        "a 206 response that does not continue the file at \(offset) (its range: \(contentRange ?? "none"))"
    }
}
