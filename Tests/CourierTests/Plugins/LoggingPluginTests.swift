import Courier
import CourierTesting
import Foundation
import Testing

@Suite struct LoggingPluginTests {
    static let secrets = ["s3cr3t-token", "c00kie-value", "k3y-value", "pa55word", "set-c00kie", "h1dden"]

    static let login = POST<(user: String, password: String)>(
        wrappedValue: .init { ["user": $0.user, "password": $0.password] },
        "/login",
        headers: ["Cookie": "session=c00kie-value", "X-Custom-Secret": "h1dden", "Accept": "application/json"],
        encoding: .form
    )

    static let profile = POST<String>(
        wrappedValue: .init { ["name": $0, "nested": ["token": "s3cr3t-token", "keep": "visible"]] },
        "/profile"
    )

    func run(
        _ options: LoggingPlugin.Options, status: Int = 200, sensitiveNames: Set<HTTPHeaderName> = []
    ) async throws -> [String] {
        let lines = LockedBox<[String]>([])
        let stub = StubExecutor().stubEverything(
            with: .data(
                Data(#"{"token":"s3cr3t-token","ok":true}"#.utf8), status: status,
                headers: ["Set-Cookie": "id=set-c00kie", "Content-Type": "application/json"]))
        var configuration = testConfiguration.with {
            $0.executor = stub
            $0.sensitiveNames.formUnion(sensitiveNames)
        }
        configuration.plugins = [.apiKey("k3y-value", queryItem: "api_key"), .bearer("s3cr3t-token")]
        configuration.plugins.append(.logging(options) { line in lines.withLock { $0.append(line) } })
        _ = try? await Self.login.request(with: (user: "ann", password: "pa55word"), using: configuration)
        _ = try? await Self.profile.request(with: "ann", using: configuration)
        return lines.value
    }

    @Test func defaultOutputIsOneLinePerRequestAndResponse() async throws {
        let lines = try await run(LoggingPlugin.Options())
        #expect(lines.count == 4)
        #expect(lines[0] == "→ POST https://api.example.com/v2/login?api_key=***")
        #expect(lines[1].hasPrefix("← 200 POST https://api.example.com/v2/login?api_key=*** ("))
        #expect(lines[1].hasSuffix(" ms, 34 bytes)"))
    }

    @Test func everyFormRedactsEverySecret() async throws {
        let options = LoggingPlugin.Options(includeBodies: true, includeHeaders: true, includeCURL: true)
        let lines = try await run(options, sensitiveNames: ["X-Custom-Secret"])
        let output = lines.joined(separator: "\n")
        for secret in Self.secrets {
            #expect(!output.contains(secret), "\(secret) leaked")
        }
        // The redacted fields are still there, masked, and harmless values stay readable.
        #expect(output.contains("Authorization: ***"))
        #expect(output.contains("Cookie: ***"))
        #expect(output.contains("Set-Cookie: ***"))
        #expect(output.contains("X-Custom-Secret: ***"))
        #expect(output.contains("user=ann&password=***"))
        #expect(output.contains(#""keep":"visible""#))
        #expect(output.contains("Accept: application/json"))
    }

    @Test func curlFormIsRunnableAndRedacted() async throws {
        // X-Custom-Secret was printed in clear before: its name says it is secret (see SensitiveData).
        let lines = try await run(LoggingPlugin.Options(includeCURL: true))
        let curl = try #require(lines.first?.split(separator: "\n").last.map(String.init))
        #expect(
            curl
                == "curl -X POST 'https://api.example.com/v2/login?api_key=***' -H 'Cookie: ***' "
                + "-H 'X-Custom-Secret: ***' -H 'Accept: application/json' "
                + "-H 'Content-Type: application/x-www-form-urlencoded; charset=utf-8' "
                + "-H 'Authorization: ***' --data-raw 'user=ann&password=***'"
        )
    }

    @Test func userAddedQueryKeysAreRedacted() async throws {
        let lines = LockedBox<[String]>([])
        var configuration = testConfiguration.with {
            $0.executor = StubExecutor().stubEverything(with: .status(200))
            $0.sensitiveNames.insert("sig")
        }
        configuration.plugins = [.logging(LoggingPlugin.Options()) { line in lines.withLock { $0.append(line) } }]
        try await GET<Void>("/files?sig=abc123&name=x").request(using: configuration)
        #expect(lines.value.first == "→ GET https://api.example.com/v2/files?sig=***&name=x")
    }

    @Test func failuresAreLoggedWithoutSecrets() async throws {
        let lines = LockedBox<[String]>([])
        var configuration = testConfiguration.with {
            $0.executor = StubExecutor().stubEverything(with: .error(URLError(.cannotConnectToHost)))
        }
        configuration.plugins = [.bearer("s3cr3t-token"), .logging { line in lines.withLock { $0.append(line) } }]
        await #expect(throws: APIError.self) { try await GET<Void>("/x").request(using: configuration) }
        let last = try #require(lines.value.last)
        #expect(last.hasPrefix("✗ GET https://api.example.com/v2/x ("))
        #expect(last.hasSuffix("GET /x: could not connect to the server (URLError -1004)"))
        #expect(!lines.value.joined().contains("s3cr3t-token"))
    }

    @Test func secretsEchoedInAResponseBodyAreMasked() async throws {
        // GIVEN a server that echoes the request's headers and URL back in JSON, as httpbin does
        let lines = LockedBox<[String]>([])
        let echo = StubExecutor().stub(where: { _ in true }) { request in
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.rawValue] = field.value }
            let body = try JSONSerialization.data(withJSONObject: [
                "headers": headers, "url": request.url.absoluteString,
            ])
            return StubResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: body)
        }
        var configuration = testConfiguration.with { $0.executor = echo }
        configuration.plugins = [
            .bearer("s3cr3t-token"), .apiKey("k3y-value", queryItem: "api_key"),
            .logging(.init(includeBodies: true)) { line in lines.withLock { $0.append(line) } },
        ]
        // WHEN a call is logged with bodies
        try await GET<Void>("/headers", headers: ["Cookie": "session=c00kie-value"]).request(using: configuration)
        // THEN neither the echoed header nor the echoed URL shows a secret
        let output = lines.value.joined(separator: "\n")
        for secret in ["s3cr3t-token", "k3y-value", "c00kie-value"] {
            #expect(!output.contains(secret), "\(secret) leaked")
        }
        #expect(output.contains(#""Authorization":"***""#))
    }
}
