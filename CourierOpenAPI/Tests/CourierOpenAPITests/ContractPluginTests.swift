import Courier
import CourierTesting
import Foundation
import Testing

@testable import CourierOpenAPI

/// The contract plugin over the committed book of features-3.1.yaml (ZooBook/, kept equal to what `generate`
/// writes by `theCommittedBookIsWhatGenerateWrites`), answered by stubs.
@MainActor
@Suite struct ContractPluginTests {
    let document: OpenAPIDescription
    static let animalID = "6F9619FF-8B86-D011-B42D-00CF4FC964FF"
    static let animal = #"{"id":"\#(animalID)","kind":"cat","display-name":"Tom","born":"2020-01-02T03:04:05Z"}"#

    init() throws { document = try Support.description("features-3.1.yaml") }

    func configuration(_ plugin: ContractPlugin) -> APIConfiguration {
        APIConfiguration.featureZoo(baseURL: "https://zoo.example.com/v2", bearerToken: "t")
            .with { $0.plugins.append(plugin) }
    }

    @Test func theCommittedBookIsWhatGenerateWrites() throws {
        let folder = Support.testsFolder.appendingPathComponent("ZooBook")
        for (name, text) in Generator(description: document).files() {
            let committed = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(committed == text, "ZooBook/\(name) differs: run courier-openapi generate again")
        }
    }

    @Test func trafficThatKeepsTheContractPasses() async throws {
        let stub = StubExecutor()
            .stub(where: { $0.endpoint.path == "/animals/{animalId}" }, with: .json(Self.animal))
            .stub(where: { $0.endpoint.path == "/animals" }, with: .json("[\(Self.animal)]"))
        let plugin = ContractPlugin(document, mode: .report, log: { _ in })
        try await stub.activate(in: configuration(plugin)) {
            let animal = try await AnimalsAPI.getAnimal(animalId: try #require(UUID(uuidString: Self.animalID)))
            #expect(animal.displayName == "Tom")
            let animals = try await AnimalsAPI.listAnimals(limit: 2, kinds: ["cat", "dog"], xRequestID: "r1")
            #expect(animals.count == 1)
        }
        #expect(plugin.violations == [])
        #expect(
            stub.requests.map(\.url.absoluteString) == [
                "https://zoo.example.com/v2/animals/\(Self.animalID)",
                "https://zoo.example.com/v2/animals?limit=2&kinds=cat,dog",
            ])
    }

    @Test func strictModeThrowsATypedErrorNamingOperationLocationAndRule() async throws {
        // The server leaves out a required property and sends a kind the description does not list.
        let stub = StubExecutor().stub(where: { _ in true }, with: .json(#"{"id":"\#(Self.animalID)","kind":"fox"}"#))
        let plugin = ContractPlugin(document, mode: .strict, log: { _ in })
        await stub.activate(in: configuration(plugin)) {
            do {
                _ = try await AnimalsAPI.getAnimal(animalId: UUID())
                Issue.record("a broken contract must throw")
            } catch let error as APIError {
                #expect(error.reason == .other)
                #expect(error.endpoint.path == "/animals/{animalId}")
                let violation = try? #require(error.underlyingError as? ContractViolation)
                #expect(violation?.operation == "getAnimal (GET /animals/{animalId})")
                #expect(violation?.location == "response.body.display-name")
                #expect(violation?.rule == "required")
                #expect(error.statusCode == 200)
            } catch {
                Issue.record("not an APIError: \(error)")
            }
        }
        #expect(
            plugin.violations.map { "\($0.location) \($0.rule)" } == [
                "response.body.display-name required", "response.body.kind enum",
            ])
    }

    @Test func aRequestThatBreaksTheContractFailsBeforeItIsSent() async throws {
        let stub = StubExecutor().stub(where: { _ in true }, with: .json(Self.animal))
        let plugin = ContractPlugin(document, mode: .strict, log: { _ in })
        // A hand-written endpoint that forgets the required header and sends a number where a UUID belongs.
        let endpoint = GET<Int>("/animals/{animalId}") { ["animalId": $0] }
        let unknown = GET<Void>("/zebras")
        let tooBig = GET<Int>("/animals", headers: ["X-Request-ID": "r"]) { ["limit": $0] }
        await stub.activate(in: configuration(plugin)) {
            await #expect(throws: APIError.self) { let _: Animal = try await endpoint.request(with: 7) }
            await #expect(throws: APIError.self) { try await unknown.request() }
            await #expect(throws: APIError.self) { let _: [Animal] = try await tooBig.request(with: 3_000_000_000) }
        }
        #expect(stub.requests.count == 0)
        #expect(
            plugin.violations.map { "\($0.location) \($0.rule)" } == [
                "request.path.animalId format", "request operation", "request.query.limit format",
            ])
    }

    @Test func reportModeCollectsAndLogsAndLetsTheCallGoOn() async throws {
        let stub = StubExecutor()
            .stub(where: { $0.endpoint.path == "/animals/{animalId}" }, with: .status(204))
            .stub(where: { $0.endpoint.path == "/animals" }, with: .json(#"{"message":"nope"}"#, status: 400))
        let logged = LockedLines()
        let plugin = ContractPlugin(document, mode: .report, log: { logged.append("\($0)") })
        await stub.activate(in: configuration(plugin)) {
            let response = try? await AnimalsAPI.$getAnimal.request(with: UUID())
            #expect(response?.statusCode == 204)
            // A declared error status with its model passes the contract; the call fails on the status as usual.
            do {
                _ = try await AnimalsAPI.listAnimals(xRequestID: "r")
                Issue.record("a 400 must throw")
            } catch let error as APIError {
                #expect(error.decodeBody(as: ErrorModel.self)?.message == "nope")
            } catch {
                Issue.record("not an APIError: \(error)")
            }
        }
        #expect(plugin.violations.map(\.rule) == ["status"])
        #expect(
            logged.lines == [
                "getAnimal (GET /animals/{animalId}): response.status: 204 is not among the declared statuses (200) [status]"
            ])
    }

    @Test func requestBodiesAreCheckedAgainstTheirSchema() async throws {
        let stub = StubExecutor().stub(where: { _ in true }, with: .json(Self.animal, status: 201))
        let plugin = ContractPlugin(document, mode: .report, log: { _ in })
        let wrongBody = POST<Int>("/animals") { ["name": $0] }
        await stub.activate(in: configuration(plugin)) {
            _ = try? await AnimalsAPI.createAnimal(body: CreateAnimalRequest(name: "Rex", kind: .dog))
            let _: Animal? = try? await wrongBody.request(with: 5)
        }
        #expect(plugin.violations.map { "\($0.location) \($0.rule)" } == ["request.body.name type"])
    }
}

/// Lines logged from any task.
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}
