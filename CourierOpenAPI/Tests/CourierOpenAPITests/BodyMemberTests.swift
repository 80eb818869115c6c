import Courier
import CourierTesting
import Foundation
import Testing

@testable import CourierOpenAPI

/// A form or multipart body member named like a path value: the builder writes the body itself, so that the member
/// is sent in the body and the path value in the path.
@MainActor
@Suite struct BodyMemberTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var contentType: String
        /// Lines the endpoint's builder holds, in order.
        var lines: [String]
        var testDescription: String { contentType }
    }

    nonisolated static let cases: [Case] = [
        Case(
            contentType: "application/x-www-form-urlencoded",
            lines: [
                "@PUT(\"/users/{name}\", encoding: .form)",
                "var fields: [(name: String, value: String)] = []",
                "fields.append((\"name\", $0.body.name))",
                "if let value = $0.body.age { fields.append((\"age\", \"\\(value)\")) }",
                "if let value = $0.body.role { fields.append((\"role\", value.rawValue)) }",
                "for item in $0.body.tags ?? [] { fields.append((\"tags\", item)) }",
                "return .body(",
                ".data(FormBody.data(fields)), contentType: \"application/x-www-form-urlencoded\",",
                "parameters: [\"name\": $0.name])",
            ]),
        Case(
            contentType: "multipart/form-data",
            lines: [
                "@PUT(\"/users/{name}\", encoding: .multipart)",
                "var form = MultipartForm()",
                "form.append(.field(\"name\", $0.body.name))",
                "if let value = $0.body.age { form.append(.field(\"age\", \"\\(value)\")) }",
                "if let value = $0.body.role { form.append(.field(\"role\", value.rawValue)) }",
                "for item in $0.body.tags ?? [] { form.append(.field(\"tags\", item)) }",
                "if let value = $0.body.photo { form.append(.data(\"photo\", value, filename: \"photo\")) }",
                "return .body(",
                ".multipart(form), contentType: form.contentType,",
                "parameters: [\"name\": $0.name])",
            ]),
    ]

    static func description(_ contentType: String, photo: Bool) -> String {
        """
        openapi: 3.0.3
        info: { title: T, version: "1" }
        paths:
          /users/{name}:
            put:
              operationId: updateUser
              parameters:
                - { name: name, in: path, required: true, schema: { type: string } }
              requestBody:
                required: true
                content:
                  \(contentType):
                    schema:
                      type: object
                      required: [name]
                      properties:
                        name: { type: string }
                        age: { type: integer }
                        role: { type: string, enum: [admin, guest] }
                        tags: { type: array, items: { type: string } }
        \(photo ? "                photo: { type: string, format: binary }" : "")
              responses: { "204": { description: ok } }
        """
    }

    @Test(arguments: cases) func theBuilderWritesTheBodyItself(_ test: Case) throws {
        let description = try Support.description(
            yaml: Self.description(test.contentType, photo: test.contentType.hasPrefix("multipart")))
        let book = try #require(Generator(description: description).files()["TAPI.swift"])
        let lines = book.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let start = try #require(lines.firstIndex(of: test.lines[0]), "\(book)")
        #expect(
            Array(lines[start..<min(lines.count, start + test.lines.count + 2)]).filter(test.lines.contains)
                == test.lines, "\(book)")
        #expect(book.contains("static func updateUser(name: String, body: UpdateUserRequest) async throws(APIError)"))
    }

    @Test func aMemberWithoutATextLeavesTheBodyOut() throws {
        let description = try Support.description(
            yaml: """
                openapi: 3.0.3
                info: { title: T, version: "1" }
                paths:
                  /users/{name}:
                    put:
                      operationId: updateUser
                      parameters:
                        - { name: name, in: path, required: true, schema: { type: string } }
                      requestBody:
                        content:
                          application/x-www-form-urlencoded:
                            schema:
                              type: object
                              properties:
                                name: { type: string }
                                address: { type: object, properties: { city: { type: string } } }
                      responses: { "204": { description: ok } }
                """)
        let book = try #require(Generator(description: description).files()["TAPI.swift"])
        #expect(book.contains("// courier-openapi: the UpdateUserRequest request body is left out"), "\(book)")
        #expect(book.contains("static func updateUser(name: String) async throws(APIError)"), "\(book)")
    }

    /// The Zoo book's endpoints, as a server receives them.
    @Test func theMemberIsSentInTheBodyAndTheValueInThePath() async throws {
        let stub = StubExecutor().stub(where: { _ in true }, with: .status(204))
        let configuration = APIConfiguration.featureZoo(baseURL: "https://zoo.example.com/v2", bearerToken: "t")
        try await stub.activate(in: configuration) {
            try await WireAPI.updateWireForm(
                username: "ann", body: UpdateWireFormRequest(username: "ann b", email: "a@b", age: 7, tags: ["x", "y"]))
            try await WireAPI.uploadWireAvatar(
                username: "ann", body: UploadWireAvatarRequest(username: "ann b", avatar: Data("png".utf8)))
        }
        #expect(
            stub.requests.map(\.url.absoluteString) == [
                "https://zoo.example.com/v2/wire/forms/ann", "https://zoo.example.com/v2/wire/avatars/ann",
            ])
        let form = try #require(stub.requests.first)
        #expect(form.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(
            form.formFields.map { "\($0.name)=\($0.value ?? "")" } == [
                "username=ann b", "email=a@b", "age=7", "tags=x", "tags=y",
            ])
        let upload = try #require(stub.requests.last)
        let parts = try #require(upload.body.multipartForm).parts
        #expect(parts.map(\.name) == ["username", "avatar"])
        #expect(parts.first?.content.data == Data("ann b".utf8))
        #expect(parts.last?.filename == "avatar")
        #expect(parts.last?.contentType == "image/png")
        #expect(upload.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
    }
}
