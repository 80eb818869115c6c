import Courier
import CourierTesting
import Foundation
import Testing

@Suite struct LoggingTransferTests {
    static let feed = GET<Void>("/feed")

    @Test func aStreamedResponseIsLoggedWhenItsHeadArrivesAndNotRead() async throws {
        // GIVEN logging with bodies, and a stub that streams three chunks
        let lines = LockedBox<[String]>([])
        let stub = StubExecutor().stub(
            .get, "/feed", with: .chunked(["one ", "two ", "three"], every: .milliseconds(5)))
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [
            .logging(LoggingPlugin.Options(includeBodies: true)) { line in
                lines.withLock { $0.append(line) }
            }
        ]
        // WHEN the body is streamed
        var text = ""
        for try await chunk in try await Self.feed.stream(using: configuration) {
            text += String(decoding: chunk, as: UTF8.self)
        }
        // THEN the log names a streamed body without its bytes, and the reader still got every byte
        #expect(lines.value.count == 2)
        #expect(lines.value.last?.hasSuffix(" ms, streamed body)") == true)
        #expect(text == "one two three")
    }
}
