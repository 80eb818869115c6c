import Foundation
import Testing

@testable import CourierOpenAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Generates books from the fixtures and compiles them in a scratch package with the repository's Courier as a
/// path dependency (Swift 6 mode, warnings as errors), after `swift format lint --strict`. One `swift build`
/// per run: the first one builds Courier too (a minute or two), later ones only the books. The Shelves book is a
/// program that calls its endpoints through a stub executor and prints the requests they made. With a live Kinto
/// server (COURIER_KINTO_URL, started by scripts/test-openapi; required under CI), the book of its own description
/// (`/__api__`, Swagger 2.0) is generated, compiled and called: buckets, collections and records.
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

    /// Calls of the Kinto book against the live server: a bucket, a collection, a record, the records, and a record
    /// that is not there, whose error body decodes into the model generated for Kinto's inline error schema.
    static let kintoProgram = """
        import Courier
        import Foundation
        import Kinto

        let configuration = APIConfiguration.kinto(
            baseURL: CommandLine.arguments[1], basicauth: (username: "courier", password: "secret"))
        try await APIConfiguration.withCurrent(configuration) { () async throws(APIError) in
            // Kinto's bucket lists no `id` or `last_modified`: they are among the members the description does not
            // list, as is the `note` sent.
            let bucket = try await BucketsAPI.updateBucket(
                id: "shelf",
                body: UpdateBucketRequest(data: UpdateBucketRequestDataModel(additionalProperties: ["note": .string("n")])))
            let members = bucket.data?.additionalProperties ?? [:]
            print("bucket", members["id"].map { "\\($0)" } ?? "-", members["last_modified"] != nil, members["note"].map { "\\($0)" } ?? "-")
            let collection = try await CollectionsAPI.updateCollection(
                bucketId: "shelf", id: "books", body: UpdateCollectionRequest())
            print("collection", collection.data?.additionalProperties["id"].map { "\\($0)" } ?? "-")
            let created = try await RecordsAPI.createRecord(
                bucketId: "shelf", collectionId: "books",
                body: CreateRecordRequest(data: ["title": .string("Dune"), "year": .number(1965)]))
            guard case .string(let id)? = created.data?["id"] else {
                print("a record without an id")
                return
            }
            let record = try await RecordsAPI.getRecord(bucketId: "shelf", collectionId: "books", id: id)
            print("record", record.data?["title"].map { "\\($0)" } ?? "-", record.data?["year"].map { "\\($0)" } ?? "-")
            let records = try await RecordsAPI.getRecords(bucketId: "shelf", collectionId: "books", sort: ["-year", "title"])
            print("records", records.data?.count ?? 0)
            do throws(APIError) {
                _ = try await RecordsAPI.getRecord(bucketId: "shelf", collectionId: "books", id: "missing")
                print("missing record found")
            } catch {
                let body = error.decodeBody(as: ErrorBody.self)
                print("missing", error.statusCode ?? 0, body?.code ?? 0, body?.error ?? "-")
            }
        }

        """

    /// What the Kinto program prints.
    static let kintoOutput = [
        "bucket string(\"shelf\") true string(\"n\")",
        "collection string(\"books\")",
        "record string(\"Dune\") number(1965.0)",
        "records 1",
        "missing 404 404 Not Found",
    ]

    @Test func generatedBooksAreFormattedAndCompileWithoutWarnings() async throws {
        let scratch = Support.packageFolder.appendingPathComponent(".build/generated-books")
        let manager = FileManager.default
        try? manager.removeItem(at: scratch.appendingPathComponent("Sources"))
        var fixtures: [(module: String, files: [String: String])] = []
        for (fixture, module) in Self.fixtures { fixtures.append((module, try Support.generated(fixture))) }
        // The Zoo again, public (`--access public`): its cycles, unions, unlisted members and JSON values too.
        let zoo = try Support.description("features-3.1.yaml")
        fixtures.append(("PublicZoo", Generator(description: zoo, access: .public).files()))
        var publicModules = ["PublicZoo"]
        // The live Kinto's own description, when its server runs (scripts/test-openapi starts it; CI requires it).
        let kinto = ProcessInfo.processInfo.environment["COURIER_KINTO_URL"].flatMap { $0.isEmpty ? nil : $0 }
        if let kinto {
            let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: kinto + "/__api__")))
            // Public: the program that calls it is a module of its own.
            fixtures.append(
                ("Kinto", Generator(description: try OpenAPIDescription(data: data), access: .public).files()))
            publicModules.append("Kinto")
            let folder = scratch.appendingPathComponent("Sources/KintoCalls")
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(Self.kintoProgram.utf8).write(to: folder.appendingPathComponent("main.swift"))
        } else if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("COURIER_KINTO_URL is not set: run scripts/test-openapi, which starts Kinto")
        }
        for (module, files) in fixtures {
            let folder = scratch.appendingPathComponent("Sources/\(module)")
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, text) in files {
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
        let modules = (Self.fixtures.values.filter { $0 != "Shelves" }.sorted() + ["PublicZoo"]).map { "\"\($0)\"" }
            .joined(separator: ", ")
        // The Kinto book and the program that calls it, when Kinto runs.
        let kintoTargets =
            kinto == nil
            ? ""
            : """
                .target(
                    name: "Kinto", dependencies: [.product(name: "Courier", package: "Courier")],
                    swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]),
                .executableTarget(
                    name: "KintoCalls", dependencies: ["Kinto", .product(name: "Courier", package: "Courier")],
                    path: "Sources/KintoCalls", swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]),
            """
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
                        swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]),
            \(kintoTargets)
                ],
                swiftLanguageModes: [.v6]
            )

            """
        try Data(manifest.utf8).write(to: scratch.appendingPathComponent("Package.swift"))

        let sources = fixtures.map(\.module).sorted().map { "Sources/\($0)" }
        let configuration = Support.repositoryFolder.appendingPathComponent(".swift-format").path
        let lint = try Support.run(
            ["swift", "format", "lint", "--strict", "--recursive", "--configuration", configuration]
                + sources.filter { !publicModules.map { "Sources/\($0)" }.contains($0) },
            in: scratch)
        #expect(lint.status == 0, "swift format lint:\n\(lint.output)")
        do {
            // The public books: the same configuration, except that generated declarations are documented where the
            // description documents them (not every public one).
            let text = try String(contentsOfFile: configuration, encoding: .utf8)
            let publicConfiguration = scratch.appendingPathComponent("public.swift-format")
            try Data(
                text.replacingOccurrences(
                    of: "\"AllPublicDeclarationsHaveDocumentation\": true",
                    with: "\"AllPublicDeclarationsHaveDocumentation\": false"
                ).utf8
            ).write(to: publicConfiguration)
            #expect(text.contains("\"AllPublicDeclarationsHaveDocumentation\": true"))
            let publicLint = try Support.run(
                [
                    "swift", "format", "lint", "--strict", "--recursive", "--configuration", publicConfiguration.path,
                ] + publicModules.map { "Sources/\($0)" },
                in: scratch)
            #expect(publicLint.status == 0, "swift format lint:\n\(publicLint.output)")
        }

        let build = try Support.run(["swift", "build"], in: scratch)
        #expect(build.status == 0, "swift build:\n\(build.output.suffix(6000))")

        let shelves = try Support.run(["swift", "run", "--skip-build", "Shelves"], in: scratch)
        #expect(shelves.status == 0, "Shelves:\n\(shelves.output)")
        #expect(shelves.output.split(separator: "\n").map(String.init) == Self.shelvesRequests)

        if let kinto {
            let calls = try Support.run(["swift", "run", "--skip-build", "KintoCalls", kinto], in: scratch)
            #expect(calls.status == 0, "KintoCalls:\n\(calls.output)")
            #expect(calls.output.split(separator: "\n").map(String.init) == Self.kintoOutput)
        }
    }
}
