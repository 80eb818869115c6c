import Courier
import Foundation

extension Cassette {
    /// How a request finds its recorded answer.
    ///
    /// By default a recorded interaction answers a request with the same method, endpoint (method and path
    /// template), path, query items (in any order) and body (JSON compared as values, not bytes), all compared
    /// with their secrets masked. Headers are not compared unless named in ``headers``. The scheme, host and port
    /// are not compared either, so a cassette replays against any base URL (a test server's random port, a
    /// placeholder host offline).
    ///
    /// ```swift
    /// Cassette(file, matching: .init(ignoringQueryItems: ["timestamp"], headers: ["Accept-Language"]))
    /// ```
    public struct Matching: Sendable {
        /// Query items left out of the comparison (a timestamp, a nonce).
        public var ignoredQueryItems: Set<String>
        /// Headers that must match too (compared masked: a secret header only by its presence).
        public var headers: Set<HTTPHeaderName>
        /// Whether the bodies are compared.
        public var comparesBodies: Bool
        /// A further condition on the request and a recorded interaction, checked after the others.
        public var predicate: (@Sendable (APIRequest, Interaction) -> Bool)?

        /// Matching options; the defaults compare method, endpoint, path, query items and body.
        public init(
            ignoringQueryItems ignoredQueryItems: Set<String> = [],
            headers: Set<HTTPHeaderName> = [],
            comparesBodies: Bool = true,
            where predicate: (@Sendable (APIRequest, Interaction) -> Bool)? = nil
        ) {
            self.ignoredQueryItems = ignoredQueryItems
            self.headers = headers
            self.comparesBodies = comparesBodies
            self.predicate = predicate
        }
    }

    /// Why a cassette could not answer a request: the underlying error of the ``/Courier/APIError`` it throws (with
    /// the reason ``/Courier/APIError/Reason/other``).
    public struct Problem: Error, CustomStringConvertible {
        /// What went wrong, for people.
        public let description: String
        /// The recorded interaction closest to the request (`METHOD url`, secrets masked), when one was compared.
        public let closestInteraction: String?
        /// The first difference between the request and ``closestInteraction``, such as "query `page`: 3 vs 2"
        /// (the request's value first).
        public let difference: String?

        init(_ description: String, closestInteraction: String? = nil, difference: String? = nil) {
            self.description = description
            self.closestInteraction = closestInteraction
            self.difference = difference
        }
    }
}

extension Cassette.Matching {
    /// The first difference between `incoming` (the request half, masked) and `recorded`, and how far the
    /// comparison got before it (a higher rank is closer); `nil` when they match.
    func difference(
        _ incoming: Cassette.Interaction, request: APIRequest, _ recorded: Cassette.Interaction
    ) -> (rank: Int, text: String)? {
        if incoming.method != recorded.method {
            return (0, "method: \(incoming.method) vs \(recorded.method)")
        }
        if incoming.endpoint != recorded.endpoint {
            return (1, "endpoint: \(incoming.endpoint) vs \(recorded.endpoint)")
        }
        if incoming.path != recorded.path {
            return (2, "path: \(incoming.path) vs \(recorded.path)")
        }
        if let text = queryDifference(incoming.queryItems, recorded.queryItems) {
            return (3, text)
        }
        for name in headers.sorted(by: { $0.rawValue.lowercased() < $1.rawValue.lowercased() }) {
            let mine = incoming.requestHeaders.values(for: name)
            let theirs = recorded.requestHeaders.values(for: name)
            if mine != theirs {
                return (4, "header `\(name)`: \(Self.listed(mine)) vs \(Self.listed(theirs))")
            }
        }
        if comparesBodies, let text = BodyComparison.difference(incoming.requestBody, recorded.requestBody) {
            return (5, text)
        }
        if let predicate, !predicate(request, recorded) {
            return (6, "the matching predicate refused it")
        }
        return nil
    }

    /// The first query name whose values differ, ignoring order and ``ignoredQueryItems``.
    private func queryDifference(_ incoming: [URLQueryItem], _ recorded: [URLQueryItem]) -> String? {
        func values(_ items: [URLQueryItem]) -> [String: [String]] {
            var values: [String: [String]] = [:]
            for item in items where !ignoredQueryItems.contains(item.name) {
                values[item.name, default: []].append(item.value ?? "")
            }
            return values.mapValues { $0.sorted() }
        }
        let mine = values(incoming)
        let theirs = values(recorded)
        guard mine != theirs else { return nil }
        let names = (incoming + recorded).map(\.name)
        guard let name = names.first(where: { mine[$0] != theirs[$0] }) else { return nil }
        return "query `\(name)`: \(Self.listed(mine[name] ?? [])) vs \(Self.listed(theirs[name] ?? []))"
    }

    /// Values as a difference prints them: `none`, one value, or a list.
    static func listed(_ values: [String]) -> String {
        switch values.count {
        case 0: "none"
        case 1: values[0]
        default: "[" + values.joined(separator: ", ") + "]"
        }
    }
}

/// Request bodies compared: JSON as values (key order and spacing do not count), anything else byte for byte.
enum BodyComparison {
    /// The first difference between two bodies, `nil` when they are equal.
    static func difference(_ incoming: Data, _ recorded: Data) -> String? {
        guard incoming != recorded else { return nil }
        if let mine = json(incoming), let theirs = json(recorded) {
            return difference(mine, theirs, at: "")
        }
        return "body: \(summary(incoming)) vs \(summary(recorded))"
    }

    private static func json(_ data: Data) -> Any? {
        guard !data.isEmpty else { return nil }
        return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    /// JSON values compared through their canonical text; objects key by key for the first difference.
    private static func difference(_ mine: Any, _ theirs: Any, at path: String) -> String? {
        if let mine = mine as? [String: Any], let theirs = theirs as? [String: Any] {
            for key in Set(mine.keys).union(theirs.keys).sorted() {
                let place = path.isEmpty ? key : "\(path).\(key)"
                switch (mine[key], theirs[key]) {
                case (let value?, let other?):
                    if let text = difference(value, other, at: place) { return text }
                case (let value?, nil):
                    return "body `\(place)`: \(canonical(value)) vs none"
                case (nil, let other?):
                    return "body `\(place)`: none vs \(canonical(other))"
                case (nil, nil):
                    continue
                }
            }
            return nil
        }
        let left = canonical(mine)
        let right = canonical(theirs)
        guard left != right else { return nil }
        return "body" + (path.isEmpty ? "" : " `\(path)`") + ": \(cut(left)) vs \(cut(right))"
    }

    private static func canonical(_ value: Any) -> String {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes])
        else { return "\(value)" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func summary(_ data: Data) -> String {
        if data.isEmpty { return "empty" }
        if let text = String(data: data, encoding: .utf8) { return cut(text) }
        return "\(data.count) bytes"
    }

    private static func cut(_ text: String) -> String {
        text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
