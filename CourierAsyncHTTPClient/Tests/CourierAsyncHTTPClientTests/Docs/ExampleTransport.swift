import AsyncHTTPClient
import Courier
import CourierTesting
import Foundation
import NIOCore
import NIOPosix
import Testing

// The example transport of the WritingAnExecutor article: a transport over AsyncHTTPClient written with Courier's
// public API only (no SPI import in this file), and the conformance suite run against it.

/// Sends one hop with AsyncHTTPClient; Courier's policy does the rest.
struct HTTPClientTransport: HTTPTransport {
    /// A client that follows no redirect (`redirectConfiguration = .disallow`).
    let client: HTTPClient

    func send(_ hop: APIRequest) async throws -> APIResponse {
        var request = HTTPClientRequest(url: hop.url.absoluteString)
        request.method = .init(rawValue: hop.method.rawValue)
        for field in hop.headers {
            request.headers.add(name: field.name.rawValue, value: field.value)
        }
        if let data = hop.body.data {
            if !data.isEmpty { request.body = .bytes(ByteBuffer(bytes: data)) }
        } else if !hop.body.isEmpty {
            let chunks = hop.body.chunks().map { @Sendable in ByteBuffer(bytes: $0) }
            request.body = .stream(chunks, length: hop.body.count.map { .known(Int64($0)) } ?? .unknown)
        }
        let timeout = hop.timeout.components
        let deadline = NIODeadline.now() + .seconds(timeout.seconds) + .nanoseconds(timeout.attoseconds / 1_000_000_000)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline)
        } catch let error as IOError where error.errnoCode == ECONNREFUSED {
            throw APIError(.transport(.cannotConnect), endpoint: hop.endpoint, request: hop, underlyingError: error)
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw URLError(.timedOut)
        } catch {
            throw APIError(.transport(.other), endpoint: hop.endpoint, request: hop, underlyingError: error)
        }
        var headers = Courier.HTTPHeaders()
        for (name, value) in response.headers {
            headers.add(HTTPHeaderName(rawValue: name), value)
        }
        let chunks = response.body.map { @Sendable in Data($0.readableBytesView) }
        return APIResponse(
            statusCode: Int(response.status.code), headers: headers, body: .stream(ResponseStream(chunks, for: hop)),
            url: hop.url, request: hop)
    }
}

@Suite("The article's example transport: executor conformance", .servers)
struct ExampleTransportTests {
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .enabled(limit: .none)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }()

    @Test("HTTPClientTransport passes", arguments: ExecutorConformance.Check.allCases)
    func exampleTransport(_ check: ExecutorConformance.Check) async throws {
        let suite = ExecutorConformance(
            executor: HTTPClientTransport(client: Self.client), servers: try Servers.required())

        let failures = await suite.run(check)

        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
    }
}
