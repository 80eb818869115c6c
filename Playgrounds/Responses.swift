// Responses: the result type decides how the body is read; every failure is one APIError with a reason to
// switch over.
import Courier
import Foundation

@MainActor
enum Answers {
    @GET("/json")
    static var slideshow: APIParameterBuilder<Void>? = nil

    @GET("/bytes/{count}")
    static var bytes: APIParameterBuilder<Int>? = .init { ["count": $0] }

    @GET("/base64/{value}")
    static var decodeBase64: APIParameterBuilder<String>? = .init { ["value": $0] }

    @GET("/status/{code}")
    static var status: APIParameterBuilder<Int>? = .init { ["code": $0] }

    @GET("/response-headers")
    static var responseHeaders: APIParameterBuilder<[String: String]>? = .init { $0 }

    // The server takes 2 s; this endpoint waits 0.5 s at most.
    @GET("/delay/2", timeout: .milliseconds(500))
    static var slow: APIParameterBuilder<Void>? = nil

    // Nothing listens on port 9 (discard) of this machine.
    @GET("/get", baseURL: URL(string: "http://127.0.0.1:9"))
    static var nowhere: APIParameterBuilder<Void>? = nil
}

struct Slideshow: Decodable, Sendable {
    struct Show: Decodable, Sendable {
        var title: String
        var author: String
        var slides: [Slide]
    }
    struct Slide: Decodable, Sendable {
        var title: String
    }
    var slideshow: Show
}

/// The same document, but expecting a real date where httpbin sends "date of publication".
struct DatedSlideshow: Decodable, Sendable {
    struct Show: Decodable, Sendable {
        var date: Date
    }
    var slideshow: Show
}

/// The error body httpbin sends with a 406, as a server's own error model.
struct ServerProblem: Decodable, Sendable {
    var message: String
    var accept: [String]
}

@MainActor
enum ResponsesPage {
    static func run(_ stage: Stage) async throws {
        Console.step("A Decodable result is decoded from JSON with the configuration's JSONDecoder")
        let show: Slideshow = try await Answers.$slideshow.request()
        Console.result("\"\(show.slideshow.title)\" by \(show.slideshow.author), \(show.slideshow.slides.count) slides")

        Console.step("`Data` gets the bytes as they are")
        let bytes: Data = try await Answers.$bytes.request(with: 16)
        let hex = bytes.prefix(6).map { String(format: "%02x", $0) }.joined(separator: " ")
        Console.result("\(bytes.count) bytes: \(hex) …")

        Console.step("`String` reads the body as text, in the charset its Content-Type names")
        let text: String = try await Answers.$decodeBase64.request(with: "SGVsbG8gZnJvbSBDb3VyaWVyISDwn5Os")
        Console.result("\"\(text)\"")

        Console.step("An Optional result is nil for an empty body (204, 205, HEAD) instead of a decoding error")
        let none: Slideshow? = try await Answers.$status.request(with: 204)
        Console.result(none == nil ? "nil" : "a value?")

        Console.step("The raw `APIResponse`: status, headers and body, for when you need more than the value")
        let raw = try await Answers.$responseHeaders.request(with: ["X-Courier": "delivered"])
        let header = raw.headers["X-Courier"] ?? "-"  // look-ups ignore case
        Console.result(
            "status \(raw.statusCode), X-Courier: \(header), Content-Type: \(raw.headers[.contentType] ?? "-")")

        Console.step("Failures are one type, `APIError`; switch over `error.reason` to decide what to do")
        for code in [404, 401, 418, 503] {
            do {
                try await Answers.$status.request(with: code)
            } catch {
                Console.result("\(code) → \(advice(for: error))")
            }
        }
        for (endpoint, name) in [(Answers.$slow, "0.5 s timeout"), (Answers.$nowhere, "closed port")] {
            do {
                try await endpoint.request()
            } catch {
                Console.result("\(name) → \(advice(for: error))")
            }
        }

        Console.step("`decodeBody(as:)` reads an error response into the server's own error model")
        do {
            try await Answers.$status.request(with: 406)
        } catch {
            Console.caught(error)
            if let problem = error.decodeBody(as: ServerProblem.self) {
                Console.result("ServerProblem: \"\(problem.message)\" (accepts \(problem.accept.count) types)")
            }
        }

        Console.step("A body that does not fit the model: `.decodingFailed`, with the DecodingError and an excerpt")
        do {
            let _: DatedSlideshow = try await Answers.$slideshow.request()
        } catch {
            Console.caught(error)
            Console.result("underlying: \(error.underlyingError.map { "\(type(of: $0))" } ?? "-")")
            Console.result("bodyExcerpt: \(Console.shorten(error.bodyExcerpt ?? "", to: 70))")
        }
    }

    /// What an app might do for each reason. A reason is a struct that later versions of Courier may add
    /// members to, so the switch ends with `default:`, which reads the rest through the reason's properties.
    static func advice(for error: APIError) -> String {
        let reason = error.reason
        return switch reason {
        case .unacceptableStatus(.notFound): "not found: show an empty state"
        case .unacceptableStatus(.unauthorized): "unauthorized: ask the user to sign in"
        case .unacceptableStatus(.forbidden): "forbidden: explain why"
        case .unacceptableStatus(.serverError): "server error \(error.statusCode ?? 0): try again later"
        case .transport(.timedOut): "timed out: offer to retry"
        case .transport(.offline), .transport(.cannotConnect): "cannot reach the server: show offline mode"
        case .transport(.cancelled): "cancelled: do nothing"
        case .decodingFailed: "unexpected response: report a bug"
        case .notCached: "nothing cached yet: show a placeholder"
        default:
            if let category = reason.statusCategory {
                "\(category) \(error.statusCode ?? 0): report it"
            } else if let problem = reason.transportProblem {
                "transport problem (\(problem)): retry later"
            } else if let problem = reason.requestProblem {
                "bug in the request: \(problem)"
            } else if let rejection = reason.serviceRejection {
                "the service said no (\(rejection.code))"
            } else {
                "failed: \(error)"
            }
        }
    }
}
