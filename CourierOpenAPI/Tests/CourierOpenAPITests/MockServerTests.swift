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
            // Models are not Equatable (less code to compile): compare what was decoded.
            let pets = try await FeatureZooAPI.listPets(species: "cat")
            if case .cat(let cat) = pets.first {
                #expect(cat.lives == 1 && pets.count == 1)
            } else {
                Issue.record("\(pets)")
            }
            called.append("listPets")
            let found = try await FeatureZooAPI.search(body: SearchRequest(q: "lions", page: 2))
            if case .string(let text) = found { #expect(text == "text") } else { Issue.record("\(found)") }
            called.append("search")
            try await FeatureZooAPI.getHealth()
            called.append("GET /health")
            // Path values in simple, label and matrix style, query objects exploded and as key,value pairs.
            try await ShelvesAPI.findShelves(
                ids: [3, 4], label: "top", range: Span(from: 1, to: 9), filter: ShelfFilter(color: .red, size: 2),
                near: Span(from: 5, to: 6))
            called.append("findShelves")
            // A JSON array beside a path value.
            try await ShelvesAPI.setShelfTags(shelfId: 7, body: ["new", "old"])
            called.append("setShelfTags")
            // Multipart: the binary members are file parts with filenames (the server checks).
            try await ShelvesAPI.addShelfDocument(
                shelfId: 7,
                body: AddShelfDocumentRequest(title: "Plan", document: Data("%PDF-1.4".utf8), preview: Data([1, 2])))
            called.append("addShelfDocument")
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

    @Test func fileNamesAndStylesAreCheckedByTheServer() async throws {
        let configuration = APIConfiguration(baseURL: URL(string: base + "/v2"))
        // A file part without a filename (a bare `Data` value) is refused, as the generated `.data(…, filename:)`
        // is accepted above.
        let upload = POST<Data>(
            "/shelves/7/documents", encoding: .multipart, parameters: { ["title": "Plan", "document": $0] })
        do {
            try await upload.request(with: Data("%PDF".utf8), using: configuration)
            Issue.record("the server must refuse a file part without a filename")
        } catch {
            #expect(error.statusCode == 400)
            #expect(error.bodyExcerpt?.contains("body document: a file part without a filename") == true)
        }
        // A matrix value without its `;range=` mark, and a label value without its dot, are refused.
        let shelves = GET<Void>("/shelves/3,4/top/1,9?color=red")
        do {
            try await shelves.request(using: configuration)
            Issue.record("the server must refuse unstyled path values")
        } catch {
            #expect(error.statusCode == 400)
            #expect(error.bodyExcerpt?.contains("path label: a label value starts with '.'") == true)
        }
    }
}
