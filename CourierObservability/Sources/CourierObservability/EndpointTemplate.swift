import Courier

extension APIEndpoint {
    /// The endpoint's path template without a query (`/users/{login}`), for `url.template`, span names and log
    /// metadata: a path declared with a static query (`/files?sig=...`, a pre-signed URL) must not put the query's
    /// values into a label, a span or a log.
    var template: String {
        guard let query = path.firstIndex(of: "?") else { return path }
        return String(path[..<query])
    }

    /// `GET /users/{login}`: the method and ``template``.
    var name: String { "\(method.rawValue) \(template)" }
}
