import Courier
import CourierTesting
import Foundation
import Testing

@testable import CourierOpenAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every operation of the committed Zoo book (ZooBook/, generated from features-3.1.yaml) called against a real
/// server that serves the description and checks each request against it: scripts/servers/openapiserver.py,
/// started by scripts/test-openapi (COURIER_OPENAPI_URL; without it the suite is skipped, and fails under CI).
/// The server answers 400 to a request that breaks the description, so a call that returns means the request was
/// accepted; the strict contract plugin checks the server's answers the other way round, and the typed calls
/// decode them.
@MainActor
@Suite(.testEnvironment("COURIER_OPENAPI_URL", setBy: "scripts/test-openapi"))
struct MockServerTests {
    let base = ProcessInfo.processInfo.environment["COURIER_OPENAPI_URL"] ?? ""

    @available(*, deprecated, message: "calls the deprecated deleteAnimal on purpose")
    @Test func everyOperationOfTheBookIsAcceptedByTheServer() async throws {
        let url = try #require(URL(string: base + "/openapi.json"))
        let (data, _) = try await URLSession.shared.data(from: url)
        let served = try OpenAPIDescription(data: data)
        #expect(served.title == "Feature Zoo")

        let contract = ContractPlugin(served, mode: .strict)
        var configuration = APIConfiguration.featureZoo(
            baseURL: base + "/v2", bearerToken: "token", basic: (username: "u", password: "p"), keyInQuery: "key")
        configuration.plugins.append(contract)
        let animalID = UUID()
        let animal = Animal(id: animalID, kind: .seaLion, displayName: "Sam", born: Date(timeIntervalSince1970: 0))
        var called: [String] = []
        try await APIConfiguration.withCurrent(configuration) { () async throws(APIError) in
            let animals = try await AnimalsAPI.listAnimals(
                limit: 2, kinds: ["cat", "dog"], xRequestID: "r1", session: "s1")
            #expect(animals.first?.kind == .cat)
            called.append("list-animals")
            _ = try await AnimalsAPI.createAnimal(dryRun: true, body: CreateAnimalRequest(name: "Rex", kind: .dog))
            called.append("createAnimal")
            #expect(try await AnimalsAPI.getAnimal(animalId: animalID).displayName == "text")
            called.append("getAnimal")
            try await AnimalsAPI.deleteAnimal(animalId: animalID)
            called.append("deleteAnimal")
            #expect(try await AnimalsAPI.replaceAnimal(animalId: animalID, a: "1", d: "4", body: animal).id == 1)
            called.append("replace animal")
            #expect(try await MediaAPI.uploadPhoto(animalId: "a 1", body: Data([0x89, 0x50, 0x4e, 0x47])) == "ok")
            called.append("uploadPhoto")
            #expect(try await FeatureZooAPI.listPets(species: "cat") == [.cat(Cat(petType: "kitty", lives: 1))])
            called.append("listPets")
            #expect(try await FeatureZooAPI.search(body: SearchRequest(q: "lions", page: 2)) == .string("text"))
            called.append("search")
            try await FeatureZooAPI.getHealth()
            called.append("GET /health")
        }
        #expect(called.sorted() == served.operations.map(\.operationId).sorted())
        #expect(contract.violations == [])
    }

    @Test func aRequestThatBreaksTheDescriptionIsRejectedByTheServer() async throws {
        // The server is not a pushover: a hand-written endpoint that skips the required query item gets a 400.
        let broken = GET<Void>("/v2/pets")
        let configuration = APIConfiguration(baseURL: URL(string: base))
        do {
            try await broken.request(using: configuration)
            Issue.record("the server must refuse the request")
        } catch {
            #expect(error.statusCode == 400)
            #expect(error.bodyExcerpt?.contains("query species: required but missing") == true)
        }
    }
}
