import Foundation
import Testing

@testable import CourierOpenAPI

/// Generates books from the fixtures and compiles them in a scratch package with the repository's Courier as a
/// path dependency (Swift 6 mode, warnings as errors), after `swift format lint --strict`. One `swift build`
/// per run: the first one builds Courier too (a minute or two), later ones only the books.
@Suite struct CompileTests {
    static let fixtures = [
        "pet-store-3.0.yaml": "PetStore", "features-3.1.yaml": "Zoo", "swagger-2.0.yaml": "OldStore",
    ]

    @Test func generatedBooksAreFormattedAndCompileWithoutWarnings() throws {
        let scratch = Support.packageFolder.appendingPathComponent(".build/generated-books")
        let manager = FileManager.default
        try? manager.removeItem(at: scratch.appendingPathComponent("Sources"))
        for (fixture, module) in Self.fixtures {
            let folder = scratch.appendingPathComponent("Sources/\(module)")
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, text) in try Support.generated(fixture) {
                try Data(text.utf8).write(to: folder.appendingPathComponent(name))
            }
        }
        // The call sites the OpenAPI article shows (Sources/Courier/Courier.docc/OpenAPI.md) compile as written.
        let callSites = """
            import Courier

            @MainActor func articleCallSites() async throws {
                let configuration = APIConfiguration.swaggerPetstoreOpenAPI30()
                try await APIConfiguration.withCurrent(configuration) { () async throws(APIError) in
                    let pet = try await PetAPI.getPetById(petId: 1)
                    let pets = try await PetAPI.findPetsByStatus(status: .available)
                    let added = try await PetAPI.addPet(body: Pet(name: "Rex", photoUrls: []))
                    _ = (pet, pets, added)
                }
            }

            """
        try Data(callSites.utf8).write(to: scratch.appendingPathComponent("Sources/PetStore/ArticleCallSites.swift"))
        let modules = Self.fixtures.values.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
        let manifest = """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "GeneratedBooks",
                platforms: [.macOS(.v13)],
                dependencies: [.package(name: "Courier", path: "\(Support.repositoryFolder.path)")],
                targets: [\(modules)].map {
                    .target(
                        name: $0, dependencies: [.product(name: "Courier", package: "Courier")],
                        swiftSettings: [.unsafeFlags(["-warnings-as-errors"])])
                },
                swiftLanguageModes: [.v6]
            )

            """
        try Data(manifest.utf8).write(to: scratch.appendingPathComponent("Package.swift"))

        let sources = Self.fixtures.values.sorted().map { "Sources/\($0)" }
        let lint = try Support.run(
            [
                "swift", "format", "lint", "--strict", "--recursive", "--configuration",
                Support.repositoryFolder.appendingPathComponent(".swift-format").path,
            ] + sources,
            in: scratch)
        #expect(lint.status == 0, "swift format lint:\n\(lint.output)")

        let build = try Support.run(["swift", "build"], in: scratch)
        #expect(build.status == 0, "swift build:\n\(build.output.suffix(6000))")
    }
}
