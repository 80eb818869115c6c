import Foundation
import Testing

@_spi(CourierInternals) @testable import Courier

/// Roots and pins with a rotation date (`rotating(by:)`): past it, calls go on as configured, and the timeline and
/// the logging plugin warn once per root or pin and trust; before it, and for other hosts, nothing.
@Suite("TLS rotation dates")
struct TLSRotationTests {
    /// A transport that answers `200` at once and holds `trust`, as an executor that verifies with it does.
    struct TrustedTransport: HTTPTransport, TLSTrustHolding {
        let heldTrust: TLSTrust

        func send(_ hop: APIRequest) async throws -> APIResponse {
            APIResponse(statusCode: 200, body: .data(Data("ok".utf8)), request: hop)
        }
    }

    /// The `trust` events of the calls it watches.
    final class TrustEvents: CallObserver {
        let details = LockedBox<[String]>([])

        func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
            guard event.kind == .trust, let detail = event.detail else { return }
            details.withLock { $0.append(detail) }
        }
    }

    static let pastKey = "sha256/" + Data(repeating: 1, count: 32).base64EncodedString()
    static let futureKey = "sha256/" + Data(repeating: 2, count: 32).base64EncodedString()
    static let yesterday = Date(timeIntervalSinceNow: -86_400)
    static let nextYear = Date(timeIntervalSinceNow: 365 * 86_400)

    static func trust() throws -> TLSTrust {
        let past = try #require(TLSPin.publicKeyHash(pastKey)).rotating(by: yesterday)
        let future = try #require(TLSPin.publicKeyHash(futureKey)).rotating(by: nextYear)
        return TLSTrust([TLSTrust.Host("payments.example", pins: [past, future])])
    }

    @Test("A pin past its date: one trust event and one logged warning, on the first call only; the calls succeed")
    func warnsOnce() async throws {
        let events = TrustEvents()
        let lines = LockedBox<[String]>([])
        let configuration = APIConfiguration(
            baseURL: URL(string: "https://payments.example"), executor: TrustedTransport(heldTrust: try Self.trust()),
            plugins: [.logging { line in lines.withLock { $0.append(line) } }], observers: [events])

        for _ in 0..<3 {
            let text: String = try await GET<Void>("/balance").request(using: configuration)
            #expect(text == "ok")
        }

        let details = events.details.withLock { $0 }
        #expect(details.count == 1)
        #expect(details.first?.contains("the pin public key \(Self.pastKey) of payments.example") == true)
        #expect(details.first?.contains("is past its rotation date") == true)
        #expect(details.contains { $0.contains(Self.futureKey) } == false)
        let warnings = lines.withLock { $0 }.filter { $0.contains("⚠") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains(Self.pastKey) == true)
    }

    @Test("Another host, or a trust with no dates: no warning, and no ledger to consult")
    func otherHostsAndUndated() throws {
        let trust = try Self.trust()
        #expect(trust.rotationWarnings(for: try #require(URL(string: "https://other.example/a"))).isEmpty)
        let undated = TLSTrust([
            TLSTrust.Host("payments.example", pins: [try #require(TLSPin.publicKeyHash(Self.pastKey))])
        ])
        #expect(undated.rotations == nil)
        #expect(undated.rotationWarnings(for: try #require(URL(string: "https://payments.example/a"))).isEmpty)
    }

    @Test("A root past its date warns too, by its fingerprint; a pin's certificate lends the pin its date")
    func rootsAndCertificates() throws {
        let root = TLSCertificate(der: Data([0x30, 0x03, 0x02, 0x01, 0x01])).rotating(by: Self.yesterday)
        let pinned = TLSCertificate(der: Data([0x30, 0x03, 0x02, 0x01, 0x02])).rotating(by: Self.yesterday)
        let trust = TLSTrust([TLSTrust.Host("api.example", roots: [root], pins: [.certificate(pinned)])])
        let url = try #require(URL(string: "https://api.example/a"))

        let warnings = trust.rotationWarnings(for: url)

        #expect(warnings.count == 2)
        #expect(warnings.first?.hasPrefix("the root certificate \(root.fingerprint) of api.example") == true)
        #expect(warnings.last?.hasPrefix("the pin certificate \(pinned.fingerprint) of api.example") == true)
        // Copies share what was warned about: an executor's copy of the trust warns no more.
        let copy = trust
        #expect(copy.rotationWarnings(for: url).isEmpty)
        #expect(TLSPin.certificate(pinned).rotationDate == Self.yesterday)
    }
}
