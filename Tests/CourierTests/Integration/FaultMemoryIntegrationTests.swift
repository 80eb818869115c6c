import Courier
import Foundation
import Testing

/// Memory bounds of the size limits: each test runs the `CourierProbe` executable as a child process (one call
/// with the default `URLSessionExecutor`) and reads the child's peak resident memory, so the test process's own
/// allocations do not blur the figure. Serialized, so two probes do not compete for the two cores.
@Suite("Integration: memory bounds", .faultServer, .testTools, .serialized)
struct FaultMemoryIntegrationTests {
    /// The most a probe may hold at its peak after a small call (it starts at about 40 MB).
    static let baselineBound = 100 * 1_048_576
    /// ThreadSanitizer's shadow memory and allocator quarantine multiply every figure (measured: a probe starts
    /// near 63 MB instead of 36, and reading 200 MiB whole peaks at 780 MB instead of 255), so under it the bounds
    /// are tripled: they still catch a body read whole, not a limit checked a little late.
    static let threadSanitizerFactor = 3

    static func bound(_ bound: Int, for report: Probe.Report) -> Int {
        report.sanitizer == "thread" ? bound * threadSanitizerFactor : bound
    }

    @Test("The probe works: a small call succeeds and reports its peak memory")
    func probeBaseline() async throws {
        let base = try FaultServer.Origin.main.baseText()

        let report = try await Probe.run("\(base)/big?bytes=1000")

        #expect(report.outcome == "ok", "\(report)")
        #expect(report.bytes == 1000)
        #expect(report.status == 200)
        let peak = try #require(report.peakRSSBytes, "no peak memory figure: \(report)")
        #expect(peak > 0)
        #expect(peak < Self.bound(Self.baselineBound, for: report), "\(report)")
    }

    enum Bomb: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case gzipBomb = "/gzip-bomb?mb=1024"
        case big = "/big?mb=200"
        case bigChunked = "/big-chunked?mb=200"
        case bigDeclared = "/big-declared?mb=200"

        /// The gzip bomb meets the default limit (100 MiB); the plain bodies a 1 MB one.
        var maxResponseBytes: Int? { self == .gzipBomb ? nil : 1_000_000 }

        /// The most the probe may hold at its peak: 300 MB for the gzip bomb (1 GiB decoded), 150 MB for a
        /// 200 MiB body under a 1 MB limit (read whole, it peaks near 270 MB).
        var peakBound: Int { (self == .gzipBomb ? 300 : 150) * 1_048_576 }

        var testDescription: String {
            "\(rawValue), limit \(maxResponseBytes.map { "\($0) bytes" } ?? "default (100 MiB)")"
        }
    }

    @Test(
        "An oversized body fails with .responseTooLarge within seconds, and the process never holds it",
        arguments: Bomb.allCases)
    func oversizedBodyStaysSmall(_ bomb: Bomb) async throws {
        // GIVEN a body far over the limit (a gzip bomb: 1 MB on the wire, 1 GiB decoded)
        let base = try FaultServer.Origin.main.baseText()

        // WHEN a fresh process calls it with the default executor
        let report = try await Probe.run(
            "\(base)\(bomb.rawValue)", maxResponseBytes: bomb.maxResponseBytes, timeout: .seconds(60))

        // THEN the call failed as too large, soon, and the process's peak memory stayed small
        #expect(report.outcome == "error", "\(report)")
        #expect(report.reason == String(describing: APIError.Reason.transport(.responseTooLarge)), "\(report)")
        #expect(report.seconds < 5, "\(report)")
        let peak = try #require(report.peakRSSBytes, "no peak memory figure: \(report)")
        #expect(peak < Self.bound(bomb.peakBound, for: report), "\(report)")
    }
}
