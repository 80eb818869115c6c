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
    /// How close a recorded interaction is to a request it does not answer. Stages are compared in order (method,
    /// endpoint, path, query items, named headers, body, predicate); the later the first difference, the closer.
    /// Within that stage, the less differs the closer (segments of the path, query names, JSON members and
    /// items: a value that differs counts 1, one that only one side has counts 2); then the more of the later
    /// stages agree, the closer (a `DELETE` of a recorded `GET`'s path is closer to that `GET` than to a `POST`
    /// elsewhere). On a tie the first recorded is the closest.
    struct Closeness: Comparable {
        /// The stage of the first difference.
        var stage: Int
        /// How much differs at that stage.
        var distance: Int
        /// How many of the later stages agree.
        var agreeing: Int

        static func < (lhs: Closeness, rhs: Closeness) -> Bool {
            (lhs.stage, -lhs.distance, lhs.agreeing) < (rhs.stage, -rhs.distance, rhs.agreeing)
        }
    }

    /// The first difference between `incoming` (the request half, masked) and `recorded`, and how close
    /// `recorded` is (see ``Closeness``); `nil` when they match.
    func difference(
        _ incoming: Cassette.Interaction, request: APIRequest, _ recorded: Cassette.Interaction
    ) -> (closeness: Closeness, text: String)? {
        func found(_ stage: Int, _ distance: Int, _ text: String) -> (closeness: Closeness, text: String) {
            (Closeness(stage: stage, distance: distance, agreeing: agreeing(incoming, recorded, after: stage)), text)
        }
        if incoming.method != recorded.method {
            return found(0, 1, "method: \(incoming.method) vs \(recorded.method)")
        }
        if incoming.endpoint != recorded.endpoint {
            return found(1, 1, "endpoint: \(incoming.endpoint) vs \(recorded.endpoint)")
        }
        if incoming.path != recorded.path {
            let distance = Self.pathDistance(incoming.path, recorded.path)
            return found(2, distance, "path: \(incoming.path) vs \(recorded.path)")
        }
        if let (distance, text) = queryDifference(incoming.queryItems, recorded.queryItems) {
            return found(3, distance, text)
        }
        let named = headers.sorted(by: { $0.rawValue.lowercased() < $1.rawValue.lowercased() }).compactMap { name in
            let mine = incoming.requestHeaders.values(for: name)
            let theirs = recorded.requestHeaders.values(for: name)
            return mine == theirs ? nil : "header `\(name)`: \(Self.listed(mine)) vs \(Self.listed(theirs))"
        }
        if let first = named.first {
            return found(4, named.count, first)
        }
        if comparesBodies, let text = BodyComparison.difference(incoming.requestBody, recorded.requestBody) {
            return found(5, BodyComparison.distance(incoming.requestBody, recorded.requestBody), text)
        }
        if let predicate, !predicate(request, recorded) {
            return found(6, 0, "the matching predicate refused it")
        }
        return nil
    }

    /// How many of the stages after `stage` agree: the path template, the path, the query items, the body.
    private func agreeing(_ incoming: Cassette.Interaction, _ recorded: Cassette.Interaction, after stage: Int) -> Int {
        func template(_ endpoint: String) -> Substring { endpoint.split(separator: " ", maxSplits: 1).last ?? "" }
        var agreeing = 0
        if stage < 1, template(incoming.endpoint) == template(recorded.endpoint) { agreeing += 1 }
        if stage < 2, incoming.path == recorded.path { agreeing += 1 }
        if stage < 3, queryDifference(incoming.queryItems, recorded.queryItems) == nil { agreeing += 1 }
        if stage < 5, !comparesBodies || incoming.requestBody == recorded.requestBody { agreeing += 1 }
        return agreeing
    }

    /// The segments that differ between two paths, and two for each segment only one of them has.
    static func pathDistance(_ incoming: String, _ recorded: String) -> Int {
        let mine = incoming.split(separator: "/", omittingEmptySubsequences: false)
        let theirs = recorded.split(separator: "/", omittingEmptySubsequences: false)
        return zip(mine, theirs).filter { $0 != $1 }.count + 2 * abs(mine.count - theirs.count)
    }

    /// The first query name whose values differ, ignoring order and ``ignoredQueryItems``, and how many differ (a
    /// name with other values counts 1, a name only one side has counts 2).
    private func queryDifference(_ incoming: [URLQueryItem], _ recorded: [URLQueryItem]) -> (Int, String)? {
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
        let distance = Set(mine.keys).union(theirs.keys).reduce(0) { total, name in
            switch (mine[name], theirs[name]) {
            case (let left?, let right?): total + (left == right ? 0 : 1)
            default: total + 2
            }
        }
        return (distance, "query `\(name)`: \(Self.listed(mine[name] ?? [])) vs \(Self.listed(theirs[name] ?? []))")
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

    /// How much differs between two bodies: for JSON, each member or item with another value counts 1 and each
    /// that only one side has counts 2 (at any depth); other bodies count 1 when they differ.
    static func distance(_ incoming: Data, _ recorded: Data) -> Int {
        guard incoming != recorded else { return 0 }
        guard let mine = json(incoming), let theirs = json(recorded) else { return 1 }
        return distance(mine, theirs)
    }

    private static func distance(_ mine: Any, _ theirs: Any) -> Int {
        if let mine = mine as? [String: Any], let theirs = theirs as? [String: Any] {
            return Set(mine.keys).union(theirs.keys).reduce(0) { total, key in
                guard let value = mine[key], let other = theirs[key] else { return total + 2 }
                return total + distance(value, other)
            }
        }
        if let mine = mine as? [Any], let theirs = theirs as? [Any] {
            return zip(mine, theirs).reduce(2 * abs(mine.count - theirs.count)) { $0 + distance($1.0, $1.1) }
        }
        return canonical(mine) == canonical(theirs) ? 0 : 1
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
