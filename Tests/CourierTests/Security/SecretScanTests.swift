import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Puts a secret in every place a request can carry one, produces every output Courier has — logs at the most
/// verbose, cURL, error descriptions, `dump`, `String(reflecting:)`, mirrors — and looks for the secrets in it.
@Suite struct SecretScanTests {
    /// Every secret value contains `SECRET`; nothing else in the requests does. The proxy credentials are
    /// also scanned in their base64 form, which is how they travel.
    static let proxyCredentials = Data("proxy:pr0xy-SECRET".utf8).base64EncodedString()

    /// The secrets that show up in the output, if any.
    static func leaks(in text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let range = rest.range(of: "SECRET") {
            let start =
                rest[..<range.lowerBound].lastIndex { $0.isWhitespace || "'\"=:&?,[]()".contains($0) }
                .map(rest.index(after:)) ?? rest.startIndex
            found.append(String(rest[start..<range.upperBound]))
            rest = rest[range.upperBound...]
        }
        if text.contains(proxyCredentials) { found.append(proxyCredentials) }
        return found
    }

    @Test func theScannerFindsAPlantedSecret() {
        #expect(Self.leaks(in: "a line with b3arer-SECRET in it") == ["b3arer-SECRET"])
        #expect(Self.leaks(in: "Proxy-Authorization: Basic \(Self.proxyCredentials)") == [Self.proxyCredentials])
        #expect(Self.leaks(in: "Authorization: ***, api_key=***").isEmpty)
    }

    /// A server that echoes the request — URL, headers and body — back, with `status`.
    static func echo(status: Int) -> StubExecutor {
        StubExecutor().stub(where: { _ in true }) { request in
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.rawValue] = field.value }
            let echoed: [String: Any] = [
                "url": request.url.absoluteString, "headers": headers,
                "body": String(decoding: request.body.data ?? Data(), as: UTF8.self),
            ]
            let body = try JSONSerialization.data(withJSONObject: echoed)
            return StubResponse(
                statusCode: status,
                headers: ["Content-Type": "application/json", "Set-Cookie": "id=s3t-c00kie-SECRET", "X-Echo": "hi"],
                body: body)
        }
    }

    /// An error whose description repeats the URL, as many errors do.
    struct LoadFailure: Error, CustomStringConvertible {
        let url: URL
        var description: String { "could not load \(url.absoluteString)" }
    }

    static let search = GET<String>(
        wrappedValue: .init { ["q": $0, "filter": ["password": "f1lter-SECRET"]] }, "/search")
    static let signUp = POST<String>(
        wrappedValue: .init { ["user": $0, "profile": ["password": "pr0file-SECRET", "name": "ann"]] },
        "/signup",
        encoding: .form
    )
    static let token = POST<String>(
        wrappedValue: .init {
            ["clientId": $0, "clientSecret": "cl1ent-SECRET", "nested": ["apiKey": "n3sted-SECRET"]]
        },
        "/token"
    )

    /// The configuration: every kind of credential, and a logging plugin at its most verbose.
    static func configuration(executor: StubExecutor, log: LockedBox<[String]>) -> APIConfiguration {
        var configuration = APIConfiguration(baseURL: URL(string: "https://bob:us3rinfo-SECRET@api.example.com/v2"))
            .with { $0.executor = executor }
        configuration.sensitiveNames = ["X-Tenant"]
        configuration.headers = [
            "Cookie": "session=c00kie-SECRET", "Proxy-Authorization": "Basic \(proxyCredentials)",
            "X-Tenant": "t3nant-SECRET", "Accept": "application/json",
        ]
        configuration.plugins = [
            .bearer("b3arer-SECRET"), .apiKey("ap1key-SECRET", header: "X-API-Key"),
            .apiKey("qu3ry-SECRET", queryItem: "api_key"),
            // A name no rule calls secret (Google's `key`): the plugin marks it.
            .apiKey("g00gle-SECRET", queryItem: "key"),
            .logging(LoggingPlugin.Options(includeBodies: true, includeHeaders: true, includeCURL: true)) { line in
                log.withLock { $0.append(line) }
            },
        ]
        return configuration
    }

    /// Every printed form of `value`.
    static func printed(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        var printed = ""
        print(value, to: &printed)
        var debugPrinted = ""
        debugPrint(value, to: &debugPrinted)
        let mirror = Mirror(reflecting: value).children.map { "\($0.label ?? "-"): \($0.value)" }
        return [dumped, printed, debugPrinted, String(describing: value), String(reflecting: value), "\(value)"]
            + mirror
    }

    @Test func noOutputContainsASecret() async throws {
        let log = LockedBox<[String]>([])
        var outputs: [String: String] = [:]
        var requests: [APIRequest] = []
        var responses: [APIResponse] = []
        var errors: [APIError] = []

        // GIVEN calls that succeed, fail with a status, fail to decode and fail in transport
        let ok = Self.configuration(executor: Self.echo(status: 200), log: log)
        let unauthorized = Self.configuration(executor: Self.echo(status: 401), log: log)
        let offline = Self.configuration(
            executor: StubExecutor().stub(where: { _ in true }) { request in
                throw URLError(
                    .cannotConnectToHost,
                    userInfo: [NSURLErrorFailingURLErrorKey: request.url, "text": request.url.absoluteString])
            },
            log: log)
        let failing = Self.configuration(
            executor: StubExecutor().stub(where: { _ in true }) { request in throw LoadFailure(url: request.url) },
            log: log)

        // WHEN every kind of call is made
        let searchResponse: APIResponse = try await Self.search.request(with: "shoes", using: ok)
        responses.append(searchResponse)
        responses.append(try await Self.signUp.request(with: "ann", using: ok))
        responses.append(try await Self.token.request(with: "app", using: ok))
        requests += responses.map(\.request)
        requests.append(try Self.token.makeRequest(with: "app", using: ok))
        for configuration in [unauthorized, offline, failing] {
            do { try await Self.search.request(with: "shoes", using: configuration) } catch { errors.append(error) }
            do { try await Self.signUp.request(with: "ann", using: configuration) } catch { errors.append(error) }
            do { try await Self.token.request(with: "app", using: configuration) } catch { errors.append(error) }
        }
        do {
            let _: [Int] = try await Self.token.request(with: "app", using: ok)
        } catch {
            errors.append(error)
        }
        #expect(errors.count == 10)

        // A proxy's password, in the proxy, an executor that holds it, and a variable that names it badly.
        let proxy = HTTPProxy(
            HTTPProxy.Server(host: "proxy.example", port: 3128, username: "u", password: "pr0xy-SECRET"))
        outputs["proxy"] = (Self.printed(proxy) + Self.printed(proxy.https as Any)).joined(separator: "\n")
        outputs["proxied executor"] = Self.printed(URLSessionExecutor(configuration: .default, proxy: proxy))
            .joined(separator: "\n")
        do {
            _ = try HTTPProxy.environment(["HTTPS_PROXY": "socks5://u:pr0xy-SECRET@proxy.example:1080"])
        } catch {
            outputs["proxy variable"] = (Self.printed(error) + ["\(error)"]).joined(separator: "\n")
        }
        #expect(outputs["proxy variable"] != nil)

        // THEN nothing printed holds a secret
        outputs["log"] = log.value.joined(separator: "\n")
        for (index, request) in requests.enumerated() {
            outputs["request \(index)"] = Self.printed(request).joined(separator: "\n")
            outputs["request \(index) headers"] = (Self.printed(request.headers) + Self.printed(request.headers.fields))
                .joined(separator: "\n")
            outputs["request \(index) body"] = Self.printed(request.body).joined(separator: "\n")
            outputs["request \(index) endpoint"] = Self.printed(request.endpoint).joined(separator: "\n")
        }
        for (index, response) in responses.enumerated() {
            outputs["response \(index)"] = Self.printed(response).joined(separator: "\n")
            outputs["response \(index) body"] = Self.printed(response.body).joined(separator: "\n")
        }
        for (index, error) in errors.enumerated() {
            let texts = Self.printed(error) + [error.localizedDescription, error.bodyExcerpt ?? ""]
            outputs["error \(index)"] = texts.joined(separator: "\n")
            outputs["error \(index) as any Error"] = Self.printed(error as any Error).joined(separator: "\n")
        }
        for (name, output) in outputs.sorted(by: { $0.key < $1.key }) {
            var leaks = Self.leaks(in: output)
            if name.hasSuffix(" headers") {
                // Headers printed on their own do not know which headers the configuration marked: those are
                // masked when the request is printed (checked above), the rule-named ones everywhere.
                leaks.removeAll { $0 == "t3nant-SECRET" }
            }
            #expect(leaks.isEmpty, "\(name) leaks \(leaks):\n\(output)")
        }
        // The outputs are not empty: the masks are there.
        #expect(outputs["log"]?.contains("Authorization: ***") == true)
        #expect(outputs["log"]?.contains("curl -X POST") == true)
    }
}
