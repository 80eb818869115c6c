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
@Suite(.serialized, .testEnvironment("COURIER_OPENAPI_URL", setBy: "scripts/test-openapi"))
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
            // A JSON string response comes back decoded.
            let styled = try await WireAPI.sendStyles(
                ids: [3, 4, 5], point: Span(from: 1, to: 2), mark: "a b", tags: ["x", "y"], colors: ["red", "blue"],
                sizes: [1, 2], xTraceIds: ["t1", "t2"], session: "s-1", theme: "dark")
            #expect(styled == "text")
            called.append("sendStyles")
            try await WireAPI.updateWireUser(
                username: "ann", body: UpdateWireUserRequest(username: "ann", email: "a@b"))
            called.append("updateWireUser")
            // Form and multipart body members named like the path value are sent in the body too.
            try await WireAPI.updateWireForm(
                username: "ann", body: UpdateWireFormRequest(username: "ann", email: "a@b", age: 7, tags: ["x", "y"]))
            called.append("updateWireForm")
            try await WireAPI.uploadWireAvatar(
                username: "ann", body: UploadWireAvatarRequest(username: "ann", avatar: Data("png".utf8)))
            called.append("uploadWireAvatar")
            #expect(try await WireAPI.getWireBucket(id: "b1").name == "text")
            called.append("getWireBucket")
        }
        #expect(called.sorted() == served.operations.map(\.operationId).sorted())
        #expect(contract.violations == [])
    }

    /// What the server received, as it came (its `/__echo/OPERATION` route).
    struct Echo: Decodable {
        var target: String
        var headers: [[String]]
        var body: String

        func values(_ name: String) -> [String] {
            headers.filter { $0.first?.lowercased() == name.lowercased() }.map { $0.dropFirst().joined() }
        }
    }

    func echo(_ operation: String) async throws -> Echo {
        let url = try #require(URL(string: base + "/__echo/" + operation))
        let (data, _) = try await URLSession.shared.data(from: url)
        return try JSONDecoder().decode(Echo.self, from: data)
    }

    /// What reaches the wire, as the server echoes it.
    @Test func stylesArraysHeadersCookiesAndBodyMembersReachTheWireAsTheDescriptionSays() async throws {
        let configuration = APIConfiguration.featureZoo(
            baseURL: base + "/v2", bearerToken: "token", basic: (username: "u", password: "p"), keyInQuery: "key")
        try await APIConfiguration.withCurrent(configuration) { () async throws(APIError) in
            _ = try await WireAPI.sendStyles(
                ids: [3, 4, 5], point: Span(from: 1, to: 2), mark: "a;b", tags: ["x", "y,z"], colors: ["red", "blue"],
                sizes: [1, 2], xTraceIds: ["t1", "t2"], session: "s-1", theme: "dark")
            try await WireAPI.updateWireUser(
                username: "ann", body: UpdateWireUserRequest(username: "ann", email: "a@b"))
            try await WireAPI.updateWireForm(
                username: "ann", body: UpdateWireFormRequest(username: "ann b", email: "a@b", tags: ["x"]))
        }
        let styles = try await echo("sendStyles")
        // Path: simple array and exploded object keep `,` and `=`, matrix `;` and `=`, label `.` and `,`; the values
        // inside are encoded (`;` in "a;b", `,` in "y,z"). Query: `colors` (explode: false) comma-separated beside
        // `sizes` (exploded) repeated.
        #expect(
            styles.target
                == "/v2/wire/3,4,5/from=1,to=2/;mark=a%3Bb/.x,y%2Cz?colors=red,blue&sizes=1&sizes=2&api_key=key")
        // An array header in simple style; both cookies in one field, `; ` between them.
        #expect(styles.values("X-Trace-Ids") == ["t1,t2"])
        #expect(styles.values("Cookie") == ["session=s-1; theme=dark"])
        // A body member named like a path value is in the body too.
        let user = try await echo("updateWireUser")
        #expect(user.target == "/v2/wire/users/ann?api_key=key")
        #expect(
            try JSONDecoder().decode([String: String].self, from: Data(user.body.utf8))
                == ["username": "ann", "email": "a@b"])
        let form = try await echo("updateWireForm")
        #expect(form.target == "/v2/wire/forms/ann?api_key=key")
        #expect(form.body == "username=ann%20b&email=a%40b&tags=x")
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
