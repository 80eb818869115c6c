/// The status codes a call accepts as success; any other status becomes an
/// ``APIError/Reason/unacceptableStatus(_:)`` error.
public struct AcceptableStatusCodes: Hashable, Sendable, ExpressibleByArrayLiteral {
    /// The accepted ranges of status codes.
    public var ranges: [Range<Int>]

    /// Accepts the codes in the given ranges.
    public init(_ ranges: [Range<Int>]) {
        self.ranges = ranges
    }

    /// Accepts the codes in one range, for example `AcceptableStatusCodes(200..<400)`.
    public init(_ range: Range<Int>) {
        self.ranges = [range]
    }

    /// Accepts the listed codes, for example `[200, 204, 304]`.
    public init(arrayLiteral elements: Int...) {
        self.ranges = elements.map { $0..<($0 + 1) }
    }

    /// Whether `statusCode` is accepted.
    public func contains(_ statusCode: Int) -> Bool {
        ranges.contains { $0.contains(statusCode) }
    }

    /// `200..<300`, the default.
    public static let successful = AcceptableStatusCodes(200..<300)
    /// Every status code: the call never fails because of the status.
    public static let any = AcceptableStatusCodes(0..<1000)
}
