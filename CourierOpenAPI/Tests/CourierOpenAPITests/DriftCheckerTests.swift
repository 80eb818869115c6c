import Foundation
import Testing

@testable import CourierOpenAPI

/// `check` on the generated book of features-3.1.yaml, untouched and after hand edits.
@Suite struct DriftCheckerTests {
    let description: OpenAPIDescription
    let files: [String: String]

    init() throws {
        description = try Support.description("features-3.1.yaml")
        files = Generator(description: description).files()
    }

    func check(
        editing file: String, _ old: String, _ new: String, requireAll: Bool = false
    ) throws
        -> DriftChecker.Report
    {
        var sources = files.sorted { $0.key < $1.key }.map { (file: $0.key, text: $0.value) }
        let index = try #require(sources.firstIndex { $0.file == file })
        #expect(sources[index].text.contains(old), "the edit's text is not in \(file)")
        sources[index].text = sources[index].text.replacingOccurrences(of: old, with: new)
        return DriftChecker(description: description).check(sources: sources, requireAll: requireAll)
    }

    @Test func theUntouchedBookPasses() throws {
        let report = try check(editing: "Models.swift", "import Foundation", "import Foundation", requireAll: true)
        #expect(report.findings.map(\.description) == [])
        #expect(!report.hasDrift)
        #expect(report.endpointCount == 17)
        #expect(report.operationCount == 17)
    }

    @Test func aHandEditedPathIsCaught() throws {
        let report = try check(
            editing: "AnimalsAPI.swift", "@GET(\"/animals/{animalId}\")", "@GET(\"/animal/{animalId}\")")
        #expect(report.hasDrift)
        let errors = report.findings.filter(\.isError).map(\.description)
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("AnimalsAPI.swift:") == true)
        #expect(
            errors.first?.hasSuffix("error: getAnimal: GET /animal/{animalId} matches no operation of the description")
                == true)
        // The operation it no longer declares is listed.
        #expect(report.findings.contains { !$0.isError && $0.operation == "getAnimal (GET /animals/{animalId})" })
    }

    @Test func aRenamedPlaceholderIsCaught() throws {
        let report = try check(
            editing: "AnimalsAPI.swift",
            "@GET(\"/animals/{animalId}\")\n    static var getAnimal: APIParameterBuilder<UUID>? = .init { [\"animalId\": $0] }",
            "@GET(\"/animals/{id}\")\n    static var getAnimal: APIParameterBuilder<UUID>? = .init { [\"id\": $0] }")
        let errors = report.findings.filter(\.isError).map(\.description)
        #expect(errors.count == 1)
        #expect(
            errors.first?.hasSuffix(
                "error: getAnimal (GET /animals/{animalId}): path placeholder {id} is {animalId} in the description")
                == true)
    }

    @Test func aRemovedRequiredQueryItemIsCaught() throws {
        let report = try check(
            editing: "FeatureZooAPI.swift", ".init { [\"species\": $0] }", ".init { [\"kind\": $0] }")
        let errors = report.findings.filter(\.isError).map(\.message)
        #expect(
            errors == [
                "'kind' is neither a query nor a body name of the operation",
                "the required query item 'species' is never set",
            ])
    }

    @Test func theFileAndLineOfTheEndpointAreNamed() throws {
        let book = try #require(files["AnimalsAPI.swift"])
        let lines = book.components(separatedBy: "\n")
        let line = try #require(lines.firstIndex { $0.contains("@GET(\"/animals/{animalId}\")") }) + 1
        let report = try check(
            editing: "AnimalsAPI.swift", "@GET(\"/animals/{animalId}\")", "@GET(\"/animals/{animalId}/x\")")
        #expect(report.findings.first { $0.isError }?.location == "AnimalsAPI.swift:\(line)")
    }

    @Test func aRemovedRequiredHeaderAndBodyMemberAreCaught() throws {
        var report = try check(editing: "AnimalsAPI.swift", "headers.add(\"X-Request-ID\", parameter.xRequestID)\n", "")
        #expect(report.findings.filter(\.isError).map(\.message) == ["the required header 'X-Request-ID' is never set"])
        report = try check(editing: "AnimalsAPI.swift", "\"name\": $0.body.name, ", "")
        #expect(report.findings.filter(\.isError).map(\.message) == ["the required body member 'name' is never set"])
    }

    @Test func undeclaredOperationsAreNotesOrErrorsWithAll() throws {
        let removed = "    @GET(\"/health\")\n    static var getHealth: APIParameterBuilder<Void>? = nil\n"
        var report = try check(editing: "FeatureZooAPI.swift", removed, "")
        #expect(!report.hasDrift)
        #expect(
            report.findings.map(\.description) == [
                "note: GET /health: the book declares no endpoint for this operation"
            ])
        report = try check(editing: "FeatureZooAPI.swift", removed, "", requireAll: true)
        #expect(report.hasDrift)
    }

    @Test(
        "A declaration broken over lines as swift-format breaks a long one is read whole",
        arguments: [
            "static var listPets: APIParameterBuilder<String>? =\n        .init {\n            [KEY: $0]\n        }",
            "static var listPets:\n        APIParameterBuilder<String>? = .init {\n            [KEY: $0]\n        }",
        ])
    func aDeclarationBrokenAfterTheEqualsSignOrTheColonIsRead(layout: String) throws {
        func report(key: String) -> DriftChecker.Report {
            let source =
                "@MainActor enum Zoo {\n    @GET(\"/pets\")\n    "
                + layout.replacingOccurrences(of: "KEY", with: "\"\(key)\"") + "\n}\n"
            return DriftChecker(description: description).check(sources: [("Zoo.swift", source)])
        }
        #expect(report(key: "species").findings.filter(\.isError).map(\.message) == [])
        #expect(
            report(key: "kind").findings.filter(\.isError).map(\.message) == [
                "'kind' is neither a query nor a body name of the operation",
                "the required query item 'species' is never set",
            ])
    }

    @Test func handWrittenDeclarationsAreRead() throws {
        let source = """
            @MainActor enum Zoo {
                // @GET("/commented/out") is not an endpoint
                @GET("/pets?static=1", timeout: .seconds(5))
                static var pets: APIParameterBuilder<String>? = .init {
                    ["species": $0]
                }
                static let animal = GET<(id: String, trace: String)>("/animals/{animalId}", headerBuilder: { ["X-Trace": $0.trace] }) { ["animalId": $0.id] }
                @POST("/animals", encoding: .json.querying("dryRun"))
                static var create: APIParameterBuilder<CreateAnimalRequest>? = .init { $0 }
            }
            """
        let report = DriftChecker(description: description).check(sources: [("Zoo.swift", source)])
        #expect(report.endpointCount == 3)
        #expect(report.findings.filter(\.isError).map(\.description) == [])
    }
}
