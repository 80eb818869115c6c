/// The status codes a call accepts as success; any other status becomes an
/// ``APIError/Reason/unacceptableStatus(_:)`` error.
public struct AcceptableStatusCodes: Hashable, Sendable, ExpressibleByArrayLiteral {
    /// The accepted ranges of status codes.
    let ranges: [Range<Int>]

    /// Accepts the codes in the given ranges: `AcceptableStatusCodes(200..<400)`,
    /// `AcceptableStatusCodes(200..<300, 304..<305)`.
    public init(_ ranges: Range<Int>...) {
        self.ranges = ranges
    }

    init(ranges: [Range<Int>]) {
        self.ranges = ranges
    }

    /// Accepts the listed codes, for example `[200, 204, 304]`.
    public init(arrayLiteral elements: Int...) {
        self.init(ranges: elements.map { $0..<($0 + 1) })
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
