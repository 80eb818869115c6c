import Foundation
import Testing

@testable import CourierOpenAPI

/// `$ref`s to files beside the description: resolved relative to the file that writes them, JSON or YAML, with or
/// without a fragment; a URL is refused in one line.
@Suite struct ExternalReferenceTests {
    /// A folder of files, removed when the test ends.
    final class Folder {
        let url: URL
        init(_ files: [String: String]) throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("refs-\(UUID().uuidString)")
            for (path, text) in files {
                let file = url.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: file)
            }
        }
        deinit { try? FileManager.default.removeItem(at: url) }
        func description() throws -> OpenAPIDescription {
            try OpenAPIDescription(contentsOf: url.appendingPathComponent("openapi.yaml"))
        }
    }

    static func description(response reference: String) -> String {
        """
        openapi: 3.0.3
        info: { title: Pets, version: "1" }
        paths:
          /pets/{id}:
            get:
              operationId: getPet
              parameters:
                - { name: id, in: path, required: true, schema: { type: integer } }
              responses:
                "200":
                  description: the pet
                  content:
                    application/json:
                      schema: { $ref: '\(reference)' }
        """
    }

    /// The pet in YAML under `Pet`, its owner in JSON as a whole file beside it: a nested reference relative to
    /// `schemas/`, and references back to the pet (a cycle across the two files, and one inside pet.yaml).
    static let files = [
        "schemas/pet.yaml": """
        Pet:
          type: object
          required: [name]
          properties:
            name: { type: string }
            owner: { $ref: './owner.json' }
            friends: { type: array, items: { $ref: '#/Pet' } }
        """,
        "schemas/owner.json": #"""
        {"type": "object", "properties": {"email": {"type": "string"},
         "pets": {"type": "array", "items": {"$ref": "pet.yaml#/Pet"}}}}
        """#,
        "schemas/pet.json": #"{"components": {"schemas": {"Pet": {"$ref": "./pet.yaml#/Pet"}}}}"#,
    ]

    @Test(arguments: [
        "./schemas/pet.yaml#/Pet", "schemas/pet.yaml#/Pet", "./schemas/../schemas/pet.yaml#/Pet",
        "./schemas/pet.json#/components/schemas/Pet",
    ])
    func aRelativeFileReferenceIsAModelOfItsOwn(_ reference: String) throws {
        var files = Self.files
        files["openapi.yaml"] = Self.description(response: reference)
        let folder = try Folder(files)
        let generated = Generator(description: try folder.description()).files()
        let models = try #require(generated["Models.swift"])
        let book = try #require(generated["PetsAPI.swift"])
        #expect(book.contains("static func getPet(id: Int) async throws(APIError) -> Pet {"), "\(book)")
        #expect(models.contains("struct Pet: "), "\(models)")
        #expect(models.contains("var owner: Owner?"), "\(models)")
        #expect(models.contains("var friends: [Pet]?"), "\(models)")
        #expect(models.contains("struct Owner: "), "\(models)")
        #expect(models.contains("var pets: [Pet]?"), "\(models)")
        #expect(!models.contains("JSONValue"), "\(models)")
    }

    @Test func aFileWithoutAFragmentIsTheSchema() throws {
        var files = Self.files
        files["openapi.yaml"] = Self.description(response: "schemas/owner.json")
        let folder = try Folder(files)
        let models = try #require(Generator(description: try folder.description()).files()["Models.swift"])
        #expect(models.contains("struct Owner: "), "\(models)")
        #expect(models.contains("struct Pet: "), "\(models)")
        #expect(!models.contains("JSONValue"), "\(models)")
    }

    @Test func aParameterInAnotherFileIsWrittenInPlace() throws {
        let folder = try Folder([
            "openapi.yaml": """
            openapi: 3.1.0
            info: { title: Pets, version: "1" }
            paths:
              /pets:
                get:
                  operationId: listPets
                  parameters: [{ $ref: 'common/parameters.yaml#/limit' }]
                  responses: { "204": { description: ok } }
            """,
            "common/parameters.yaml": """
            limit: { name: limit, in: query, schema: { $ref: '../schemas/limit.yaml' } }
            """,
            "schemas/limit.yaml": "{ type: integer, minimum: 1 }",
        ])
        let description = try folder.description()
        let files = Generator(description: description).files()
        let book = try #require(files["PetsAPI.swift"])
        // The parameter in place; its schema, in a file of its own, a schema of the description named after it.
        #expect(book.contains("static func listPets(limit: Limit? = nil)"), "\(book)")
        #expect(files["Models.swift"]?.contains("typealias Limit = Int") == true, "\(files["Models.swift"] ?? "")")
        #expect(description.json.contains(#""limit":{"type":"integer","minimum":1}"#), "\(description.json)")
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        var reference: String
        var message: String
        var testDescription: String { reference }
    }

    static let at = "#/paths/~1pets~1{id}/get/responses/200/content/application~1json/schema"

    @Test(arguments: [
        Refusal(
            reference: "https://example.com/pet.yaml#/Pet",
            message:
                "$ref https://example.com/pet.yaml#/Pet (at \(at)) is a URL: references resolve to files beside the description only"
        ),
        Refusal(
            reference: "http://example.com/pet.yaml",
            message:
                "$ref http://example.com/pet.yaml (at \(at)) is a URL: references resolve to files beside the description only"
        ),
        Refusal(
            reference: "./schemas/missing.yaml#/Pet",
            message: "$ref ./schemas/missing.yaml#/Pet (at \(at)): cannot read schemas/missing.yaml"),
        Refusal(
            reference: "./schemas/pet.yaml#/Cat",
            message: "$ref ./schemas/pet.yaml#/Cat (at \(at)) points to nothing in schemas/pet.yaml"),
    ])
    func aReferenceThatCannotBeResolvedIsOneLine(_ refusal: Refusal) throws {
        var files = Self.files
        files["openapi.yaml"] = Self.description(response: refusal.reference)
        let folder = try Folder(files)
        #expect {
            _ = try folder.description()
        } throws: { error in
            (error as? DescriptionError)?.message == refusal.message
        }
    }

    @Test func aDescriptionReadFromBytesRefusesOtherFiles() {
        #expect {
            _ = try Support.description(yaml: Self.description(response: "./schemas/pet.yaml#/Pet"))
        } throws: { error in
            (error as? DescriptionError)?.message
                == "$ref ./schemas/pet.yaml#/Pet (at \(Self.at)) names another file: read the description from its file to resolve it"
        }
    }

    @Test func aCycleOfReferencesOutsideSchemasIsAnError() throws {
        let folder = try Folder([
            "openapi.yaml": """
            openapi: 3.0.3
            info: { title: Pets, version: "1" }
            paths:
              /pets:
                get:
                  operationId: listPets
                  parameters: [{ $ref: 'a.yaml#/p' }]
                  responses: { "204": { description: ok } }
            """,
            "a.yaml": "p: { $ref: 'b.yaml#/p' }",
            "b.yaml": "p: { $ref: 'a.yaml#/p' }",
        ])
        #expect {
            _ = try folder.description()
        } throws: { error in
            (error as? DescriptionError)?.message.contains("is part of a cycle of references") == true
        }
    }
}
