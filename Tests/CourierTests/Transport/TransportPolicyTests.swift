import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Courier's HTTP policy over an ``HTTPTransport`` (TransportCall), once for every transport, without a network: a
/// transport scripted by each test answers each hop and records what it was sent.
@Suite struct TransportPolicyTests {
    /// One scripted answer: a status, headers, and the body as chunks (or a transport that never answers).
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders = [:]
        var chunks: [Data] = []
        /// The body ends with this error after its chunks.
        var failure: URLError?
        /// The transport never answers (until the call is cancelled).
        var hangs = false

        static func redirect(_ status: Int, to location: String) -> Answer {
            Answer(status: status, headers: ["Location": location])
        }

        static func ok(_ text: String, headers: HTTPHeaders = [:]) -> Answer {
            Answer(status: 200, headers: headers, chunks: [Data(text.utf8)])
        }
    }

    /// A transport that answers hop `n` with `answers[n]` and records every hop it was sent.
    final class ScriptedTransport: HTTPTransport, Sendable {
        let answers: [Answer]
        private let sentHops = LockedBox<[APIRequest]>([])

        init(_ answers: [Answer]) {
            self.answers = answers
        }

        var hops: [APIRequest] { sentHops.value }

        func send(_ hop: APIRequest) async throws -> APIResponse {
            let number = sentHops.withLock { hops -> Int in
                hops.append(hop)
                return hops.count - 1
            }
            guard number < answers.count else { throw URLError(.badServerResponse) }
            let answer = answers[number]
            if answer.hangs {
                try await Task.sleep(for: .seconds(3600))
            }
            let (stream, continuation) = ResponseStream.makeStream(for: hop) {}
            for chunk in answer.chunks { continuation.yield(chunk) }
            continuation.finish(throwing: answer.failure)
            return APIResponse(
                statusCode: answer.status, headers: answer.headers, body: .stream(stream), url: hop.url, request: hop)
        }
    }

    static func request(
        _ method: HTTPMethod = .get, _ url: String = "https://api.example.com/start", headers: HTTPHeaders = [:],
        body: RequestBody = .empty, timeout: Duration = .seconds(30), maxResponseBytes: Int = 1024,
        redirectPolicy: RedirectPolicy = .follow
    ) throws -> APIRequest {
        APIRequest(
            method: method, url: try #require(URL(string: url)), headers: headers, body: body, timeout: timeout,
            redirectPolicy: redirectPolicy, maxResponseBytes: maxResponseBytes,
            sensitiveNames: ["X-Session"], endpoint: APIEndpoint(method: method, path: "/start"))
    }

    // MARK: - Redirects

    /// How a redirect changes the next hop.
    struct RedirectCase: Sendable, CustomTestStringConvertible {
        var method: HTTPMethod
        var status: Int
        /// The next hop's method, and whether it still carries the body.
        var nextMethod: HTTPMethod
        var keepsBody: Bool
        var testDescription: String { "\(method.rawValue) answered \(status)" }
    }

    @Test(
        "A redirect's next hop: 303 (and 301/302 after a POST) become a GET without the body; 307/308 send it again",
        arguments: [
            RedirectCase(method: .post, status: 303, nextMethod: .get, keepsBody: false),
            RedirectCase(method: .post, status: 302, nextMethod: .get, keepsBody: false),
            RedirectCase(method: .post, status: 301, nextMethod: .get, keepsBody: false),
            RedirectCase(method: .put, status: 302, nextMethod: .put, keepsBody: true),
            RedirectCase(method: .post, status: 307, nextMethod: .post, keepsBody: true),
            RedirectCase(method: .post, status: 308, nextMethod: .post, keepsBody: true),
        ])
    func redirectRewritesTheHop(_ redirect: RedirectCase) async throws {
        let transport = ScriptedTransport([.redirect(redirect.status, to: "/next"), .ok("done")])
        let body = RequestBody.data(Data("payload".utf8))
        let request = try Self.request(redirect.method, headers: ["Content-Type": "text/plain"], body: body)

        let response = try await transport.execute(request)

        #expect(response.statusCode == 200)
        #expect(response.url?.absoluteString == "https://api.example.com/next")
        let hops = transport.hops
        #expect(hops.count == 2)
        #expect(hops.last?.method == redirect.nextMethod)
        #expect(hops.last?.body.data == (redirect.keepsBody ? Data("payload".utf8) : nil))
        #expect((hops.last?.headers["Content-Type"] != nil) == redirect.keepsBody)
    }

    @Test("A hop to another origin leaves every credential behind; a hop on the same origin keeps them")
    func credentialsStayOnTheirOrigin() async throws {
        let transport = ScriptedTransport([
            .redirect(302, to: "/same"), .redirect(302, to: "https://other.example.com/x"), .ok("done"),
        ])
        let headers: HTTPHeaders = [
            "Authorization": "Bearer secret", "Cookie": "a=1", "X-Session": "s", "Accept": "application/json",
        ]

        _ = try await transport.execute(try Self.request(headers: headers))

        let hops = transport.hops
        #expect(hops.count == 3)
        #expect(hops[1].headers["Authorization"] == "Bearer secret")
        #expect(hops[1].headers["X-Session"] == "s")
        #expect(hops[2].headers["Authorization"] == nil)
        #expect(hops[2].headers["Cookie"] == nil)
        #expect(hops[2].headers["X-Session"] == nil)
        #expect(hops[2].headers["Accept"] == "application/json")
    }

    @Test("A 307 after a one-shot body is the response: the body is never sent twice")
    func oneShotBodyIsNotSentAgain() async throws {
        let transport = ScriptedTransport([.redirect(307, to: "/again"), .ok("never")])
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("once".utf8))
            continuation.finish()
        }
        let request = try Self.request(.post, body: .stream(chunks))

        let response = try await transport.execute(request)

        #expect(response.statusCode == 307)
        #expect(transport.hops.count == 1)
    }

    @Test("A policy that refuses a hop fails the call with the redirect; one that stops returns it")
    func refusedAndStoppedRedirects() async throws {
        let insecure = ScriptedTransport([.redirect(302, to: "http://api.example.com/plain"), .ok("never")])
        await #expect {
            _ = try await insecure.execute(try Self.request())
        } throws: { error in
            let error = error as? APIError
            return error?.reason == .transport(.redirectRefused(.insecureRedirect)) && error?.statusCode == 302
        }
        #expect(insecure.hops.count == 1)

        let stopped = ScriptedTransport([.redirect(302, to: "/next"), .ok("never")])
        let response = try await stopped.execute(try Self.request(redirectPolicy: .doNotFollow))
        #expect(response.statusCode == 302)
        #expect(stopped.hops.count == 1)
    }

    @Test("Redirects past the policy's limit fail as too many")
    func tooManyRedirects() async throws {
        let transport = ScriptedTransport(Array(repeating: .redirect(302, to: "/loop"), count: 30))

        await #expect {
            _ = try await transport.execute(try Self.request())
        } throws: { error in
            (error as? APIError)?.reason == .transport(.redirectRefused(.tooManyRedirects))
        }
        #expect(transport.hops.count == RedirectPolicy.follow.maxRedirects + 1)
    }

    // MARK: - Size and length

    /// How a body ends against the limit (1,024 bytes) and its declared length.
    struct BodyCase: Sendable, CustomTestStringConvertible {
        var name: String
        var answer: Answer
        var method: HTTPMethod = .get
        /// The reason the call fails with, or `nil` when it returns the body.
        var reason: APIError.Reason?
        var testDescription: String { name }
    }

    static let kilobyte = Data(repeating: 0x61, count: 1024)

    @Test(
        "The size limit counts decoded bytes; the declared length counts only without a content coding",
        arguments: [
            BodyCase(name: "exactly the limit", answer: Answer(status: 200, chunks: [kilobyte]), reason: nil),
            BodyCase(
                name: "one byte over, in two chunks",
                answer: Answer(status: 200, chunks: [kilobyte, Data([1])]), reason: .transport(.responseTooLarge)),
            BodyCase(
                name: "a declared length over the limit fails before any byte",
                answer: Answer(status: 200, headers: ["Content-Length": "4096"]), reason: .transport(.responseTooLarge)),
            BodyCase(
                name: "a HEAD's declared length is not its body",
                answer: Answer(status: 200, headers: ["Content-Length": "4096"]), method: .head, reason: nil),
            BodyCase(
                name: "a gzip body's Content-Length is the encoded length",
                answer: Answer(
                    status: 200, headers: ["Content-Length": "10", "Content-Encoding": "gzip"], chunks: [kilobyte]),
                reason: nil),
            BodyCase(
                name: "a body that ends before its declared length lost its connection",
                answer: Answer(status: 200, headers: ["Content-Length": "100"], chunks: [Data(count: 40)]),
                reason: .transport(.connectionLost)),
            BodyCase(
                name: "an untyped failure before the declared length lost its connection",
                answer: Answer(
                    status: 200, headers: ["Content-Length": "100"], chunks: [Data(count: 40)],
                    failure: URLError(.unknown)),
                reason: .transport(.connectionLost)),
            BodyCase(
                name: "a typed failure keeps its reason",
                answer: Answer(status: 200, chunks: [Data(count: 40)], failure: URLError(.timedOut)),
                reason: .transport(.timedOut)),
        ])
    func sizeLimitAndDeclaredLength(_ body: BodyCase) async throws {
        let transport = ScriptedTransport([body.answer])
        do {
            let response = try await transport.execute(try Self.request(body.method))
            #expect(body.reason == nil, "returned \(response.data.count) bytes")
            #expect(response.data == Data(body.answer.chunks.joined()))
        } catch let error as APIError {
            #expect(error.reason == body.reason, "\(error)")
        }
    }

    // MARK: - Downloads

    @Test("A resumed download's 206 must continue the file where it stopped")
    func resumedDownloadChecksContentRange() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("hello ".utf8).write(to: file)

        let continuing = ScriptedTransport([
            Answer(status: 206, headers: ["Content-Range": "bytes 6-10/11"], chunks: [Data("world".utf8)])
        ])
        var request = try Self.request(headers: ["Range": "bytes=6-"])
        request.responseDelivery = .file(file, resumingAt: 6)
        let response = try await continuing.execute(request)
        #expect(response.body.fileURL == file)
        #expect(try Data(contentsOf: file) == Data("hello world".utf8))

        let elsewhere = ScriptedTransport([
            Answer(status: 206, headers: ["Content-Range": "bytes 3-10/11"], chunks: [Data("lo world".utf8)])
        ])
        await #expect {
            _ = try await elsewhere.execute(request)
        } throws: { error in
            (error as? APIError)?.reason == .transport(.other)
        }
    }

    // MARK: - Deadline

    @Test("The deadline ends a hop that never answers with timedOut; each hop is given what is left of it")
    func deadlineBoundsTheWholeCall() async throws {
        let transport = ScriptedTransport([.redirect(302, to: "/slow"), Answer(status: 200, hangs: true)])

        await #expect {
            _ = try await transport.execute(try Self.request(timeout: .milliseconds(300)))
        } throws: { error in
            (error as? APIError)?.reason == .transport(.timedOut)
        }
        let hops = transport.hops
        #expect(hops.count == 2)
        #expect(hops[0].timeout <= .milliseconds(300))
        #expect(hops[1].timeout <= hops[0].timeout)
    }
}
