import Foundation

/// Renders requests, responses and free text with secret values replaced by `SensitiveData.mask`.
///
/// Which names are secret comes from `SensitiveData` (plus the additions a ``LoggingPlugin`` is given);
/// the secret *values* of a request — secret header values and their parts, secret query, form and JSON
/// values, the URL's user and password — are collected once, when the redactor is made, and masked
/// wherever they reappear: a response body that echoes the request, an error message, a header.
///
/// A redactor is made only when something is printed or logged; building and sending a request never
/// makes one.
struct Redactor {
    static let mask = SensitiveData.mask
    /// Secret values shorter than this are not masked in free text (they would mask ordinary words);
    /// they are still masked where their name says they are secret.
    static let minimumSecretLength = 4
    /// How deep JSON is walked; anything deeper is masked as a whole.
    static let maxDepth = 64
    /// Bodies larger than this (1 MiB) are never parsed, redacted or shown, only summarized: redaction must
    /// see a body whole, and logging must not cost more than the call.
    static let maxRedactedBodyBytes = 1 << 20

    /// Headers secret besides `SensitiveData`'s rules: those the requests mark, and the additions.
    private let markedHeaders: Set<HTTPHeaderName>
    /// Normalized names that are secret besides `SensitiveData`'s rules.
    private let additionalKeys: Set<String>
    /// The request's secret values in every form they may be printed in, longest first.
    private(set) var secrets: [String]
    /// Request paths that hold a secret path parameter (`/invites/{token}`), with that segment masked.
    private let maskedPaths: [String: String]

    /// A redactor for `request` (or for text that belongs to no request). `additionalHeaders` and
    /// `additionalKeys` add names to the built-in rules; with `collectingSecrets` false, only names decide
    /// (enough to print a URL or headers, and cheaper: the body is not parsed).
    init(
        request: APIRequest?,
        additionalHeaders: Set<HTTPHeaderName> = [],
        additionalKeys: Set<String> = [],
        collectingSecrets: Bool = true
    ) {
        self.init(
            requests: [request].compactMap { $0 }, additionalHeaders: additionalHeaders,
            additionalKeys: additionalKeys, collectingSecrets: collectingSecrets)
    }

    /// A redactor for text that may hold the secrets of any of `requests` (an error carries the request as
    /// it was built, and the response carries it as the plugins sent it, credentials added).
    init(
        requests: [APIRequest],
        additionalHeaders: Set<HTTPHeaderName> = [],
        additionalKeys: Set<String> = [],
        collectingSecrets: Bool = true
    ) {
        var marked = additionalHeaders
        for request in requests { marked.formUnion(request.sensitiveNames) }
        self.markedHeaders = marked
        var keys = Set(additionalKeys.map(SensitiveData.normalized))
        keys.formUnion(marked.map { SensitiveData.normalized($0.rawValue) })
        keys.remove("")
        self.additionalKeys = keys
        var maskedPaths: [String: String] = [:]
        var pathSecrets: [String] = []
        for request in requests {
            guard let (path, masked, values) = Self.maskedPath(of: request) else { continue }
            maskedPaths[path] = masked
            pathSecrets += values
        }
        self.maskedPaths = maskedPaths
        self.secrets = []
        if collectingSecrets, !requests.isEmpty {
            var variants: Set<String> = []
            for value in requests.flatMap({ collectSecrets(of: $0) }) + pathSecrets {
                variants.formUnion(Self.variants(of: value).filter { $0.count >= Self.minimumSecretLength })
            }
            self.secrets = variants.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
        }
    }

    /// The request's path with every segment that holds a secret path parameter (`/invites/{token}`)
    /// masked, and the segments' values; `nil` when the endpoint has no such parameter.
    private static func maskedPath(of request: APIRequest) -> (path: String, masked: String, values: [String])? {
        let template = request.endpoint.template
        guard !template.isAbsolute, template.names.contains(where: SensitiveData.isSensitiveKey),
            let path = request.target.path
                ?? URLComponents(url: request.url, resolvingAgainstBaseURL: false)?
                .percentEncodedPath
        else { return nil }
        // A multi-segment placeholder (`{token...}`) spans a number of segments known only per call: with a
        // secret name anywhere in such a template, every segment is masked rather than guessing which.
        if template.parts.contains(where: { if case .segments = $0 { true } else { false } }) {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            return (
                path, segments.map { $0.isEmpty ? $0 : mask }.joined(separator: "/"),
                segments.filter { !$0.isEmpty }
            )
        }
        // The template's segments: the literal text of a segment without placeholders, or whether the
        // segment holds a secret placeholder.
        var templateSegments: [(literal: String?, isSecret: Bool)] = [("", false)]
        for part in template.parts {
            let last = templateSegments.count - 1
            switch part {
            case .separator:
                templateSegments.append(("", false))
            case .placeholder(let name), .segments(let name):
                templateSegments[last] = (nil, templateSegments[last].isSecret || SensitiveData.isSensitiveKey(name))
            case .literal(let text):
                templateSegments[last].literal = templateSegments[last].literal.map { $0 + text }
            }
        }
        // The endpoint path is appended to the base URL's path: its segments are the URL's last ones, which
        // is checked against the template's literal segments before anything is masked.
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let trailingSlash = segments.count > 1 && segments.last == "" && templateSegments.last?.literal != ""
        if trailingSlash { segments.removeLast() }
        if templateSegments.first?.literal == "", segments.count < templateSegments.count {
            templateSegments.removeFirst()
        }
        let offset = segments.count - templateSegments.count
        guard offset >= 0 else { return nil }
        var values: [String] = []
        for (index, segment) in templateSegments.enumerated() {
            if let literal = segment.literal, index > 0, literal != segments[offset + index] { return nil }
            if segment.isSecret {
                values.append(segments[offset + index])
                segments[offset + index] = mask
            }
        }
        return (path, segments.joined(separator: "/") + (trailingSlash ? "/" : ""), values)
    }

    // MARK: - Names

    /// Whether the value of the header `name` is secret.
    func isSecret(_ name: HTTPHeaderName) -> Bool {
        SensitiveData.isSensitive(name) || markedHeaders.contains(name)
            || (!additionalKeys.isEmpty && additionalKeys.contains(SensitiveData.normalized(name.rawValue)))
    }

    /// Whether a query name, form field or JSON key is secret, at any nesting.
    func isSecretKey(_ key: String) -> Bool {
        if SensitiveData.isSensitiveKey(key) { return true }
        guard !additionalKeys.isEmpty else { return false }
        let parts = key.split(whereSeparator: { "[].".contains($0) }).map { SensitiveData.normalized(String($0)) }
        return additionalKeys.contains(SensitiveData.normalized(key)) || parts.contains(where: additionalKeys.contains)
    }

    // MARK: - Secret values

    /// The secret values of `request`, as they are written in it.
    private func collectSecrets(of request: APIRequest) -> [String] {
        var found: [String] = []
        for field in request.headers where isSecret(field.name) {
            found += Self.pieces(ofHeaderValue: field.value)
        }
        if request.url.absoluteString.contains("@"),
            let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        {
            found += [components.percentEncodedUser, components.percentEncodedPassword].compactMap { $0 }
        }
        for item in request.encodedQuery.items {
            if let value = item.value, isSecretKey(item.decodedName) {
                found.append(value)
            }
        }
        if let data = request.body.data, !data.isEmpty {
            found += secretValues(inBody: data, contentType: request.headers[.contentType])
        }
        return found
    }

    /// A header value and the parts of it that are secrets on their own: what follows an auth scheme
    /// (`Bearer abc` → `abc`), the password inside `Basic` credentials, and the values of `name=value`
    /// pairs (cookies).
    private static func pieces(ofHeaderValue value: String) -> [String] {
        var pieces = [value]
        let words = value.split(separator: " ", maxSplits: 1)
        if words.count == 2 {
            pieces.append(String(words[1]))
            if words[0].lowercased() == "basic", let data = Data(base64Encoded: String(words[1])) {
                let decoded = String(decoding: data, as: UTF8.self)
                pieces.append(decoded)
                if let colon = decoded.firstIndex(of: ":") {
                    pieces.append(String(decoded[decoded.index(after: colon)...]))
                }
            }
        }
        for pair in value.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { pieces.append(parts[1].trimmingCharacters(in: .whitespaces)) }
        }
        return pieces
    }

    /// The values of secret form fields and JSON keys in a body.
    private func secretValues(inBody data: Data, contentType: String?) -> [String] {
        if Self.isForm(contentType) {
            return Self.formPairs(data).compactMap { pair in
                isSecretKey(Self.decoded(pair.name, plusAsSpace: true)) ? pair.value : nil
            }
        }
        guard Self.looksLikeJSON(data), let json = try? JSONSerialization.jsonObject(with: data, options: []) else {
            return []
        }
        var values: [String] = []
        collect(json, isSecret: false, depth: 0, into: &values)
        return values
    }

    private func collect(_ value: Any, isSecret: Bool, depth: Int, into values: inout [String]) {
        guard depth < Self.maxDepth else { return }
        if let object = value as? [String: Any] {
            for (key, nested) in object {
                collect(nested, isSecret: isSecret || isSecretKey(key), depth: depth + 1, into: &values)
            }
        } else if let array = value as? [Any] {
            for element in array { collect(element, isSecret: isSecret, depth: depth + 1, into: &values) }
        } else if isSecret, let text = Self.scalarText(value) {
            values.append(text)
        }
    }

    /// A JSON string or number as text; `nil` for booleans and null, which are not worth masking.
    private static func scalarText(_ value: Any) -> String? {
        if let string = value as? String { return string }
        if let number = value as? NSNumber, !(value is Bool) {
            return number.stringValue
        }
        return nil
    }

    /// The forms a value may be printed in: as it is, percent-decoded, percent-encoded (query and form
    /// style) and escaped inside a JSON string.
    private static func variants(of value: String) -> Set<String> {
        var variants: Set<String> = [value]
        let decoded = decoded(value, plusAsSpace: false)
        variants.insert(decoded)
        variants.insert(Self.decoded(value, plusAsSpace: true))
        variants.insert(PercentEncoding.encode(decoded, allowing: .unreserved))
        variants.insert(PercentEncoding.encode(decoded, allowing: .unreserved, spaceAsPlus: true))
        for options: JSONSerialization.WritingOptions in [[], [.withoutEscapingSlashes]] {
            if let data = try? JSONSerialization.data(withJSONObject: [decoded], options: options) {
                // `["…"]` → `…`
                variants.insert(String(String(decoding: data, as: UTF8.self).dropFirst(2).dropLast(2)))
            }
        }
        return variants
    }

    // MARK: - Free text

    /// `text` with every secret value of the request masked, and every URL in it redacted.
    func scrub(_ text: String) -> String {
        var result = text
        for secret in secrets where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: Self.mask)
        }
        return redactingURLs(in: result)
    }

    /// `text` with the secrets of every `scheme://…` URL in it redacted (user info, secret query items).
    func redactingURLs(in text: String) -> String {
        guard text.contains("://") else { return text }
        var output = ""
        var rest = Substring(text)
        while let separator = rest.range(of: "://") {
            // The scheme: letters, digits, `+`, `-`, `.` before `://`.
            var start = separator.lowerBound
            while start > rest.startIndex {
                let previous = rest.index(before: start)
                let character = rest[previous]
                guard character.isASCII, character.isLetter || character.isNumber || "+-.".contains(character) else {
                    break
                }
                start = previous
            }
            var end =
                rest[separator.upperBound...].firstIndex { character in
                    character.isWhitespace || "\"'<>`\\{}|^".contains(character)
                } ?? rest.endIndex
            // Punctuation that ends the sentence around a URL (`GET https://h/r?sig=x: unacceptable …`) is not
            // part of it: kept as text, not masked with the value it follows.
            while end > separator.upperBound, ":,;.!?)]".contains(rest[rest.index(before: end)]) {
                end = rest.index(before: end)
            }
            output += rest[..<start]
            let candidate = String(rest[start..<end])
            if start < separator.lowerBound, let url = URL(string: candidate) {
                output += self.url(url)
            } else {
                output += Self.maskingQuery(candidate)
            }
            rest = rest[end...]
        }
        return output + rest
    }

    /// A declared path template as it may be printed: the user and password of an absolute URL masked, and the
    /// values of secret query items and fragment pairs masked (`https://***@h/r.pdf?X-Amz-Signature=***&a=1`).
    /// Works on the text, so `{placeholders}` stay as written; only the built-in secret names apply (an
    /// endpoint belongs to no configuration).
    static func template(_ path: String) -> String {
        guard path.contains(where: { $0 == "?" || $0 == "#" || $0 == "@" }) else { return path }
        let redactor = Redactor(request: nil, collectingSecrets: false)
        var rest = Substring(path)
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        var head = String(rest)
        if let scheme = head.range(of: "://") {
            let authorityEnd = head[scheme.upperBound...].firstIndex(of: "/") ?? head.endIndex
            if let at = head[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
                let userInfo = head[scheme.upperBound..<at]
                head.replaceSubrange(scheme.upperBound..<at, with: userInfo.contains(":") ? "\(mask):\(mask)" : mask)
            }
        }
        if let query { head += "?" + redactor.redactingPairs(String(query)) }
        if let fragment { head += "#" + redactor.redactingPairs(String(fragment)) }
        return head
    }

    /// A URL that does not parse, with everything after `?` or `@` masked.
    private static func maskingQuery(_ text: String) -> String {
        var text = text
        if let at = text.firstIndex(of: "@"), let scheme = text.range(of: "://"), scheme.upperBound <= at {
            text.replaceSubrange(scheme.upperBound..<at, with: mask)
        }
        if let question = text.firstIndex(of: "?") {
            text.replaceSubrange(text.index(after: question)..., with: mask)
        }
        return text
    }

    // MARK: - URLs and headers

    /// The URL with its user and password masked, and the values of secret query items (and of secret
    /// `name=value` pairs in the fragment) masked.
    func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return Self.maskingQuery(url.absoluteString)
        }
        var changed = false
        if components.percentEncodedUser != nil {
            components.percentEncodedUser = Self.mask
            changed = true
        }
        if components.percentEncodedPassword != nil {
            components.percentEncodedPassword = Self.mask
            changed = true
        }
        if !maskedPaths.isEmpty, let masked = maskedPaths[components.percentEncodedPath] {
            components.percentEncodedPath = masked
            changed = true
        }
        if let query = components.percentEncodedQuery {
            let redacted = redactingPairs(query)
            if redacted != query {
                components.percentEncodedQuery = redacted
                changed = true
            }
        }
        if let fragment = components.percentEncodedFragment {
            let redacted = redactingPairs(fragment)
            if redacted != fragment {
                components.percentEncodedFragment = redacted
                changed = true
            }
        }
        guard changed else { return url.absoluteString }
        return components.string ?? Self.maskingQuery(url.absoluteString)
    }

    /// The URL of `request` as ``url(_:)`` prints it, its query masked item by item from the request's items (the
    /// URL's text before the query is masked as ``url(_:)`` masks it). A URL the user assigned is read as text.
    func url(of request: APIRequest) -> String {
        let query = request.encodedQuery
        guard !query.isEmpty, let head = request.target.head else { return url(request.url) }
        let printedHead = URL(string: String(head)).map { url($0) } ?? Self.maskingQuery(String(head))
        return printedHead + "?" + redacting(query)
    }

    /// The query with the values of secret items masked: `a=1&password=***`.
    func redacting(_ query: EncodedQuery) -> String {
        var items = query.items
        for index in items.indices
        where items[index].value != nil && isSecretKey(Self.decoded(items[index].name, plusAsSpace: false)) {
            items[index].value = Self.mask
        }
        return EncodedQuery(items).text
    }

    /// `a=1&password=x` → `a=1&password=***`, for query strings, fragments and form bodies.
    func redactingPairs(_ text: String, plusAsSpace: Bool = false) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            guard let equals = pair.firstIndex(of: "="),
                isSecretKey(Self.decoded(String(pair[..<equals]), plusAsSpace: plusAsSpace))
            else { return String(pair) }
            return String(pair[...equals]) + Self.mask
        }
        .joined(separator: "&")
    }

    /// The value to print for `field`: the mask for a secret header, else the value with secrets masked.
    func headerValue(_ field: HTTPHeaders.Field) -> String {
        isSecret(field.name) ? Self.mask : scrub(field.value)
    }

    /// `headers` with every secret value masked.
    func headers(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.map { HTTPHeaders.Field(name: $0.name, value: headerValue($0)) })
    }

    /// One indented `Name: value` line per field, each starting with a line break.
    func headerLines(_ headers: HTTPHeaders) -> String {
        headers.map { "\n    \($0.name): \(headerValue($0))" }.joined()
    }

    // MARK: - Bodies

    /// A body for printing: secrets masked, cut to `limit` bytes with a visible note, binary data summarized.
    func body(_ data: Data, contentType: String?, limit: Int) -> String {
        guard data.count <= Self.maxRedactedBodyBytes else {
            return "<\(Self.summary(ofBodyCount: data.count, contentType: contentType)), too large to redact>"
        }
        guard let text = text(of: data, contentType: contentType) else {
            return "<\(data.count) bytes of binary data>"
        }
        return Self.truncated(text, limit: limit)
    }

    /// `text` cut to at most `limit` UTF-8 bytes (on a character boundary), with a note saying how much was cut.
    static func truncated(_ text: String, limit: Int) -> String {
        let count = text.utf8.count
        guard count > limit else { return text }
        var cut = text.utf8.index(text.startIndex, offsetBy: max(limit, 0))
        while cut > text.startIndex, String.Index(cut, within: text) == nil {
            cut = text.utf8.index(before: cut)
        }
        let kept = text[..<cut]
        return kept + "… (\(count - kept.utf8.count) more bytes not shown)"
    }

    /// The body as text with secrets masked: a form with secret fields masked, JSON with secret keys masked at
    /// any depth (re-rendered with sorted keys; in place when it does not parse), other UTF-8 text with secret
    /// `name=value` pairs and the request's secrets masked; `nil` for binary data.
    func text(of data: Data, contentType: String?) -> String? {
        if Self.isForm(contentType), let text = String(data: data, encoding: .utf8), !Self.isBinary(text) {
            return scrub(redactingPairs(text, plusAsSpace: true))
        }
        if Self.looksLikeJSON(data),
            let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let rendered = try? JSONSerialization.data(
                withJSONObject: redactJSON(json, depth: 0),
                options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]
            )
        {
            return scrub(String(decoding: rendered, as: UTF8.self))
        }
        guard let text = String(data: data, encoding: .utf8), !Self.isBinary(text) else { return nil }
        // JSON that does not parse (cut short, say) by its keys; other text by its `name=value` pairs.
        return scrub(maskingSecretValues(in: text, data: data, contentType: contentType))
    }

    private func redactJSON(_ value: Any, depth: Int) -> Any {
        guard depth < Self.maxDepth else { return Self.mask }
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, nested) in object {
                result[key] = isSecretKey(key) ? Self.mask : redactJSON(nested, depth: depth + 1)
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map { redactJSON($0, depth: depth + 1) }
        }
        return value
    }

    /// Whether text holds control characters other than tab, line feed and carriage return.
    static func isBinary(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r") || scalar.value == 0x7F
        }
    }

    static func isForm(_ contentType: String?) -> Bool {
        contentType?.lowercased().contains("x-www-form-urlencoded") ?? false
    }

    /// Whether the first byte that is not white space opens a JSON object or array.
    static func looksLikeJSON(_ data: Data) -> Bool {
        let first = data.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    private static func formPairs(_ data: Data) -> [(name: String, value: String)] {
        String(decoding: data, as: UTF8.self).split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    private static func decoded(_ text: String, plusAsSpace: Bool) -> String {
        let spaced = plusAsSpace ? text.replacingOccurrences(of: "+", with: " ") : text
        return spaced.removingPercentEncoding ?? spaced
    }

    // MARK: - Summaries

    /// `27 bytes, application/json`, or `empty`: what descriptions print instead of a body.
    static func summary(ofBodyCount count: Int?, contentType: String?) -> String {
        guard let count else { return "a body of unknown size" + (contentType.map { ", \(oneLine($0))" } ?? "") }
        guard count > 0 else { return "empty" }
        return "\(count) bytes" + (contentType.map { ", \(oneLine($0))" } ?? "")
    }

    /// `text` on one line: line breaks become spaces.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
