import Courier
import CourierTesting
import Foundation
import Testing

/// The findings of the "secrets in output" probe, each at the logging plugin's most verbose.
@Suite struct LoggingPluginSecretTests {
    static let verbose = LoggingPlugin.Options(includeBodies: true, includeHeaders: true, includeCURL: true)

    /// An executor that answers with the request's body, as text, and the request's headers, like an echo server.
    static let echo = StubExecutor().stub(where: { _ in true }) { request in
        var headers: HTTPHeaders = ["Content-Type": "text/plain"]
        for field in request.headers {
            headers.add(HTTPHeaderName(rawValue: "X-Echo-\(field.name.rawValue)"), field.value)
        }
        return StubResponse(statusCode: 200, headers: headers, body: request.body.data ?? Data())
    }

    /// Sends `call` through `plugins` and a verbose logging plugin, and returns everything it logged.
    func log(
        _ options: LoggingPlugin.Options = Self.verbose,
        plugins: [any APIPlugin] = [],
        executor: StubExecutor = Self.echo,
        configure: (inout APIConfiguration) -> Void = { _ in },
        _ call: @Sendable (APIConfiguration) async throws -> Void
    ) async -> String {
        let lines = LockedBox<[String]>([])
        var configuration = testConfiguration.with { $0.executor = executor }
        configure(&configuration)
        configuration.plugins = plugins + [.logging(options) { line in lines.withLock { $0.append(line) } }]
        try? await call(configuration)
        return lines.value.joined(separator: "\n")
    }

    // MARK: - Headers set by auth plugins

    @Test(arguments: ["X-API-Key", "X-Vendor"])
    func theHeaderAnAPIKeyPluginSetsIsRedacted(header: String) async {
        let output = await log(plugins: [.apiKey("k3y-in-header", header: HTTPHeaderName(rawValue: header))]) {
            try await GET<Void>("/me").request(using: $0)
        }
        #expect(!output.contains("k3y-in-header"))
        #expect(output.contains("-H '\(header): ***'"))
        #expect(output.contains("\n    \(header): ***"))
    }

    @Test func theHeadersARefreshingAuthPluginSetsAreRedacted() async {
        let auth = RefreshingAuthPlugin<String>(
            credential: { "r3fresh-cred" },
            refresh: { _ in "r3fresh-cred" },
            apply: { credential, request in request.headers["X-Vendor"] = credential }
        )
        let output = await log(plugins: [auth]) { try await GET<Void>("/me").request(using: $0) }
        #expect(!output.contains("r3fresh-cred"))
        #expect(output.contains("X-Vendor: ***"))
    }

    @Test func headersMarkedByTheConfigurationAreRedacted() async {
        let output = await log(configure: { $0.sensitiveNames = ["X-Tenant"] }) {
            try await GET<Void>("/me", headers: ["X-Tenant": "t3nant-id"]).request(using: $0)
        }
        #expect(!output.contains("t3nant-id"))
    }

    @Test func theCORSCredentialsFlagIsNotASecret() async {
        let executor = StubExecutor().stubEverything(
            with: .status(200, headers: ["Access-Control-Allow-Credentials": "true", "X-Session-Token": "s3ss-tok"]))
        let output = await log(executor: executor) { try await GET<Void>("/me").request(using: $0) }
        #expect(output.contains("Access-Control-Allow-Credentials: true"))
        #expect(!output.contains("s3ss-tok"))
    }

    // MARK: - Nested keys

    @Test func nestedSecretKeysAreRedacted() async {
        let output = await log { configuration in
            try await POST<Void>(
                wrappedValue: .init { ["profile": ["password": "f0rm-nested-pw", "name": "ann"]] }, "/p",
                encoding: .form
            ).request(using: configuration)
            try await GET<Void>(wrappedValue: .init { ["filter": ["password": "qu3ry-nested-pw"]] }, "/q")
                .request(using: configuration)
            try await POST<Void>(
                wrappedValue: .init { ["profile.password": "d0tted-pw"] }, "/d", encoding: .form
            ).request(using: configuration)
        }
        for secret in ["f0rm-nested-pw", "qu3ry-nested-pw", "d0tted-pw"] {
            #expect(!output.contains(secret), "\(secret) leaked")
        }
        #expect(output.contains("profile%5Bname%5D=ann"))
    }

    // MARK: - URL user info

    @Test func aPasswordInTheURLsUserInfoIsRedacted() async {
        let output = await log { try await GET<Void>("http://bob:us3r-info-pw@example.com/me").request(using: $0) }
        #expect(!output.contains("us3r-info-pw"))
        #expect(!output.contains("bob"))
        #expect(output.contains("http://***:***@example.com/me"))
    }

    // MARK: - Secrets echoed back

    @Test func formAndJSONSecretsEchoedInAResponseAreMasked() async {
        let output = await log { configuration in
            try await POST<Void>(
                wrappedValue: .init { ["user": "ann", "password": "f0rm-echoed"] }, "/login", encoding: .form
            ).request(using: configuration)
            try await POST<Void>(wrappedValue: .init { ["auth": ["client_secret": "js0n-echoed"]] }, "/token")
                .request(using: configuration)
        }
        // The echo server sends the bodies back as text/plain, where no key says what is secret.
        for secret in ["f0rm-echoed", "js0n-echoed"] {
            #expect(!output.contains(secret), "\(secret) leaked")
        }
    }

    // MARK: - Spellings

    @Test(arguments: ["accessToken", "apiKey", "clientSecret", "X-Auth-Token", "refresh-token", "ID_TOKEN"])
    func commonSpellingsOfSecretNamesAreRedacted(name: String) async {
        let output = await log { configuration in
            try await GET<Void>(wrappedValue: .init { [name: "sp3lling-q"] }, "/q").request(using: configuration)
            try await POST<Void>(wrappedValue: .init { [name: "sp3lling-j"] }, "/j").request(using: configuration)
            try await GET<Void>("/h", headers: [HTTPHeaderName(rawValue: name): "sp3lling-h"])
                .request(using: configuration)
        }
        for secret in ["sp3lling-q", "sp3lling-j", "sp3lling-h"] {
            #expect(!output.contains(secret), "\(name): \(secret) leaked")
        }
    }

    @Test(arguments: ["author", "tokenizer", "token_type", "max_tokens", "secretary", "nextPageToken", "key"])
    func namesThatOnlyLookSecretAreShown(name: String) async {
        let output = await log(LoggingPlugin.Options(includeBodies: true)) {
            try await GET<Void>(wrappedValue: .init { [name: "plain-value"] }, "/q").request(using: $0)
        }
        #expect(output.contains("\(name)=plain-value"))
    }

    // MARK: - cURL bodies

    @Test func aLargeBodyIsCutInTheLogAndNotInlinedInCURL() async throws {
        let big = String(repeating: "a", count: 1_000_000)
        var options = Self.verbose
        options.maxBodyBytes = 100
        let output = await log(options) {
            try await POST<Void>(wrappedValue: .init { ["text": big] }, "/big").request(using: $0)
        }
        #expect(output.utf8.count < 5_000)
        let lines = output.split(separator: "\n").map(String.init)
        let curl = try #require(lines.first { $0.hasPrefix("curl ") })
        #expect(curl.hasSuffix(" --data-binary @request-body.bin"))
        #expect(!curl.contains("--data-raw"))
        let note = try #require(lines.first { $0.hasPrefix("# ") })
        #expect(note.contains("1000011 bytes"))
        #expect(note.contains("request-body.bin"))
        // The body excerpt says visibly that it was cut.
        #expect(output.contains("more bytes not shown)"))
    }

    @Test func aBinaryBodyIsNeverReplacedByAPlaceholderInCURL() async throws {
        let binary = POST<Void>("/upload", headers: ["Content-Type": "application/octet-stream"])
        // Endpoints do not send raw bytes yet: log a built request with a binary body directly.
        let lines = LockedBox<[String]>([])
        let plugin = LoggingPlugin.logging(Self.verbose) { line in lines.withLock { $0.append(line) } }
        var request = try binary.makeRequest(using: testConfiguration)
        request.body = .data(Data([0x00, 0xFF, 0x01, 0x02]))
        _ = try await plugin.intercept(request) { try await Self.echo.execute($0) }
        let text = lines.value.joined(separator: "\n")
        #expect(!text.contains("--data-raw"))
        #expect(text.contains("--data-binary @request-body.bin"))
        #expect(text.contains("# The request body (4 bytes, application/octet-stream) is binary and not shown"))
    }

    @Test func aBodyOverOneMebibyteIsSummarizedNotParsed() async throws {
        let huge = String(repeating: "b", count: 1_100_000)
        let output = await log {
            try await POST<Void>(wrappedValue: .init { ["password": "hug3-secret", "text": huge] }, "/huge")
                .request(using: $0)
        }
        #expect(output.contains("<1100036 bytes, application/json, too large to redact>"))
        #expect(!output.contains("hug3-secret"))
        #expect(output.utf8.count < 5_000)
    }

    @Test(arguments: [Int.max, 0, -1])
    func anyMaxBodyBytesIsSafe(limit: Int) async throws {
        var options = Self.verbose
        options.maxBodyBytes = limit
        let output = await log(options) {
            try await POST<Void>(wrappedValue: .init { ["name": "ann"] }, "/small").request(using: $0)
        }
        #expect(output.contains(limit > 0 ? #"--data-raw '{"name":"ann"}'"# : "--data-binary @request-body.bin"))
    }

    @Test func aSmallTextBodyIsStillInlined() async throws {
        let output = await log(LoggingPlugin.Options(includeCURL: true)) {
            try await POST<Void>(wrappedValue: .init { ["name": "ann"] }, "/small").request(using: $0)
        }
        #expect(output.contains(#"--data-raw '{"name":"ann"}'"#))
        #expect(!output.contains("request-body.bin"))
    }
}

/// A secret path parameter (`/invites/{token}`) fills a path segment: it is masked there too.
@Suite struct SecretPathParameterTests {
    @Test(arguments: [
        ("/invites/{token}/accept", "/invites/***/accept"),
        ("/invites/{token}", "/invites/***"),
        ("invites/{token}/", "/invites/***/"),
        ("/files/{name}/{api_key}.json", "/files/report/***"),
    ])
    func aSecretPathParameterIsMasked(template: String, expectedPath: String) async throws {
        let lines = LockedBox<[String]>([])
        var configuration = testConfiguration.with { $0.executor = StubExecutor().stubEverything(with: .status(200)) }
        configuration.plugins = [.logging(.init(includeCURL: true)) { line in lines.withLock { $0.append(line) } }]
        let endpoint = POST<Void>(
            wrappedValue: .init { ["token": "inv1te-tok", "api_key": "p4th-key", "name": "report"] }, template)
        try await endpoint.request(using: configuration)
        let output = lines.value.joined(separator: "\n")
        #expect(!output.contains("inv1te-tok"))
        #expect(!output.contains("p4th-key"))
        #expect(output.contains("https://api.example.com/v2" + expectedPath))
        let request = try endpoint.makeRequest(using: configuration)
        #expect("\(request)".hasPrefix("POST https://api.example.com/v2" + expectedPath))
    }

    @Test func aPublicPathParameterIsShown() async throws {
        let request = try GET<String>(wrappedValue: .init { ["login": $0] }, "/users/{login}")
            .makeRequest(with: "octocat", using: testConfiguration)
        #expect("\(request)" == "GET https://api.example.com/v2/users/octocat")
    }
}
