import Courier
import CourierTesting
import Foundation
import Testing

/// `StubUpstream`: its phases in order, the last one repeated, `play(_:)` replacing the script, and its counts.
@Suite("StubUpstream")
@MainActor
struct StubUpstreamTests {
    /// The statuses `upstream` answers `calls` requests with, one after the other.
    @MainActor
    static func statuses(_ upstream: StubUpstream, calls: Int) async throws -> [Int] {
        let configuration = blank.with { $0.baseURL = URL(string: "http://upstream.test") }
        let request = try GitHub.$zen.makeRequest(using: configuration)
        var statuses: [Int] = []
        for _ in 0..<calls { statuses.append(try await upstream.respond(to: request).statusCode) }
        return statuses
    }

    @Test("Phases answer their number of requests in order; the last answers every request after them")
    func phases() async throws {
        let upstream = StubUpstream(
            .answer(.status(503), times: 2), .answer(.status(429), times: 1), .answer(.status(200)))
        #expect(try await Self.statuses(upstream, calls: 5) == [503, 503, 429, 200, 200])
        #expect(upstream.requestCount == 5)
        #expect(upstream.peakInFlight == 1)
    }

    @Test("A last phase with a count still answers after it; no phases answer 200; play replaces the script")
    func lastPhaseAndPlay() async throws {
        let upstream = StubUpstream(.answer(.status(500), times: 1))
        #expect(try await Self.statuses(upstream, calls: 2) == [500, 500])
        upstream.play(.answer(.status(201), times: 1), .answer(.status(503)))
        #expect(try await Self.statuses(upstream, calls: 3) == [201, 503, 503])
        #expect(try await Self.statuses(StubUpstream(), calls: 1) == [200])
        #expect(upstream.requestCount == 5)
    }

    @Test("A request counts as in flight during its phase's delay, and no longer once it was cancelled")
    func inFlight() async throws {
        let upstream = StubUpstream(.answer(.status(200).delayed(by: .seconds(60))))
        let call = Task { try await Self.statuses(upstream, calls: 1) }
        while upstream.inFlight == 0 { await Task.yield() }
        #expect(upstream.peakInFlight == 1)
        call.cancel()
        _ = await call.result
        #expect(upstream.inFlight == 0)
        #expect(upstream.requestCount == 1)
    }
}
