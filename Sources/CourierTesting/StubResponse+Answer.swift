import Courier
import Foundation

extension StubResponse {
    /// Waits for the delay, then throws the error or answers `request` the way it asks for its body.
    func answer(_ request: APIRequest) async throws -> APIResponse {
        if let delay { try await Task.sleep(for: delay) }
        if let error { throw error }
        if let server = webSocketServer {
            guard request.responseDelivery.isWebSocket else {
                return APIResponse(statusCode: 426, headers: ["Upgrade": "websocket"], request: request)
            }
            let connection = WebSocketConnection(
                request: request, transport: server.connect(request), subprotocol: headers["Sec-WebSocket-Protocol"])
            return APIResponse(statusCode: statusCode, headers: headers, body: .webSocket(connection), request: request)
        }
        let delivers = (200..<300).contains(statusCode)
        let body: ResponseBody
        switch request.responseDelivery {
        case let delivery where delivers && delivery.isStream:
            body = .stream(ResponseStream(StubChunks(response: self, progress: request.progress), for: request))
        case let delivery where delivers && delivery.fileURL != nil:
            body = try await download(to: delivery, for: request)
            request.progress?.finish()
        default:
            var data = Data()
            for try await chunk in StubChunks(response: self, progress: request.progress) { data.append(chunk) }
            request.progress?.finish()
            body = .data(data)
        }
        return APIResponse(statusCode: statusCode, headers: headers, body: body, request: request)
    }

    /// Writes the body to the download's file, appending for a `206` that continues it.
    private func download(to delivery: ResponseDelivery, for request: APIRequest) async throws -> ResponseBody {
        guard let url = delivery.fileURL else { return .empty }
        delivery.willWrite?(APIResponse(statusCode: statusCode, headers: headers, request: request))
        let start: UInt64 = statusCode == 206 ? UInt64(delivery.resumeOffset) : 0
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.truncate(atOffset: start)
        try handle.seekToEnd()
        for try await chunk in StubChunks(response: self, progress: request.progress, offset: Int64(start)) {
            try handle.write(contentsOf: chunk)
        }
        return .file(url)
    }
}

/// The chunks of a stub's body, each after the stub's interval, with progress reported as they go.
struct StubChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let response: StubResponse
    let progress: TransferProgress?
    var offset: Int64 = 0

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: self)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let source: StubChunks
        var index = 0
        var file: FileHandle?
        var received: Int64 = 0
        var sent = 0
        var ended = false

        init(source: StubChunks) {
            self.source = source
            self.received = source.offset
        }

        mutating func next() async throws -> Data? {
            guard !ended else { return nil }
            let response = source.response
            let chunk: Data?
            if let url = response.bodyFile {
                if file == nil { file = try FileHandle(forReadingFrom: url) }
                chunk = try file?.read(upToCount: 64 * 1024)
            } else if let chunks = response.chunks {
                while index < chunks.count, chunks[index].isEmpty { index += 1 }
                chunk = index < chunks.count ? chunks[index] : nil
                index += 1
            } else {
                chunk = index == 0 && !response.body.isEmpty ? response.body : nil
                index += 1
            }
            guard let chunk, !chunk.isEmpty else {
                ended = true
                try? file?.close()
                source.progress?.finish()
                return nil
            }
            if response.chunkInterval > .zero, sent > 0 { try await Task.sleep(for: response.chunkInterval) }
            sent += 1
            received += Int64(chunk.count)
            source.progress?.reportReceived(received, expected: nil)
            return chunk
        }
    }
}
