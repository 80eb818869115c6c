import Courier
import Foundation
import Testing

@testable import CourierTesting

@MainActor
enum Directory {
    @GET("/people")
    static var search: APIParameterBuilder<(name: String, ts: Int)>? = .init { ["name": $0.name, "ts": $0.ts] }

    @GET("/people", headerBuilder: { ["Accept-Language": $0] })
    static var localized: APIParameterBuilder<String>?

    @GET("/contacts")
    static var contact: APIParameterBuilder<String>? = .init { ["email": $0] }
}

@Suite struct CassetteMatchingTests {
    let base = APIConfiguration(baseURL: URL(string: "https://people.example"))
    let echo = StubExecutor().stub(where: { _ in true }) { request in
        StubResponse(statusCode: 200, body: Data(request.url.absoluteString.utf8))
    }

    /// Records what `calls` sends into a new cassette in `folder`, then runs `replays` against it in `mode` none
    /// with `matching`.
    func recordThenReplay<Value>(
        in folder: CassetteFolder, matching: Cassette.Matching = Cassette.Matching(),
        redact: (@Sendable (inout Cassette.Interaction) -> Void)? = nil,
        recording calls: () async throws -> Void, replaying replays: () async throws -> Value
    ) async throws -> Value {
        try await Cassette.local(folder.file(), recordingWith: echo, redact: redact).activate(in: base) {
            try await calls()
        }
        let replay = Cassette.local(
            folder.file(), mode: .none, matching: matching, recordingWith: unreachable, redact: redact)
        return try await replay.activate(in: base) { try await replays() }
    }

    @Test func ignoredQueryItemsDoNotCount() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let text: String = try await recordThenReplay(
            in: folder, matching: .init(ignoringQueryItems: ["ts"]),
            recording: { let _: String = try await Directory.$search.request(with: (name: "ada", ts: 1)) },
            replaying: { try await Directory.$search.request(with: (name: "ada", ts: 2)) })

        #expect(text == "https://people.example/people?name=ada&ts=1")
    }

    @Test func namedHeadersMustMatch() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let error = await #expect(throws: APIError.self) {
            try await recordThenReplay(
                in: folder, matching: .init(headers: ["Accept-Language"]),
                recording: { let _: String = try await Directory.$localized.request(with: "en") },
                replaying: { let _: String = try await Directory.$localized.request(with: "fr") })
        }

        #expect((error?.underlyingError as? Cassette.Problem)?.difference == "header `Accept-Language`: fr vs en")
    }

    @Test func headersAreNotComparedByDefault() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let text: String = try await recordThenReplay(
            in: folder, recording: { let _: String = try await Directory.$localized.request(with: "en") },
            replaying: { try await Directory.$localized.request(with: "fr") })

        #expect(text == "https://people.example/people")
    }

    @Test func aPredicateCanRefuse() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let matching = Cassette.Matching(where: { request, recorded in
            request.headers[.accept] == nil && recorded.statusCode == 200
        })
        let error = await #expect(throws: APIError.self) {
            try await recordThenReplay(
                in: folder, matching: matching,
                recording: { let _: String = try await Directory.$localized.request(with: "en") },
                replaying: {
                    let _: String = try await Directory.$localized.with(headers: ["Accept": "text/plain"])
                        .request(with: "en")
                })
        }

        #expect((error?.underlyingError as? Cassette.Problem)?.difference == "the matching predicate refused it")
    }

    @Test func theRedactHookMasksMoreAndReplayMatchesThroughIt() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let hideEmail: @Sendable (inout Cassette.Interaction) -> Void = { interaction in
            interaction.url = interaction.url.replacing(/email=[^&]*/, with: "email=hidden")
            interaction.responseBody = Data(
                String(decoding: interaction.responseBody, as: UTF8.self)
                    .replacing(/email=[^&]*/, with: "email=hidden").utf8)
        }
        let text: String = try await recordThenReplay(
            in: folder, redact: hideEmail,
            recording: { let _: String = try await Directory.$contact.request(with: "ada@example.com") },
            replaying: { try await Directory.$contact.request(with: "bob@example.com") })

        let file = try String(contentsOf: folder.file(), encoding: .utf8)
        #expect(!file.contains("ada"))
        #expect(text == "https://people.example/contacts?email=hidden")
    }

    @Test func jsonBodiesCompareAsValues() {
        let recorded = Data(#"{"b": [1, 2], "a": {"x": "1", "y": null}}"#.utf8)
        let same = Data(#"{"a":{"y":null,"x":"1"},"b":[1,2]}"#.utf8)
        let other = Data(#"{"a":{"y":null,"x":"2"},"b":[1,2]}"#.utf8)

        #expect(BodyComparison.difference(same, recorded) == nil)
        #expect(BodyComparison.difference(other, recorded) == #"body `a.x`: "2" vs "1""#)
        #expect(BodyComparison.difference(Data("x=1".utf8), Data("x=2".utf8)) == "body: x=1 vs x=2")
    }

    @Test func underCIEveryModeReplaysOnlyUnlessRecordingIsAskedFor() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let guarded = Cassette(
            folder.file(), mode: .all, matching: .init(), recordingWith: echo, recordsInCI: false, redact: nil,
            environment: ["CI": "true"])
        let allowed = Cassette(
            folder.file(), mode: .all, matching: .init(), recordingWith: echo, recordsInCI: true, redact: nil,
            environment: ["CI": "1"])

        let error = await #expect(throws: APIError.self) {
            try await guarded.activate(in: self.base) {
                let _: String = try await Directory.$contact.request(with: "a")
            }
        }
        let text: String = try await allowed.activate(in: base) { try await Directory.$contact.request(with: "a") }

        #expect(guarded.mode == .none)
        #expect(allowed.mode == .all)
        let message = String(describing: error?.underlyingError)
        #expect(message.contains("recording is off because CI is set"))
        #expect(text == "https://people.example/contacts?email=a")
    }

    @Test func allRecordsAgainReplacingTheFile() async throws {
        let folder = CassetteFolder()
        defer { folder.remove() }
        let version = LockedBox("v1")
        let stub = StubExecutor().stub(where: { _ in true }) { request in
            StubResponse(statusCode: 200, body: Data(version.value.utf8))
        }
        try await Cassette.local(folder.file(), recordingWith: stub).activate(in: base) {
            let _: String = try await Directory.$contact.request(with: "a")
            let _: String = try await Directory.$contact.request(with: "b")
        }
        version.value = "v2"

        let rerecorded: String = try await Cassette.local(folder.file(), mode: .all, recordingWith: stub).activate(
            in: base
        ) { try await Directory.$contact.request(with: "a") }
        let replayed: String = try await Cassette.local(folder.file(), recordingWith: unreachable).activate(in: base) {
            try await Directory.$contact.request(with: "a")
        }

        let file = try String(contentsOf: folder.file(), encoding: .utf8)
        #expect(rerecorded == "v2")
        #expect(replayed == "v2")
        #expect(file.components(separatedBy: "\"_endpoint\"").count - 1 == 1)
    }
}
