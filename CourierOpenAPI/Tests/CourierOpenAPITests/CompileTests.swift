import Foundation
import Testing

@testable import CourierOpenAPI

/// Generates books from the fixtures and compiles them in a scratch package with the repository's Courier as a
/// path dependency (Swift 6 mode, warnings as errors), after `swift format lint --strict`. One `swift build`
/// per run: the first one builds Courier too (a minute or two), later ones only the books. The Shelves book is a
/// program that calls its endpoints through a stub executor and prints the requests they made.
@Suite struct CompileTests {
    static let fixtures = [
        "pet-store-3.0.yaml": "PetStore", "features-3.1.yaml": "Zoo", "swagger-2.0.yaml": "OldStore",
        "common-parameters-3.0.yaml": "Shelves",
    ]

    /// Calls of the Shelves book (common parameters beside each kind of value); its output is every request made.
    static let shelvesProgram = """
        import Courier
        import CourierTesting
        import Foundation

        let stub = StubExecutor()
            .stub(ShelfServiceAPI.$shelvesList, with: .json(#"{"shelves": [{"name": "a"}]}"#))
            .stub(ShelfServiceAPI.$shelvesCreate, with: .json(#"{"name": "b"}"#))
            .stub(ShelfServiceAPI.$shelvesGet, with: .json(#"{"name": "c"}"#))
            .stub(ShelfServiceAPI.$shelvesDelete, with: .status(204))
            .stub(ShelfServiceAPI.$shelvesSetCover, with: .status(204))
        try await stub.activate(in: .shelfService()) { () async throws(APIError) in
            let list = try await ShelfServiceAPI.shelvesList(
                pageSize: 2, common: CommonParameters(fields: "shelves(name)", alt: .json))
            let shelf = try await ShelfServiceAPI.shelvesGet(shelf: "c")
            let created = try await ShelfServiceAPI.shelvesCreate(
                body: Shelf(name: "b"), common: CommonParameters(key: "k", prettyPrint: false))
            try await ShelfServiceAPI.shelvesDelete(shelf: "c", common: CommonParameters(key: "k"))
            try await ShelfServiceAPI.shelvesSetCover(shelf: "c", body: Data([1, 2]), common: CommonParameters(key: "k"))
            print(list.shelves?.first?.name ?? "-", shelf.name, created.name)
        }
        for request in stub.requests {
            print(request.method.rawValue, request.url.absoluteString, request.bodyText ?? "")
        }

        """

    /// What the Shelves program prints: the common values after the endpoint's own, `nil` ones left out, as query
    /// items beside a JSON or a raw body.
    static let shelvesRequests = [
        "a c b",
        "GET https://shelves.example/v1/shelves?pageSize=2&fields=shelves%28name%29&alt=json ",
        "GET https://shelves.example/v1/shelves/c ",
        #"POST https://shelves.example/v1/shelves?key=k&prettyPrint=false {"name":"b"}"#,
        "DELETE https://shelves.example/v1/shelves/c?key=k ",
        "PUT https://shelves.example/v1/shelves/c/cover?key=k \u{01}\u{02}",
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
        try Data(Self.shelvesProgram.utf8).write(to: scratch.appendingPathComponent("Sources/Shelves/main.swift"))
        let modules = Self.fixtures.values.filter { $0 != "Shelves" }.sorted().map { "\"\($0)\"" }.joined(
            separator: ", ")
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
                } + [
                    .executableTarget(
                        name: "Shelves",
                        dependencies: [
                            .product(name: "Courier", package: "Courier"),
                            .product(name: "CourierTesting", package: "Courier"),
                        ],
                        swiftSettings: [.unsafeFlags(["-warnings-as-errors"])])
                ],
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

        let shelves = try Support.run(["swift", "run", "--skip-build", "Shelves"], in: scratch)
        #expect(shelves.status == 0, "Shelves:\n\(shelves.output)")
        #expect(shelves.output.split(separator: "\n").map(String.init) == Self.shelvesRequests)
    }
}
