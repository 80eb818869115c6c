import AsyncHTTPClient
import Courier
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

// The path of a call whose body is held in memory (the default delivery): each hop is one request through
// AsyncHTTPClient's delegate interface, whose deadline covers the whole hop, body included, and whose task
// can be cancelled from anywhere. No task of Courier's own, no timer of its own: per call it costs what a raw
// `HTTPClient` call costs.
extension AsyncHTTPClientCall {
    /// Sends the request and each redirect hop the policy follows; returns the final response with its body.
    func runInMemory() async throws -> APIResponse {
        defer { request.progress?.finish() }
        let deadline = NIODeadline.now() + TimeAmount(request.timeout)
        var hop = Hop(url: request.url, method: request.method, headers: request.headers, body: request.body)
        var redirects = 0
        while true {
            let (head, body) = try await send(hop, deadline: deadline)
            let statusCode = Int(head.status.code)
            let headers = Courier.HTTPHeaders(head.headers)
            guard Self.redirectCodes.contains(statusCode), request.redirectPolicy.followsRedirects,
                let location = head.headers.first(name: "Location"),
                let target = URL(string: location, relativeTo: hop.url)?.absoluteURL
            else {
                return APIResponse(
                    statusCode: statusCode, headers: headers, body: .data(body), url: hop.url, request: request)
            }
            redirects += 1
            let redirect = RedirectHop(
                statusCode: statusCode, headers: headers, from: hop.url, to: target, number: redirects)
            switch request.redirectPolicy.decision(for: redirect) {
            case .follow:
                hop = hop.following(redirect, removingCredentialsOf: request)
            case .stop:
                return APIResponse(
                    statusCode: statusCode, headers: headers, body: .data(body), url: hop.url, request: request)
            case .fail(let refusal):
                let response = APIResponse(statusCode: statusCode, headers: headers, url: hop.url, request: request)
                throw APIError(
                    .transport(.redirectRefused(refusal)), endpoint: request.endpoint, request: request,
                    response: response)
            }
        }
    }

    /// Sends one hop and returns its response head and body.
    private func send(_ hop: Hop, deadline: NIODeadline) async throws -> (HTTPResponseHead, Data) {
        let http: HTTPClient.Request
        do {
            var headers = NIOHTTP1.HTTPHeaders()
            headers.reserveCapacity(hop.headers.count)
            for field in hop.headers { headers.add(name: field.name.rawValue, value: field.value) }
            let body = hop.body.data.flatMap { $0.isEmpty ? nil : HTTPClient.Body.bytes($0) }
            http = try HTTPClient.Request(
                url: hop.url, method: NIOHTTP1.HTTPMethod(rawValue: hop.method.rawValue),
                headers: headers,
                body: body)
        } catch {
            throw failure(error)
        }
        let sent = Int64(hop.body.count ?? 0)
        let delegate = MemoryDelegate(
            limit: request.maxResponseBytes, progress: request.progress, sent: sent, hasBody: hop.method != .head,
            tooLarge: tooLarge)
        let task = client.execute(request: http, delegate: delegate, deadline: deadline)
        do {
            return try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
        } catch {
            throw failure(error)
        }
    }
}

/// Collects one hop's response in memory within the size limit, reporting progress.
///
/// AsyncHTTPClient calls it on the request's event loop, one callback at a time; the lock only makes that
/// visible to the compiler.
final class MemoryDelegate: HTTPClientResponseDelegate, Sendable {
    typealias Response = (HTTPResponseHead, Data)

    private struct State {
        var head: HTTPResponseHead?
        var body: ByteBuffer?
        var received = 0
        var expected: Int64?
        var visits = 0
    }

    private let limit: Int
    private let progress: TransferProgress?
    private let sent: Int64
    /// Whether a response can have a body (not for a `HEAD`, whose `Content-Length` describes a `GET`).
    private let hasBody: Bool
    private let tooLarge: @Sendable () -> APIError
    private let state = NIOLockedValueBox(State())

    init(
        limit: Int, progress: TransferProgress?, sent: Int64, hasBody: Bool,
        tooLarge: @escaping @Sendable () -> APIError
    ) {
        self.limit = limit
        self.progress = progress
        self.sent = sent
        self.hasBody = hasBody
        self.tooLarge = tooLarge
    }

    func didVisitURL(task: HTTPClient.Task<Response>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        state.withLockedValue { $0.visits += 1 }
    }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        // AsyncHTTPClient reports no upload progress: the body has been sent once the head arrives.
        progress?.reportSent(sent, expected: sent)
        let encoding = head.headers.first(name: "Content-Encoding")?.lowercased()
        // The declared length is that of the decoded body only without a content encoding.
        let declared =
            encoding == nil || encoding == "identity"
            ? head.headers.first(name: "Content-Length").flatMap { Int64($0) } : nil
        let visits = state.withLockedValue { state -> Int in
            state.head = head
            state.expected = declared
            return state.visits
        }
        if visits > 1 { return task.eventLoop.makeFailedFuture(ClientFollowsRedirects()) }
        if hasBody, let declared, declared > limit { return task.eventLoop.makeFailedFuture(tooLarge()) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let (received, expected) = state.withLockedValue { state -> (Int, Int64?) in
            state.received += buffer.readableBytes
            if state.received <= limit {
                if state.body == nil {
                    state.body = buffer
                } else {
                    state.body?.writeImmutableBuffer(buffer)
                }
            }
            return (state.received, state.expected)
        }
        if received > limit { return task.eventLoop.makeFailedFuture(tooLarge()) }
        progress?.reportReceived(Int64(received), expected: expected)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        let (head, body) = state.withLockedValue { ($0.head, $0.body) }
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        return (head, body.map { buffer in buffer.withUnsafeReadableBytes { Data($0) } } ?? Data())
    }
}
