import Courier

extension APIEndpoint {
    /// The endpoint's path template without a scheme, host or query (`/users/{login}`), for `url.template`, span
    /// names and log metadata. A path declared with a static query (`/files?sig=...`, a pre-signed URL) must not put
    /// the query's values into a label, a span or a log; an endpoint declared with an absolute URL
    /// (`https://bucket.example.com/r/{key}`) has its host in `server.address` and `server.port`, not here.
    var template: String {
        // Scanned as bytes: `:`, `/`, `?` and `#` are ASCII, and scanning characters would cost more than the rest
        // of a metric.
        let bytes = path.utf8
        var start = bytes.startIndex
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            bytes[colon...].starts(with: "://".utf8),
            bytes[..<colon].allSatisfy({ $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") })
        {
            let authority = bytes.index(colon, offsetBy: 3)
            start =
                bytes[authority...].firstIndex {
                    $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
                }
                ?? bytes.endIndex
        }
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        if start == bytes.startIndex, end == bytes.endIndex { return path }
        let template = String(path[start..<end])
        return template.isEmpty ? "/" : template
    }

    /// `GET /users/{login}`: the method and ``template``.
    var name: String { "\(method.rawValue) \(template)" }
}
