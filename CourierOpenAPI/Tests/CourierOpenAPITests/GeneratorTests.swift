import Foundation
import Testing

@testable import CourierOpenAPI

@Suite struct GeneratorTests {
    @Test func booksPerTagWithEndpointsInTheDeclarationStyle() throws {
        let files = try Support.generated("features-3.1.yaml")
        #expect(
            files.keys.sorted() == [
                "AnimalsAPI.swift", "Configuration.swift", "FeatureZooAPI.swift", "MediaAPI.swift", "Models.swift",
                "ShelvesAPI.swift", "WireAPI.swift",
            ])
        let animals = try #require(files["AnimalsAPI.swift"])
        #expect(animals.contains("@MainActor\nenum AnimalsAPI {"))
        #expect(
            animals.contains(
                "@GET(\"/animals/{animalId}\")\n    static var getAnimal: APIParameterBuilder<UUID>? = .init { [\"animalId\": $0] }"
            ))
        // operationId sanitized: "list-animals" → listAnimals, "replace animal" → replaceAnimal.
        #expect(animals.contains("static var listAnimals:"))
        #expect(animals.contains("static var replaceAnimal:"))
        // A typed call that returns the success model.
        #expect(animals.contains("static func getAnimal(animalId: UUID) async throws(APIError) -> Animal {"))
        // Deprecated operations are marked, the endpoint and its call.
        #expect(animals.contains("@available(*, deprecated)\n    @DELETE(\"/animals/{animalId}\")"))
        #expect(animals.contains("@available(*, deprecated)\n    static func deleteAnimal"))
        // Error models are named for decodeBody(as:).
        #expect(animals.contains("error.decodeBody(as: ErrorModel.self)"))
        // Untagged operations go to the title's book; one without an operationId is named from method and path.
        #expect(
            try #require(files["FeatureZooAPI.swift"]).contains(
                "static var getHealth: APIParameterBuilder<Void>? = nil"))
    }

    @Test func parametersArePlacedWhereTheDescriptionSays() throws {
        let files = try Support.generated("features-3.1.yaml")
        let animals = try #require(files["AnimalsAPI.swift"])
        // Header and cookie parameters go to the header builder, optional ones only when set.
        #expect(animals.contains("headers.add(\"X-Request-ID\", parameter.xRequestID)"))
        #expect(animals.contains("if let value = parameter.session { headers.add(\"Cookie\", \"session=\\(value)\") }"))
        // explode: false arrays are comma-separated, each on its own: no option for the whole endpoint.
        #expect(
            animals.contains(
                "\"kinds\": $0.kinds.map { v in v.map { \"\\($0)\" as DelimitedValue }.joined(separator: \",\") }"))
        #expect(!animals.contains("commaSeparated"))
        // A JSON body beside a query value: the body's members by name, the query value in the query string.
        #expect(animals.contains("@POST(\"/animals\", encoding: .json.querying(\"dryRun\"))"))
        #expect(animals.contains("[\"dryRun\": $0.dryRun, \"name\": $0.body.name, \"kind\": $0.body.kind]"))
        // More values than fit a tuple's line: a struct.
        #expect(animals.contains("APIParameterBuilder<ReplaceAnimalParameters>?"))
        #expect(try #require(files["Models.swift"]).contains("struct ReplaceAnimalParameters: Sendable {"))
        // A raw body with its content type; path values beside it.
        let media = try #require(files["MediaAPI.swift"])
        #expect(
            media.contains(
                ".body(\n            .data($0.body), contentType: \"image/png\",\n            parameters: [\"animalId\": $0.animalId])"
            ))
        #expect(media.contains("-> String {"))  // text/plain response
        // A form body.
        #expect(try #require(files["FeatureZooAPI.swift"]).contains("@POST(\"/search\", encoding: .form)"))
    }

    @Test func modelsFollowTheSchemaRules() throws {
        let models = try #require(try Support.generated("features-3.1.yaml")["Models.swift"])
        // CodingKeys for names Swift can't spell; keywords escaped.
        #expect(models.contains("var displayName: String\n"))
        #expect(models.contains("case displayName = \"display-name\""))
        #expect(models.contains("var `default`: Bool?"))
        // Formats, nullable (3.1 type list), additionalProperties.
        #expect(models.contains("var id: UUID\n"))
        #expect(models.contains("var born: Date?"))
        #expect(models.contains("var count: Int64?"))
        #expect(models.contains("var weight: Double?"))
        #expect(models.contains("var tags: [String: String]?"))
        #expect(models.contains("var extra: [String: JSONValue]?"))
        #expect(models.contains("enum JSONValue: Codable, Hashable, Sendable {"))
        // String enums keep unknown values.
        #expect(models.contains("case seaLion\n"))
        #expect(models.contains("case unknown(String)"))
        // oneOf with a discriminator (mapping and implicit names), anyOf tried in order.
        #expect(models.contains("case \"kitty\": self = .cat(try Cat(from: decoder))"))
        #expect(models.contains("case \"Dog\": self = .dog(try Dog(from: decoder))"))
        #expect(models.contains("if let value = try? String(from: decoder) {"))
        // allOf merged.
        #expect(models.contains("struct Detailed: Decodable, Sendable {\n    var id: Int\n    var note: String?\n}"))
        // A model named like a Swift type is renamed.
        #expect(models.contains("struct ErrorModel:"))
    }

    @Test func serversAndSecuritySchemesMakeAConfigurationHelper() throws {
        let configuration = try #require(try Support.generated("features-3.1.yaml")["Configuration.swift"])
        #expect(configuration.contains("static let production = \"https://zoo.example.com/v2\""))
        #expect(configuration.contains("static let regional = \"https://eu.zoo.example.com/v2\""))
        #expect(configuration.contains("plugins.append(AuthPlugin.bearer(bearerToken))"))
        #expect(configuration.contains("AuthPlugin.basicAuth(username: basic.username, password: basic.password)"))
        #expect(configuration.contains("AuthPlugin.apiKey(keyInQuery, queryItem: \"api_key\")"))
    }

    @Test func headerNamesTheDescriptionAndOutputIsDeterministic() throws {
        let first = try Support.generated("features-3.1.yaml")
        let second = try Support.generated("features-3.1.yaml")
        #expect(first == second)
        let description = try Support.description("features-3.1.yaml")
        #expect(description.digest.count == 16)
        for (_, text) in first {
            #expect(
                text.hasPrefix(
                    "// Generated by courier-openapi from \"Feature Zoo\" 2.1.0 (OpenAPI 3.1.0, digest \(description.digest))."
                ))
        }
    }

    @Test func oneBookByOption() throws {
        let files = try Support.generated("pet-store-3.0.yaml", grouping: .single)
        #expect(files.keys.sorted() == ["Configuration.swift", "Models.swift", "SwaggerPetstoreOpenAPI30API.swift"])
    }

    @Test func modelsConformOnlyToTheCodingTheirUsesNeed() throws {
        let models = try #require(try Support.generated("features-3.1.yaml")["Models.swift"])
        // A request body and a response: both ways; only responses (and what they contain, an error model): decoded;
        // only request bodies and parameters: encoded. No synthesized Hashable on models.
        #expect(models.contains("struct Animal: Codable, Sendable {"))
        #expect(models.contains("struct Cat: Decodable, Sendable {"))
        #expect(models.contains("enum Pet: Decodable, Sendable {"))
        #expect(models.contains("struct ErrorModel: Decodable, Sendable {"))
        #expect(models.contains("struct CreateAnimalRequest: Encodable, Sendable {"))
        #expect(models.contains("struct ShelfFilter: Encodable, Sendable {"))
        let pet = try #require(models.components(separatedBy: "enum Pet:").last?.components(separatedBy: "\n}\n").first)
        #expect(pet.contains("init(from decoder: any Decoder) throws {") && !pet.contains("func encode(to"))
        // String enums: `init(rawValue:)` never fails, so the standard library's coding keeps unlisted values.
        #expect(models.contains("enum Kind: RawRepresentable, Codable, Hashable, Sendable {"))
        #expect(models.contains("        default: self = .unknown(rawValue)\n"))
        let kind = try #require(
            models.components(separatedBy: "enum Kind:").last?.components(separatedBy: "\n}\n").first)
        #expect(!kind.contains("decode("))
    }

    @Test func aModelNoOperationUsesIsCodableWithEverythingItContains() throws {
        let description = try Support.description(
            yaml: """
                openapi: 3.0.3
                info: { title: T, version: "1" }
                paths:
                  /repo:
                    get:
                      operationId: getRepo
                      responses:
                        "200":
                          description: ok
                          content: { application/json: { schema: { $ref: '#/components/schemas/Repo' } } }
                components:
                  schemas:
                    Repo: { type: object, properties: { name: { type: string } } }
                    Starred: { type: object, properties: { repo: { $ref: '#/components/schemas/Repo' } } }
                """)
        let models = try #require(Generator(description: description).files()["Models.swift"])
        // Starred is the user's to encode or decode, so what it contains is both too (else it would not compile).
        #expect(models.contains("struct Starred: Codable, Sendable {"))
        #expect(models.contains("struct Repo: Codable, Sendable {"))
    }

    @Test func componentParametersShareOneType() throws {
        let description = try Support.description(
            yaml: """
                openapi: 3.0.3
                info: { title: T, version: "1" }
                paths:
                  /a:
                    get:
                      operationId: listA
                      parameters: [{ $ref: '#/components/parameters/alt' }]
                      responses: { "204": { description: ok } }
                  /b:
                    get:
                      operationId: listB
                      parameters:
                        - { $ref: '#/components/parameters/alt' }
                        - { name: order, in: query, schema: { type: string, enum: [asc, desc] } }
                      responses: { "204": { description: ok } }
                components:
                  parameters:
                    alt: { name: alt, in: query, schema: { type: string, enum: [json, proto] } }
                """)
        let files = Generator(description: description).files()
        let models = try #require(files["Models.swift"])
        let book = try #require(files["TAPI.swift"])
        #expect(models.components(separatedBy: "enum Alt: RawRepresentable").count == 2)
        #expect(!models.contains("ListAAlt") && !models.contains("ListBAlt"))
        #expect(models.contains("enum ListBOrder: RawRepresentable"))
        #expect(book.contains("static func listA(alt: Alt? = nil)"))
        #expect(book.contains("static func listB(alt: Alt? = nil, order: ListBOrder? = nil)"))
    }

    @Test func optionalQueryParametersEveryOperationTakesAreOneCommonStruct() throws {
        let files = try Support.generated("common-parameters-3.0.yaml")
        let models = try #require(files["Models.swift"])
        let book = try #require(files["ShelfServiceAPI.swift"])
        // One struct, with a nil default per parameter and the descriptions as its initializer's documentation.
        #expect(models.contains("import Courier\n"))
        #expect(models.contains("struct CommonParameters: Sendable {"))
        #expect(
            models.contains("        fields: String? = nil,\n        key: String? = nil,\n        alt: Alt? = nil,"))
        #expect(models.contains("///   - fields: Selector specifying which fields to include in a partial response."))
        #expect(models.contains("(\"prettyPrint\", prettyPrint),"))
        // Each endpoint's parameters hold it once, its builder adds it after its own values, its call takes it last.
        #expect(!models.contains("    var fields: String?"))
        #expect(
            models.contains(
                "struct ShelvesListParameters: Sendable {\n    var pageSize: Int?\n    var common = CommonParameters()\n}"
            ))
        #expect(book.contains("= .init {\n        $0.common.adding(to: [\"pageSize\": $0.pageSize])\n    }"))
        #expect(book.contains("        pageSize: Int? = nil,\n        common: CommonParameters = .init()\n    ) async"))
        // Without values of its own an endpoint still takes them, in a struct (`.init()` works without arguments).
        #expect(
            models.contains(
                "struct ShelvesGetParameters: Sendable {\n    var shelf: String\n    var common = CommonParameters()\n}"
            ))
        #expect(
            models.contains(
                "struct ShelvesDeleteParameters: Sendable {\n    var shelf: String\n    var common = CommonParameters()\n}"
            ))
        // A JSON body's members go by name beside them, and the common names are query items.
        #expect(
            book.contains(
                "@POST(\"/shelves\", encoding: .json.querying(\"fields\", \"key\", \"alt\", \"prettyPrint\"))"))
        #expect(book.contains("$0.common.adding(to: [\"name\": $0.body.name, \"theme\": $0.body.theme])"))
        // A raw body: the common values join the path's.
        #expect(book.contains("parameters: $0.common.adding(to: [\"shelf\": $0.shelf]))"))
    }

    @Test(
        "Parameters are common only when every one of three or more operations takes three or more of them alike",
        arguments: [false, true])
    func parametersAreCommonOnlyWhenEnoughOperationsTakeEnoughOfThem(withThirdOperation: Bool) throws {
        // Two operations: what they share is theirs. A third that declares `key` required and lacks `quotaUser`:
        // only `fields` and `alt` are common to all, too few.
        var paths = """
            paths:
              /a: { get: { operationId: a, parameters: *common, responses: { "204": { description: ok } } } }
              /b: { get: { operationId: b, parameters: *common, responses: { "204": { description: ok } } } }

            """
        if withThirdOperation {
            paths += """
                  /c:
                    get:
                      operationId: c
                      parameters:
                        - { name: fields, in: query, schema: { type: string } }
                        - { name: alt, in: query, schema: { type: string } }
                        - { name: key, in: query, required: true, schema: { type: string } }
                      responses: { "204": { description: ok } }

                """
        }
        let description = try Support.description(
            yaml: """
                openapi: 3.0.3
                info: { title: T, version: "1" }
                x-common: &common
                  - { name: fields, in: query, schema: { type: string } }
                  - { name: alt, in: query, schema: { type: string } }
                  - { name: key, in: query, schema: { type: string } }
                  - { name: quotaUser, in: query, schema: { type: string } }

                """ + paths)
        let files = Generator(description: description).files()
        let book = try #require(files["TAPI.swift"])
        let models = try #require(files["Models.swift"])
        #expect(!models.contains("CommonParameters") && !book.contains("common"))
        #expect(
            book.contains(
                "static var a: APIParameterBuilder<(fields: String?, alt: String?, key: String?, quotaUser: String?)>?")
        )
        #expect(book.contains("        fields: String? = nil,\n        alt: String? = nil,\n"))
    }

    @Test func operationNamesAreUnique() throws {
        let description = try Support.description(
            yaml: """
                openapi: 3.0.3
                info: { title: T, version: "1" }
                paths:
                  /a:
                    get: { operationId: get-thing, responses: { "200": { description: ok } } }
                  /b:
                    get: { operationId: getThing, responses: { "200": { description: ok } } }
                """)
        let book = try #require(Generator(description: description).files()["TAPI.swift"])
        #expect(book.contains("static var getThing:"))
        #expect(book.contains("static var getThing2:"))
    }

    @Test func aFormBodyWithoutMembersBesidePathValuesIsLeftOutNotDropped() throws {
        let description = try Support.description(
            yaml: """
                openapi: 3.0.3
                info: { title: T, version: "1" }
                paths:
                  /cards/{id}:
                    post:
                      operationId: moveCard
                      parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
                      requestBody:
                        required: true
                        content:
                          application/x-www-form-urlencoded:
                            schema: { oneOf: [{ type: string }, { type: integer }] }
                      responses: { "204": { description: moved } }
                """)
        let book = try #require(Generator(description: description).files()["TAPI.swift"])
        // The caller cannot pass a body the builder would not send.
        #expect(book.contains("static var moveCard: APIParameterBuilder<Int>? = .init { [\"id\": $0] }"))
        #expect(book.contains("static func moveCard(id: Int) async throws(APIError) {"))
        #expect(book.contains("// courier-openapi: the MoveCardRequest request body is left out"))
    }

    @Test func objectAndPathStylesAreWrittenAsDescribed() throws {
        let description = try Support.description(
            yaml: """
                openapi: 3.0.3
                info: { title: T, version: "1" }
                paths:
                  /boxes/{ids}/{tag}/{range}:
                    get:
                      operationId: findBoxes
                      parameters:
                        - { name: ids, in: path, required: true, schema: { type: array, items: { type: integer } } }
                        - { name: tag, in: path, required: true, style: label, schema: { type: string } }
                        - name: range
                          in: path
                          required: true
                          style: matrix
                          explode: true
                          schema: { $ref: "#/components/schemas/Range" }
                        - { name: filter, in: query, schema: { $ref: "#/components/schemas/Filter" } }
                        - name: near
                          in: query
                          explode: false
                          schema: { $ref: "#/components/schemas/Range" }
                      responses: { "204": { description: ok } }
                components:
                  schemas:
                    Filter:
                      type: object
                      required: [color]
                      properties:
                        color: { type: string, enum: [red, blue] }
                        size: { type: integer }
                    Range:
                      type: object
                      required: [from, to]
                      properties: { from: { type: integer }, to: { type: integer } }
                """)
        let book = try #require(Generator(description: description).files()["TAPI.swift"])
        // Path: a simple array is comma-separated, a label scalar starts with a dot, an exploded matrix object is
        // `;key=value` per member; the delimiters are kept, the values encoded (`DelimitedValue`).
        #expect(book.contains("\"ids\": $0.ids.map { \"\\($0)\" as DelimitedValue }.joined(separator: \",\")"))
        #expect(book.contains("\"tag\": \".\\($0.tag)\" as DelimitedValue"))
        #expect(book.contains("\"range\": \";from=\\($0.range.from);to=\\($0.range.to)\" as DelimitedValue"))
        // Query: an exploded form object (the default) is one item per member; explode: false is key,value pairs.
        #expect(book.contains("\"color\": $0.filter?.color,\n"))
        #expect(book.contains("\"size\": $0.filter?.size,\n"))
        #expect(book.contains("querying(") == false)
        #expect(book.contains("\"near\": $0.near.map { v in \"from,\\(v.from),to,\\(v.to)\" as DelimitedValue }"))
    }

    @Test func multipartFilesHaveAFilenameAndAScalarJSONBodyIsABodyOfItsOwn() throws {
        let description = try Support.description(
            yaml: """
                openapi: 3.0.3
                info: { title: T, version: "1" }
                paths:
                  /photos:
                    post:
                      operationId: uploadPhoto
                      requestBody:
                        required: true
                        content:
                          multipart/form-data:
                            schema:
                              type: object
                              required: [photo]
                              properties:
                                title: { type: string }
                                photo: { type: string, format: binary }
                                thumbnail: { type: string, format: binary }
                            encoding: { photo: { contentType: image/png } }
                      responses: { "204": { description: ok } }
                  /cards/{id}/labels:
                    put:
                      operationId: setLabels
                      parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
                      requestBody:
                        required: true
                        content:
                          application/json:
                            schema: { type: array, items: { type: string } }
                      responses:
                        "200":
                          description: set
                          content: { application/json: { schema: { type: array, items: { type: string } } } }
                """)
        let book = try #require(Generator(description: description).files()["TAPI.swift"])
        // Every member by name; binary ones are file parts with a filename and the encoding's content type.
        #expect(book.contains("\"photo\": .data($0.photo, filename: \"photo\", contentType: \"image/png\")"))
        #expect(
            book.contains(
                "\"thumbnail\": ($0.thumbnail).map { MultipartFile.data($0, filename: \"thumbnail\") }"
            ))
        #expect(book.contains("\"title\": $0.title"))
        // A JSON array beside a path value: the endpoint takes the encoded bytes, the typed call the array.
        #expect(book.contains("static var setLabels: APIParameterBuilder<(id: Int, body: Data)>?"))
        #expect(
            book.contains(
                ".body(\n            .data($0.body), contentType: \"application/json\",\n            parameters: [\"id\": $0.id])"
            ))
        #expect(book.contains("static func setLabels(id: Int, body: [String]) async throws(APIError) -> [String] {"))
        // After the encoding, the call returns the decoded response explicitly.
        #expect(book.contains("        return try await $setLabels.request(with: (id: id, body: json))\n"))
        #expect(book.contains("json = try APIConfiguration.current.encoder.coder.encode(body)"))
        #expect(!book.contains("left out"))
    }

    @Test func anInvalidDescriptionIsATypedError() throws {
        #expect(throws: DescriptionError.self) {
            try Support.description(
                yaml: "openapi: 3.0.3\ninfo: { title: T }\npaths: { /a: { get: { responses: 5 } } }")
        }
        #expect(throws: DescriptionError.self) { try Support.description(yaml: "just: text") }
        #expect(throws: DescriptionError.self) { try Support.description(yaml: "[unclosed") }
    }
}
