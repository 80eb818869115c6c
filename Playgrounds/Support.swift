// The playground's plumbing: where pages send their requests (`Stage`), how they print (`Console`), and the
// httpbin echo they decode. Nothing here is needed to use Courier; the pages are the part worth reading.
import Courier
import Foundation

/// Where the pages run: against a real httpbin, or offline against `OfflineServer`.
struct Stage: Sendable {
    /// Whether the pages talk to the offline stand-in instead of a real server.
    let isOffline: Bool
    /// httpbin's base URL (offline: `http://httpbin.invalid`, which is never resolved).
    let baseURL: URL
    /// What actually sends requests: `URLSessionExecutor.shared`, or the offline stand-in.
    let transport: any APIExecutor

    /// The configuration that `main.swift` installs as `APIConfiguration.default` before every page: the
    /// server's base URL, and the transport wrapped in the `LoggingExecutor` of the Executors page, which
    /// prints every request it sends (→) and every response it gets (←).
    var configuration: APIConfiguration {
        APIConfiguration(baseURL: baseURL, timeout: .seconds(10), executor: LoggingExecutor(wrapping: transport))
    }

    /// "httpbin" or "the offline httpbin", for sentences.
    var serverName: String { isOffline ? "the offline httpbin" : "httpbin" }
}

/// Prints the pages' output: one heading per page, then per step a sentence, the traffic and the outcome.
///
/// Every line goes through `mask(_:)`: the demo credentials all start with `secret-`, and are printed as
/// `***` wherever they appear (URLs, bodies, echoes).
enum Console {
    static func heading(_ title: String, _ summary: String) {
        let rule = String(repeating: "━", count: max(4, 72 - title.count))
        line("\n━━ \(title) \(rule)\n\(summary)")
    }

    /// A new step: what it shows, often with the Swift that does it.
    static func step(_ text: String) { line("\n• \(text)") }
    /// The outcome of a step.
    static func result(_ text: String) { line("  = \(text)") }
    /// A remark that explains the outcome.
    static func note(_ text: String) { line("  · \(text)") }
    /// An error a step expected (and caught): its description, which never contains secrets or bodies.
    static func caught(_ error: APIError) { line("  ✗ \(error)") }

    /// A request leaving (printed by `LoggingExecutor`): method, URL and body.
    static func sent(_ request: APIRequest, label: String = "") {
        var text = "  → \(label)\(request.method) \(request.url.absoluteString)"
        if let body = request.body.data, !body.isEmpty {
            text += "\n    body: " + shorten(String(decoding: body, as: UTF8.self), to: 100)
        }
        line(text)
    }

    /// A response arriving (printed by `LoggingExecutor`): status, type, size and time.
    static func received(_ response: APIResponse, after elapsed: Duration, label: String = "") {
        var parts = ["\(response.statusCode)"]
        if let type = response.headers[.contentType]?.split(separator: ";").first { parts.append(String(type)) }
        parts.append("\(response.data.count) bytes")
        parts.append("\(milliseconds(elapsed)) ms")
        line("  ← \(label)" + parts.joined(separator: " · "))
    }

    /// Prints `text` with the demo secrets masked.
    static func line(_ text: String) {
        print(mask(text))
    }

    /// `text` with every demo secret (`secret-…`) replaced by `***`.
    static func mask(_ text: String) -> String {
        text.replacingOccurrences(of: "secret-[A-Za-z0-9_.-]*", with: "***", options: .regularExpression)
    }

    static func shorten(_ text: String, to length: Int) -> String {
        let flat = text.replacingOccurrences(of: "\\s*\n\\s*", with: " ", options: .regularExpression)
            .trimmingCharacters(in: .whitespaces)
        return flat.count > length ? flat.prefix(length) + "…" : flat
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

// MARK: - What httpbin answers

/// httpbin's echo of a request (`/get`, `/anything`, `/post`, `/headers`, `/delay/n`): what the server
/// received. Fields an endpoint does not return are `nil`.
struct Echo: Decodable, Sendable {
    var url: String?
    var method: String?
    var args: [String: OneOrMany]?
    var form: [String: OneOrMany]?
    var headers: [String: String]
    var data: String?

    /// The value of the received header `name`, ignoring case.
    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    /// The query arguments as `name=value` pairs sorted by name, `(none)` when there are none.
    var argsText: String { Self.text(args) }
    /// The form fields as `name=value` pairs sorted by name, `(none)` when there are none.
    var formText: String { Self.text(form) }

    private static func text(_ fields: [String: OneOrMany]?) -> String {
        guard let fields, !fields.isEmpty else { return "(none)" }
        return fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}

/// httpbin's echo of a request with a JSON body, with the body decoded as `Body`.
struct JSONEcho<Body: Decodable & Sendable>: Decodable, Sendable {
    var json: Body?
}

/// A query argument or form field as httpbin echoes it: one string, or a list when the name repeats.
enum OneOrMany: Decodable, Sendable, CustomStringConvertible {
    case one(String)
    case many([String])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let list = try? container.decode([String].self) {
            self = .many(list)
        } else {
            self = .one(try container.decode(String.self))
        }
    }

    var description: String {
        switch self {
        case .one(let value): value
        case .many(let values): "[" + values.joined(separator: ", ") + "]"
        }
    }
}

/// A counter shared by concurrent code (plugins, executors, tasks).
// @unchecked: every access to `value` goes through `lock`.
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    var count: Int { lock.withLock { value } }

    @discardableResult
    func increment() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}
