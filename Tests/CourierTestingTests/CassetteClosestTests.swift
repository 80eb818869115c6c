import Courier
import Foundation
import Testing

@testable import CourierTesting

@MainActor
enum Orders {
    @POST("/orders")
    static var create: APIParameterBuilder<[String: String]>? = .init { $0 }

    @GET("/orders")
    static var list: APIParameterBuilder<(status: String, ts: Int?)>? = .init { ["status": $0.status, "ts": $0.ts] }

    @GET("/orders/{id}")
    static var order: APIParameterBuilder<String>? = .init { ["id": $0] }

    @DELETE("/orders/{id}")
    static var cancel: APIParameterBuilder<String>? = .init { ["id": $0] }
}

/// The closest interaction a cassette names for a request it cannot answer: of the interactions that got as far
/// as any other, the one where the least differs at that stage (members of a body, items of a query), then the
/// first recorded.
@Suite struct CassetteClosestTests {
    let base = APIConfiguration(baseURL: URL(string: "https://orders.example"))
    let ok = StubExecutor().stubEverything(with: .status(200))

    /// Records `calls` into a new cassette, then replays `request` against it and returns the problem it names.
    func problem(
        recording calls: @escaping () async throws -> Void, replaying request: @escaping () async throws -> Void
    ) async throws -> Cassette.Problem {
        let folder = CassetteFolder()
        defer { folder.remove() }
        try await Cassette.local(folder.file(), recordingWith: ok).activate(in: base) { try await calls() }
        let replay = Cassette.local(folder.file(), mode: .none, recordingWith: unreachable)
        let error = await #expect(throws: APIError.self) { try await replay.activate(in: base) { try await request() } }
        return try #require(error?.underlyingError as? Cassette.Problem)
    }

    @Test func aBodyDifferingInOneMemberBeatsAnEarlierOneDifferingInSeveral() async throws {
        // GIVEN a POST whose body differs from the request's in every member, then one that differs in one
        let problem = try await problem(
            recording: {
                try await Orders.$create.request(with: ["item": "pen", "size": "L", "colour": "red"])
                try await Orders.$create.request(with: ["item": "ink", "size": "S", "colour": "blue"])
            },
            // WHEN a POST differing from the second in its colour only is replayed
            replaying: { try await Orders.$create.request(with: ["item": "ink", "size": "S", "colour": "black"]) })

        // THEN the second is the closest
        #expect(problem.difference == #"body `colour`: "black" vs "blue""#)
        #expect(problem.closestInteraction == "POST https://orders.example/orders")
    }

    @Test func aQueryValueThatDiffersBeatsOneThatIsMissing() async throws {
        // GIVEN a GET without `ts`, then one with another `ts`
        let problem = try await problem(
            recording: {
                try await Orders.$list.request(with: (status: "open", ts: nil))
                try await Orders.$list.request(with: (status: "open", ts: 1))
            },
            // WHEN the same GET with a `ts` of its own is replayed
            replaying: { try await Orders.$list.request(with: (status: "open", ts: 2)) })

        // THEN the one with `ts` is the closest
        #expect(problem.closestInteraction == "GET https://orders.example/orders?status=open&ts=1")
        #expect(problem.difference == "query `ts`: 2 vs 1")
    }

    @Test func anUnrecordedMethodNamesTheSamePathNotTheFirstEntry() async throws {
        // GIVEN a POST to another path, then a GET of the order
        let problem = try await problem(
            recording: {
                try await Orders.$create.request(with: ["item": "pen"])
                try await Orders.$order.request(with: "7")
            },
            // WHEN a DELETE of the same order is replayed
            replaying: { try await Orders.$cancel.request(with: "7") })

        // THEN the GET of the same path is the closest
        #expect(problem.closestInteraction == "GET https://orders.example/orders/7")
        #expect(problem.difference == "method: DELETE vs GET")
    }

    @Test func onATieTheFirstRecordedIsTheClosest() async throws {
        let problem = try await problem(
            recording: {
                try await Orders.$list.request(with: (status: "open", ts: 1))
                try await Orders.$list.request(with: (status: "open", ts: 3))
            },
            replaying: { try await Orders.$list.request(with: (status: "open", ts: 2)) })

        #expect(problem.closestInteraction == "GET https://orders.example/orders?status=open&ts=1")
        #expect(problem.difference == "query `ts`: 2 vs 1")
    }
}
