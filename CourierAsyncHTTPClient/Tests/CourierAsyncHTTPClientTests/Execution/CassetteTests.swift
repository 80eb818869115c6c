import Courier
import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import Testing

/// One cassette format for both executors: what `AsyncHTTPClientExecutor` records replays where
/// `URLSessionExecutor` would have sent it, and the other way round (a gzip response is stored decoded by both).
@Suite("Cassettes with AsyncHTTPClientExecutor and URLSessionExecutor", .servers)
struct CassetteTests {
    static let anything = GET<Int>("/anything") { ["page": $0] }
    static let gzip = GET<Void>("/gzip")

    struct Echo: Decodable, Equatable {
        var args: [String: String]
        var method: String
    }

    struct Gzipped: Decodable, Equatable {
        var gzipped: Bool
        var method: String
    }

    static func calls() async throws -> (echo: Echo, gzip: Gzipped) {
        (try await anything.request(with: 2), try await gzip.request())
    }

    @Test("Recorded with one executor, replayed offline with the other", arguments: [true, false])
    func recordedWithOneReplayedWithTheOther(recordsWithAsyncHTTPClient: Bool) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cassette-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        let ahc = AsyncHTTPClientExecutor()
        let urlSession = URLSessionExecutor()
        let (recorder, replayer): (any APIExecutor, any APIExecutor) =
            recordsWithAsyncHTTPClient ? (ahc, urlSession) : (urlSession, ahc)

        let live = try await Cassette(file, recordingWith: recorder, recordsInCI: true).activate(
            in: APIConfiguration(baseURL: try Servers.required().httpbin)
        ) { try await Self.calls() }
        let replayed = try await Cassette(file, mode: .none, recordingWith: replayer).activate(
            in: APIConfiguration(baseURL: URL(string: "http://offline.invalid"))
        ) { try await Self.calls() }

        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(replayed.echo == live.echo)
        #expect(replayed.gzip == Gzipped(gzipped: true, method: "GET"))
        #expect(live.gzip == replayed.gzip)
        #expect(!text.lowercased().contains("content-encoding"))
        #expect(text.contains("gzipped"))
    }
}
