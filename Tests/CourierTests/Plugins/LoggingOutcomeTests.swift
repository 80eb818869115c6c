import Courier
import CourierTesting
import Foundation
import Testing

/// `LoggingPlugin` logs a call's outcome when the call ends: the call forms decode after the plugins, so a body
/// that does not decode is a failure in the log, not the `← 200` its response was when it passed the plugin.
@Suite struct LoggingOutcomeTests {
    struct Slideshow: Decodable {
        struct Show: Decodable {
            var owner: String
        }
        var slideshow: Show
    }

    struct Title: Decodable {
        struct Show: Decodable {
            var title: String
        }
        var slideshow: Show
    }

    static let json = GET<Void>("/json")

    static func logging(_ configuration: APIConfiguration) -> (APIConfiguration, LockedBox<[String]>) {
        let lines = LockedBox<[String]>([])
        var configuration = configuration
        configuration.plugins.append(.logging { line in lines.withLock { $0.append(line) } })
        return (configuration, lines)
    }

    @Test("A 200 from httpbin whose body does not decode is logged as the failure, with the key path", .httpbin)
    func decodingFailureIsAFailure() async throws {
        let (configuration, lines) = Self.logging(try HTTPBin.configuration())

        let error = await #expect(throws: APIError.self) {
            let _: Slideshow = try await Self.json.request(using: configuration)
        }

        #expect(error?.reason == .decodingFailed)
        let logged = lines.value
        try #require(logged.count == 2, "\(logged)")
        #expect(logged[0].hasPrefix("→ GET http"))
        #expect(logged[1].hasPrefix("✗ 200 GET http"), "\(logged[1])")
        #expect(logged[1].contains("/json ("))
        #expect(logged[1].contains("could not be decoded"), "\(logged[1])")
        #expect(logged[1].contains("'owner' at slideshow"), "\(logged[1])")
        #expect(!logged[1].contains("\n"))
    }

    @Test("A body that decodes is logged as its response, once the call ended", .httpbin)
    func decodedBodyIsTheResponse() async throws {
        let (configuration, lines) = Self.logging(try HTTPBin.configuration())

        let title: Title = try await Self.json.request(using: configuration)

        #expect(!title.slideshow.title.isEmpty)
        #expect(lines.value.count == 2)
        #expect(lines.value.last?.hasPrefix("← 200 GET http") == true, "\(lines.value)")
    }

    @Test(
        "Each form that decodes logs the decoding failure: request(with:), DecodedResponse, send()",
        arguments: 0..<3)
    func everyDecodingForm(form: Int) async throws {
        let stub = StubExecutor().stubEverything(with: .json(#"{"slideshow": {}}"#))
        let (configuration, lines) = Self.logging(testConfiguration.with { $0.executor = stub })

        await #expect(throws: APIError.self) {
            switch form {
            case 0: let _: Slideshow = try await Self.json.request(using: configuration)
            case 1: let _: DecodedResponse<Slideshow> = try await Self.json.request(using: configuration)
            default:
                let request = try Self.json.makeRequest(using: configuration)
                let _: Slideshow = try await request.send(using: configuration)
            }
        }

        #expect(lines.value.count == 2)
        #expect(lines.value.last?.hasPrefix("✗ 200 GET") == true, "\(lines.value)")
    }

    @Test("Under a retry, each attempt's line comes before the next attempt; the last says the body did not decode")
    func retriedAttempts() async throws {
        let answers = LockedBox(0)
        let stub = StubExecutor().stub(where: { _ in true }) { _ in
            let answer = answers.withLock { count in
                count += 1
                return count
            }
            return answer == 1 ? .status(503) : .json(#"{"slideshow": {}}"#)
        }
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [.retry(RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1)))]
        let (logged, lines) = Self.logging(configuration)

        await #expect(throws: APIError.self) {
            let _: Slideshow = try await Self.json.request(using: logged)
        }

        let text = lines.value
        try #require(text.count == 4, "\(text)")
        #expect(text[0].hasPrefix("→ GET"))
        #expect(text[1].hasPrefix("← 503 GET"))
        #expect(text[2].hasPrefix("→ GET"))
        #expect(text[3].hasPrefix("✗ 200 GET"))
    }

    @Test("A status the call does not accept is still logged as the response it was")
    func unacceptableStatusIsTheResponse() async throws {
        let stub = StubExecutor().stubEverything(with: .status(404))
        let (configuration, lines) = Self.logging(testConfiguration.with { $0.executor = stub })

        await #expect(throws: APIError.self) {
            let _: Slideshow = try await Self.json.request(using: configuration)
        }

        #expect(lines.value.count == 2)
        #expect(lines.value.last?.hasPrefix("← 404 GET") == true, "\(lines.value)")
    }
}
