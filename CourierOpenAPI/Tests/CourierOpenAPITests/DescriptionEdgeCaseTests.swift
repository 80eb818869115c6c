import Foundation
import Testing

@testable import CourierOpenAPI

/// Descriptions at the edges (bounds past 64 bits, cycles, inline error schemas, a `$ref` to nothing), and what the
/// generator and its tools make of them.
@Suite struct DescriptionEdgeCaseTests {
    /// Kinto's integer query parameters say `maximum: 9223372036854775808` (one past `Int64.max`).
    @Test func integerBoundsBeyond64BitsAreAcceptedAndKept() throws {
        let description = try Support.description(
            yaml: """
                swagger: "2.0"
                info: { title: Records, version: "1" }
                paths:
                  /records:
                    get:
                      operationId: listRecords
                      parameters:
                        - { name: _limit, in: query, type: integer, maximum: 9223372036854775808 }
                        - { name: _since, in: query, type: integer, minimum: -9223372036854775809, maximum: 2.5 }
                      responses:
                        "200": { description: ok }
                """)
        let book = try #require(Generator(description: description).files()["RecordsAPI.swift"])
        #expect(book.contains("static func listRecords(limit: Int? = nil, since: Int? = nil)"))
        // The description keeps the bounds as written (the contract plugin reads this document).
        #expect(description.json.contains(#""maximum":9.223372036854776e+18"#))
        #expect(description.json.contains(#""maximum":2.5"#))
    }

    /// A rejected document is named by the version it declared, at the first part OpenAPIKit rejects in
    /// document order, the same on every run.
    @Test func aRejectedDocumentIsNamedByItsOwnVersionAndAStableLocation() throws {
        let yaml = """
            swagger: "2.0"
            info: { title: Bad, version: "1" }
            paths:
              /a:
                get:
                  responses:
                    "200": { description: ok }
              /b:
                get:
                  responses:
                    "200": { description: ok, schema: { type: object, required: yes } }
              /c:
                get:
                  responses:
                    "200": { description: ok }
            """
        var messages: Set<String> = []
        for _ in 0..<5 {
            #expect {
                _ = try Support.description(yaml: yaml)
            } throws: { error in
                messages.insert(String(describing: error))
                return true
            }
        }
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        #expect(message.hasPrefix("invalid Swagger 2.0 document at paths./b.get: "), "\(message)")
        #expect(!message.contains("3.0.3") && !message.contains("\n"))
    }

    /// A `$ref` to a schema that does not exist is a one-line error naming it and where it is used.
    @Test func aReferenceToNothingIsAnErrorNamingItAndWhereItIsUsed() throws {
        let yaml = """
            openapi: 3.0.3
            info: { title: Pets, version: "1" }
            paths:
              /pets:
                get:
                  responses:
                    "200":
                      description: ok
                      content:
                        application/json:
                          schema: { type: array, items: { $ref: '#/components/schemas/Missing' } }
            components:
              schemas:
                Pet: { type: object, properties: { example: { type: string, example: { $ref: '#/nothing' } } } }
            """
        #expect {
            _ = try Support.description(yaml: yaml)
        } throws: { error in
            String(describing: error)
                == "$ref #/components/schemas/Missing (at #/paths/~1pets/get/responses/200/content/application~1json"
                + "/schema/items) points to nothing in the description"
        }
    }

    /// Every cycle of models is broken out of line; a reference through an array needs nothing.
    @Test func modelsThatHoldThemselvesAreStoredOutOfLine() throws {
        let models = try #require(try Support.generated("features-3.1.yaml")["Models.swift"])
        #expect(models.contains("    @Indirect var parent: Node?\n    var children: [Node]?\n"))
        #expect(models.contains("    @Indirect var next: RingLink?\n    var shape: Shape?\n"))
        #expect(models.contains("    @Indirect var ring: Ring?\n"))
        #expect(models.contains("indirect enum Shape: Codable, Sendable {"))
        #expect(models.contains("struct Indirect<Value: Sendable>: Sendable {"))
        // A model outside any cycle is left alone.
        #expect(models.contains("struct Animal: Codable, Sendable {"))
        #expect(!models.contains("indirect enum Pet"))
    }

    /// One model per distinct inline error schema, shared when several operations write the same one.
    @Test func inlineErrorSchemasGetModels() throws {
        let yaml = """
            openapi: 3.0.3
            info: { title: Store, version: "1" }
            paths:
              /a:
                get:
                  operationId: getA
                  responses:
                    "200": { description: ok }
                    "400": { description: bad, content: { application/json: { schema: { $ref: '#/components/schemas/Problem' } } } }
                    default: { description: bad, content: { application/json: { schema: { type: object, properties: { code: { type: integer } } } } } }
              /b:
                get:
                  operationId: getB
                  responses:
                    "200": { description: ok }
                    "404": { description: bad, content: { application/json: { schema: { type: object, properties: { code: { type: integer } } } } } }
                    "409": { description: bad, content: { application/json: { schema: { type: object, properties: { why: { type: string } } } } } }
            components:
              schemas:
                Problem: { type: object, properties: { title: { type: string } } }
            """
        let files = Generator(description: try Support.description(yaml: yaml)).files()
        let book = try #require(files["StoreAPI.swift"])
        let models = try #require(files["Models.swift"])
        #expect(book.contains("/// A `400` body decodes with `error.decodeBody(as: Problem.self)`."))
        #expect(book.contains("/// A `default` body decodes with `error.decodeBody(as: ErrorBody.self)`."))
        #expect(book.contains("/// A `404` body decodes with `error.decodeBody(as: ErrorBody.self)`."))
        #expect(book.contains("/// A `409` body decodes with `error.decodeBody(as: GetBError.self)`."))
        #expect(models.contains("struct ErrorBody: Decodable, Sendable {\n    var code: Int?\n}"))
        #expect(models.contains("struct GetBError: Decodable, Sendable {\n    var why: String?\n}"))
    }

    /// `--access public` makes every declaration public, with public memberwise initializers.
    @Test func publicAccessReachesEveryDeclaration() throws {
        let files = Generator(description: try Support.description("features-3.1.yaml"), access: .public).files()
        let animals = try #require(files["AnimalsAPI.swift"])
        let models = try #require(files["Models.swift"])
        let configuration = try #require(files["Configuration.swift"])
        #expect(animals.contains("@MainActor\npublic enum AnimalsAPI {"))
        #expect(
            animals.contains(
                "    public static var getAnimal: APIParameterBuilder<UUID>? = .init { [\"animalId\": $0] }"))
        #expect(animals.contains("    public static func getAnimal(animalId: UUID) async throws(APIError) -> Animal {"))
        #expect(
            models.contains(
                "public struct Span: Encodable, Sendable {\n    public var from: Int\n    public var to: Int\n"))
        #expect(models.contains("    /// Creates a value from its members.\n    public init(from: Int, to: Int) {"))
        #expect(models.contains("    @Indirect public var parent: Node?"))
        #expect(models.contains("public enum JSONValue: Codable, Hashable, Sendable {"))
        #expect(configuration.contains("    public static func featureZoo("))
        // Internal is the default: no modifier at all.
        let internalBook = try #require(try Support.generated("features-3.1.yaml")["AnimalsAPI.swift"])
        #expect(!internalBook.contains("public "))
    }

    /// A drifting endpoint is named by its property, whatever its attribute holds.
    @Test func checkNamesTheEndpointThatMatchesNothing() throws {
        let book = """
            @MainActor
            enum Book {
                @GET(
                    "/nowhere",
                    headerBuilder: { parameter in
                        var headers: HTTPHeaders = [:]
                        headers.add("X-Trace", parameter)
                        return headers
                    })
                static var lost: APIParameterBuilder<String>? = .init { _ in [:] }

                static let gone = GET<Void>("/missing")
                static let alsoGone: GET<Void> =
                    GET<Void>("/missing/too")
            }
            """
        let report = DriftChecker(description: try Support.description("features-3.1.yaml")).check(
            sources: [("Book.swift", book)])
        let errors = report.findings.filter(\.isError).map(\.description)
        #expect(
            errors == [
                "Book.swift:3: error: lost: GET /nowhere matches no operation of the description",
                "Book.swift:12: error: gone: GET /missing matches no operation of the description",
                "Book.swift:14: error: alsoGone: GET /missing/too matches no operation of the description",
            ])
    }
}
