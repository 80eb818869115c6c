import Foundation
import Testing

@testable import CourierOpenAPI

/// Swagger 2.0 documents are converted to OpenAPI 3.0 first (swagger-2.0.yaml).
@Suite struct SwaggerTests {
    @Test func theDocumentIsConvertedAndValidatedAs30() throws {
        let description = try Support.description("swagger-2.0.yaml")
        #expect(description.specificationVersion == "2.0")
        #expect(description.root["openapi"]?.string == "3.0.3")
        #expect(description.root["servers"]?.array?.first?["url"]?.string == "https://store.example.com/api")
        let ids = description.operations.map(\.operationId)
        #expect(ids == ["listItems", "createItem", "getItem", "uploadPicture"])
        // A referenced parameter is inlined; csv arrays do not explode.
        let list = description.operations[0]
        #expect(list.parameters.map(\.name) == ["page", "tags"])
        #expect(list.parameters[1].explode == false)
        // The body parameter becomes the request body, with the document's `consumes`.
        let create = description.operations[1]
        #expect(create.body?.contentType == "application/json")
        #expect(create.body?.schema["$ref"]?.string == "#/components/schemas/Item")
        #expect(create.success?.schema?["$ref"]?.string == "#/components/schemas/Item")
        // formData with a file: a multipart body; the file is binary.
        let upload = description.operations[3]
        #expect(upload.body?.contentType == "multipart/form-data")
        #expect(upload.body?.required == true)
        #expect(upload.body?.schema["properties"]?["file"]?["format"]?.string == "binary")
    }

    @Test func theBookUsesTheConvertedDescription() throws {
        let files = try Support.generated("swagger-2.0.yaml")
        let book = try #require(files["OldStoreAPI.swift"])
        // `collectionFormat: csv`: the array comma-separated.
        #expect(
            book.contains(
                "\"tags\": $0.tags.map { v in v.map { \"\\($0)\" as DelimitedValue }.joined(separator: \",\") }"))
        #expect(book.contains("@POST(\"/items/{id}/picture\", encoding: .multipart)"))
        // The `type: file` member is a file part with a filename.
        #expect(book.contains("\"file\": .data($0.body.file, filename: \"file\"), \"caption\": $0.body.caption"))
        let models = try #require(files["Models.swift"])
        #expect(models.contains("var note: String?"))  // x-nullable
        #expect(models.contains("var file: Data\n"))  // type: file
        let configuration = try #require(files["Configuration.swift"])
        #expect(configuration.contains("static let server1 = \"https://store.example.com/api\""))
        #expect(
            configuration.contains("AuthPlugin.basicAuth(username: basicAuth.username, password: basicAuth.password)"))
        #expect(configuration.contains("AuthPlugin.apiKey(token, header: \"X-Token\")"))
    }

    @Test func aSwaggerVersionOtherThan2IsRejected() {
        #expect(throws: DescriptionError.self) {
            try Support.description(yaml: "swagger: \"1.2\"\ninfo: { title: T, version: \"1\" }\npaths: {}")
        }
    }
}
