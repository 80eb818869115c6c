import Courier

extension APIEndpoint {
    /// The endpoint's path template without a query (`/users/{login}`), for `url.template`, span names and log
    /// metadata: a path declared with a static query (`/files?sig=...`, a pre-signed URL) must not put the query's
    /// values into a label, a span or a log.
    var template: String {
        // Scanned as bytes: `?` is ASCII, and scanning characters would cost more than the rest of a metric.
        guard let query = path.utf8.firstIndex(of: UInt8(ascii: "?")) else { return path }
        return String(path[..<query])
    }

    /// `GET /users/{login}`: the method and ``template``.
    var name: String { "\(method.rawValue) \(template)" }
}
